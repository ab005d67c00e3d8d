import { builtInProfiles, findProfile, HOST_CPU_DEFAULTS } from '../../../lib/profiles';

describe('every built-in profile carries a conservative host CPU cost per request by kind of input', () => {
  test.each([
    // [profile, ms of one vCPU per request]: text tokenization + JSON, image decoding, large images, image generation
    ['bert-base-uncased', 1],
    ['xlm-roberta-base', 1],
    ['resnet50', 10],
    ['openai/clip-vit-base-patch32', 10],
    ['YOLOv4 (PT 1.13)', 30],
    ['deepmind/multimodal-perceiver', 30],
    ['Stable Diffusion 1.5', 100],
  ])('%s: %p ms', (id, ms) => {
    const profile = findProfile(id);
    expect(profile?.hostCpuMsPerRequest).toBe(ms);
    expect(profile?.hostCpuSource).toMatch(/^UNVERIFIED estimate/);
  });

  test('no profile is left to the planner default, and every figure states its reasoning', () => {
    for (const profile of builtInProfiles()) {
      expect(profile.hostCpuMsPerRequest).toBeGreaterThan(0);
      expect(Object.values(HOST_CPU_DEFAULTS).map((d) => d.source)).toContain(profile.hostCpuSource);
    }
  });

  test('image inputs cost more host CPU than text, and generated images more than classified ones', () => {
    const { textSeq128, image224, imageLarge, diffusion } = HOST_CPU_DEFAULTS;
    expect(textSeq128.ms).toBeLessThan(image224.ms);
    expect(image224.ms).toBeLessThan(imageLarge.ms);
    expect(imageLarge.ms).toBeLessThan(diffusion.ms);
  });
});
