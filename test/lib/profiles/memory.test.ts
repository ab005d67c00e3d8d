import { estimateMemory, findProfile } from '../../../lib/profiles';
import type { Measurement, ModelProfile } from '../../../lib/profiles';

/** The measurement of `id` on inf2.xlarge (or `instanceType`) with this mode and batch size. */
function measurement(id: string, mode: 'batch' | 'real-time', batchSize: number, instanceType = 'inf2.xlarge'): Measurement {
  const found = (findProfile(id) as ModelProfile).measurements.filter(
    (m) => m.instanceType === instanceType && m.mode === mode && m.batchSize === batchSize,
  );
  expect(found).toHaveLength(1);
  return found[0];
}

describe('estimateMemory derives per-process memory from parameters, compiled precision and batch size', () => {
  test('an FP32 encoder compiled with Matmult-BF16 autocast stores 2 bytes per weight', () => {
    // GIVEN 110M parameters (BERT-base), bf16 weights, batch 8 of text at sequence length 128 (48 MiB per sample)
    const estimate = estimateMemory({ params: 110e6, precision: 'bf16', batchSize: 8, activation: 'textSeq128' });
    // THEN weights = 110e6 x 2 B = 0.204891 GiB; activations = 8 x 48 MiB = 0.375 GiB
    //      device = (0.204891 + 0.375) x 1.2 + 0.25 = 0.945869 -> 0.95 GiB (rounded up)
    //      host = 1.25 + 0.204891 = 1.454891 -> 1.46 GiB
    expect(estimate.deviceMemoryGiB).toBe(0.95);
    expect(estimate.hostMemoryGiB).toBe(1.46);
    expect(estimate.memorySource).toMatch(/^device = \(weights 0\.205 GiB \[110M params x 2 B, bf16\] \+ batch 8 x 48 MiB/);
  });

  test('an FP32 model without autocast stores 4 bytes per weight', () => {
    // GIVEN the same model at fp32 (an Inf1 row) THEN weights = 0.409782 GiB
    //      device = (0.409782 + 0.375) x 1.2 + 0.25 = 1.191738 -> 1.2; host = 1.659782 -> 1.66
    const estimate = estimateMemory({ params: 110e6, precision: 'fp32', batchSize: 8, activation: 'textSeq128' });
    expect([estimate.deviceMemoryGiB, estimate.hostMemoryGiB]).toEqual([1.2, 1.66]);
  });

  test('a large output tensor counts on the device and on the host, per sample', () => {
    // GIVEN 270M bf16 parameters, batch 16, and 122.07 MiB of masked-LM logits per sample (xlm-roberta-base)
    const outputMiB = (128 * 250002 * 4) / 1024 ** 2;
    const estimate = estimateMemory({ params: 270e6, precision: 'bf16', batchSize: 16, activation: 'textSeq128', outputMiBPerSample: outputMiB });
    // THEN weights = 0.502914 GiB; activations = 16 x (48 + 122.0713) MiB = 2.657364 GiB
    //      device = 3.160278 x 1.2 + 0.25 = 4.042333 -> 4.05; host = 1.25 + 0.502914 + 1.907364 = 3.660278 -> 3.67
    expect([estimate.deviceMemoryGiB, estimate.hostMemoryGiB]).toEqual([4.05, 3.67]);
    expect(estimate.memorySource).toContain('+ batch outputs');
  });
});

describe('memory belongs to a measurement, not to the largest batch a profile was measured at', () => {
  test('resnet101 at batch 1 needs about what resnet50 needs at batch 1', () => {
    // GIVEN resnet101 (44.5M) and resnet50 (25.6M), bf16, batch 1 of a 224x224 image (128 MiB)
    // THEN resnet101: (0.082888 + 0.125) x 1.2 + 0.25 = 0.499466 -> 0.50; resnet50: (0.047684 + 0.125) x 1.2 + 0.25
    //      = 0.457221 -> 0.46. Before, every resnet101 row was charged its batch-64 row's 10.05 GiB.
    expect(measurement('resnet101', 'real-time', 1).deviceMemoryGiB).toBe(0.5);
    expect(measurement('resnet50', 'real-time', 1).deviceMemoryGiB).toBe(0.46);
  });

  test("the 6x gap between the resnet101 and resnet50 profiles is resnet101's batch-64 row", () => {
    // GIVEN resnet101's 2024 batch row at batch 64 and resnet50's largest at batch 8
    // THEN batch 64: (0.082888 + 64 x 0.125) x 1.2 + 0.25 = 9.949466 -> 9.95 GiB, the profile's (largest) figure
    expect(measurement('resnet101', 'batch', 64).deviceMemoryGiB).toBe(9.95);
    expect(findProfile('resnet101')?.deviceMemoryGiB).toBe(9.95);
    expect(measurement('resnet50', 'batch', 8).deviceMemoryGiB).toBe(1.51);
    expect(findProfile('resnet50')?.deviceMemoryGiB).toBe(1.51);
  });

  test.each([
    // [model, batch-1 device GiB]: the outliers of the profile listing, each at batch 1
    ['vgg11', 0.7],
    ['vgg16', 0.71],
    ['openai/clip-vit-base-patch32', 0.74],
    ['openai/clip-vit-large-patch14', 1.36],
  ])('%s at batch 1 needs %p GiB', (id, gib) => {
    // GIVEN vgg11 132.9M / vgg16 138.4M / CLIP-B 151M / CLIP-L 428M, bf16, 128 MiB per image
    // THEN (params x 2 B + 128 MiB) x 1.2 + 0.25, rounded up: the larger model needs more, not less
    expect(measurement(id, 'real-time', 1).deviceMemoryGiB).toBe(gib);
  });

  test('an Inf1 fp32 row counts 4 bytes per weight', () => {
    // GIVEN bert-base-uncased on inf1.xlarge, batch 6, fp32
    // THEN (0.409782 + 6 x 48 MiB) x 1.2 + 0.25 = 1.079238 -> 1.08 GiB
    expect(measurement('bert-base-uncased', 'batch', 6, 'inf1.xlarge').deviceMemoryGiB).toBe(1.08);
  });
});
