import { estimateMemory } from '../../../lib/profiles';
import { findProfile } from '../../../lib/profiles';

describe('estimateMemory derives per-process memory from the parameter count', () => {
  test('an fp32 encoder at batch 8', () => {
    // GIVEN 110M parameters (BERT-base), fp32, batch 8 of text at sequence length 128 (48 MiB per sample)
    const estimate = estimateMemory({ params: 110e6, maxBatchSize: 8, activation: 'textSeq128' });
    // THEN weights = 110e6 x 4 B = 0.40978 GiB; activations = 8 x 48 MiB = 0.375 GiB
    //      device = (0.40978 + 0.375) x 1.2 + 0.25 = 1.19174 -> 1.20 GiB (rounded up)
    //      host = 1.25 + 0.40978 = 1.65978 -> 1.66 GiB
    expect(estimate.deviceMemoryGiB).toBe(1.2);
    expect(estimate.hostMemoryGiB).toBe(1.66);
    expect(estimate.memorySource).toMatch(/^estimated: device = \(weights 0\.410 GiB \[110M params x 4 B\]/);
  });

  test('a bf16 pipeline counts 2 bytes per parameter', () => {
    // GIVEN 1 B parameters stored as bf16, batch 1 of a diffusion pipeline (1024 MiB per sample)
    const estimate = estimateMemory({ params: 1e9, bytesPerParam: 2, maxBatchSize: 1, activation: 'diffusion' });
    // THEN weights = 2e9 B = 1.86265 GiB; device = (1.86265 + 1) x 1.2 + 0.25 = 3.68518 -> 3.69; host = 3.11265 -> 3.12
    expect(estimate.deviceMemoryGiB).toBe(3.69);
    expect(estimate.hostMemoryGiB).toBe(3.12);
    expect(estimate.memorySource).toContain('1B params x 2 B');
  });

  test('the built-in profile uses its largest measured batch', () => {
    // GIVEN resnet50: 25.6M params, image 224 (128 MiB per sample), largest batch 8 (Inf2)
    // THEN device = (0.095367 + 1.0) x 1.2 + 0.25 = 1.56444 -> 1.57 GiB
    expect(findProfile('resnet50')?.deviceMemoryGiB).toBe(1.57);
    expect(findProfile('resnet50')?.memorySource).toContain('torchvision');
  });
});
