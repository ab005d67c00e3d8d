import { builtInProfiles, findProfile, HOST_CPU_DEFAULTS } from '../../../lib/profiles';

describe('every built-in profile carries a host CPU cost per request by kind of input, labelled with its origin', () => {
  test.each([
    // [profile, ms of one vCPU per request, origin]: text tokenization + JSON, image decoding, large images, generation
    ['bert-base-uncased', 1, /^partly measured default for text/],
    ['xlm-roberta-base', 1, /^partly measured default for text/],
    ['resnet50', 3, /^measured default for one 224x224 image \(npm run bench:host-work, 2026-11-25\)/],
    ['google/vit-base-patch16-224', 3, /^measured default for one 224x224 image/],
    ['openai/clip-vit-base-patch32', 3, /^measured default/],
    ['YOLOv4 (PT 1.13)', 30, /^estimate backed by one measurement/],
    ['deepmind/multimodal-perceiver', 30, /^estimate backed by one measurement/],
    ['Stable Diffusion 1.5', 100, /^UNVERIFIED estimate/],
  ])('%s: %p ms', (id, ms, origin) => {
    const profile = findProfile(id);
    expect(profile?.hostCpuMsPerRequest).toBe(ms);
    expect(profile?.hostCpuSource).toMatch(origin);
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
