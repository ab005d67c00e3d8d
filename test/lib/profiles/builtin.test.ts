import { builtInProfiles, findProfile, profileIds } from '../../../lib/profiles';
import type { Measurement, ModelProfile } from '../../../lib/profiles';

/** The measurement of `id` on `instanceType` with this mode and batch size; fails the test when missing. */
function measurement(id: string, instanceType: string, mode: 'batch' | 'real-time', batchSize: number): Measurement {
  const profile = findProfile(id);
  expect(profile).toBeDefined();
  const found = (profile as ModelProfile).measurements.filter(
    (m) => m.instanceType === instanceType && m.mode === mode && m.batchSize === batchSize,
  );
  expect(found).toHaveLength(1);
  return found[0];
}

describe('built-in profiles divide the table throughput by the processes the row ran', () => {
  test('an inf2.xlarge row is split over its 2 NeuronCores', () => {
    // GIVEN the Feb 2026 row: bert-base-uncased, inf2.xlarge, batch 8, 2674.19/s for the instance
    // WHEN the profile is built
    const m = measurement('bert-base-uncased', 'inf2.xlarge', 'batch', 8);
    // THEN one process does 2674.19 / 2 = 1337.095/s, on 1 core of NeuronCore-v2
    expect(m.throughputRps).toBeCloseTo(1337.095, 9);
    expect(m.coresPerProcess).toBe(1);
    expect(m.coreVersion).toBe('v2');
    expect([m.p50Ms, m.p99Ms]).toEqual([5.97, 6.17]);
  });

  test('an inf1.xlarge row is split over its 4 NeuronCores, "4 models x 2 workers" being 4 processes', () => {
    // GIVEN the Inf1 row: bert-base-cased, inf1.xlarge, batch 8, 1095.4/s, 4 models x 2 workers
    const m = measurement('bert-base-cased', 'inf1.xlarge', 'batch', 8);
    // THEN one process does 1095.4 / 4 = 273.85/s on NeuronCore-v1
    expect(m.throughputRps).toBeCloseTo(273.85, 9);
    expect(m.coreVersion).toBe('v1');
    expect(m.coresPerProcess).toBe(1);
  });

  test('an inf2.48xlarge row is split over its 24 NeuronCores', () => {
    // GIVEN xlm-roberta-base, inf2.48xlarge, batch 16, 51.29/s
    const m = measurement('xlm-roberta-base', 'inf2.48xlarge', 'batch', 16);
    // THEN 51.29 / 24 = 2.137083.../s per process
    expect(m.throughputRps).toBeCloseTo(2.1370833, 6);
  });

  test('a trn1.2xlarge row is split over its 2 NeuronCore-v2', () => {
    // GIVEN Trn1 roberta-base batch 16, 3378.11/s
    const m = measurement('roberta-base', 'trn1.2xlarge', 'batch', 16);
    // THEN 3378.11 / 2 = 1689.055/s, NeuronCore-v2
    expect(m.throughputRps).toBeCloseTo(1689.055, 9);
    expect(m.coreVersion).toBe('v2');
  });

  test('the Inf1 NeuronCore Pipeline row is one process over all 16 cores of inf1.6xlarge', () => {
    // GIVEN BERT base as a NeuronCore Pipeline, 2009.1/s on inf1.6xlarge
    const m = measurement('BERT base (NeuronCore Pipeline)', 'inf1.6xlarge', 'real-time', 1);
    // THEN the single process has all 16 cores and all the throughput
    expect(m.coresPerProcess).toBe(16);
    expect(m.throughputRps).toBe(2009.1);
  });

  test('an image-generation pipeline is one process on both cores of inf2.xlarge', () => {
    // GIVEN Stable Diffusion 1.5, 0.48 images/s, UNet data parallel over cores 0-1 inside one pipeline
    const m = measurement('Stable Diffusion 1.5', 'inf2.xlarge', 'real-time', 1);
    // THEN one process of 2 cores does all 0.48/s
    expect(m.coresPerProcess).toBe(2);
    expect(m.throughputRps).toBe(0.48);
  });
});

describe('built-in profile ids are the model names as the tables write them', () => {
  test.each([
    'bert-base-uncased',
    'google/vit-base-patch16-224',
    'resnet50',
    'google/electra-base-discriminator',
    'openai/clip-vit-large-patch14',
    'deepmind/multimodal-perceiver',
    'UNet',
    'Stable Diffusion XL Base & Refiner',
    'distilroberta-base',
  ])('%s is a built-in profile', (id) => {
    // GIVEN the id as written in the table WHEN looked up THEN it is found under that exact id
    expect(findProfile(id)?.id).toBe(id);
  });

  test('one model seen at two image sizes is two profiles', () => {
    // GIVEN the table lists Stable Diffusion 2.1 at 512x512 and 768x768
    // THEN each size is its own profile, and the bare name is not an id
    expect(findProfile('Stable Diffusion 2.1 (512x512)')?.measurements[0].p50Ms).toBe(1655.0);
    expect(findProfile('Stable Diffusion 2.1 (768x768)')?.measurements[0].p50Ms).toBe(5504.0);
    expect(findProfile('Stable Diffusion 2.1')).toBeUndefined();
  });

  test('the token-throughput encoder-decoder rows are not profiles', () => {
    // GIVEN the seed's encoder-decoder tables count tokens, not inferences
    // THEN neither model is a profile
    expect(findProfile('google/flan-t5-xl')).toBeUndefined();
    expect(findProfile('t5-3b')).toBeUndefined();
  });

  test('ids are unique and sorted, and profileIds() lists them', () => {
    const ids = builtInProfiles().map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(profileIds()).toEqual(ids);
    expect([...ids].sort((a, b) => a.localeCompare(b))).toEqual(ids);
    // 14 encoder rows + 7 vision transformer + 8 CNN + 6 Stable Diffusion + 4 PixArt models in the seed,
    // + distilroberta-base, distilbert SST-2, BERT base pipeline, ResNet-50 TF, YOLOv4, OpenPose from Inf1.
    expect(ids).toHaveLength(14 + 7 + 8 + 6 + 4 + 6);
  });
});

describe('one profile per model holds its measurements across core versions', () => {
  test('bert-base-uncased has its Inf1, Inf2 and Trn1 rows', () => {
    // GIVEN rows for bert-base-uncased in the Inf1 (batch 6, real-time batch 3), Inf2 Feb 2026 (8, 1) and Trn1 (16, 1) tables
    const profile = findProfile('bert-base-uncased') as ModelProfile;
    // THEN the one profile holds all six, with their instance types
    expect(profile.measurements.map((m) => `${m.instanceType} ${m.mode} ${m.batchSize}`)).toEqual([
      'inf1.xlarge batch 6',
      'inf1.xlarge real-time 3',
      'inf2.xlarge batch 8',
      'inf2.xlarge real-time 1',
      'trn1.2xlarge batch 16',
      'trn1.2xlarge real-time 1',
    ]);
  });

  test('resnet50 holds the Inf1 PyTorch fp32 row but not the TensorFlow fp16 one', () => {
    const resnet = findProfile('resnet50') as ModelProfile;
    // GIVEN the Inf1 "ResNet-50 (PT 1.13, fp32)" row, batch 5, 921.5/s
    const inf1 = resnet.measurements.filter((m) => m.coreVersion === 'v1');
    // THEN it is in resnet50 at 921.5 / 4 = 230.375/s, and the TF fp16 row is a profile of its own
    expect(inf1.map((m) => m.throughputRps)).toEqual([230.375]);
    expect(findProfile('ResNet-50 (TF 1.15, fp16)')?.measurements[0].throughputRps).toBeCloseTo(551.75, 9);
  });
});

describe('the newer Inf2 row replaces the September 2024 row of the same operating point', () => {
  test('bert-base-uncased batch 8 on Inf2 comes from Feb 2026 only', () => {
    // GIVEN Sept 2024: 2756.19/s and Feb 2026: 2674.19/s, both batch 8, batch mode, inf2.xlarge
    const rows = (findProfile('bert-base-uncased') as ModelProfile).measurements.filter(
      (m) => m.instanceType === 'inf2.xlarge' && m.batchSize === 8,
    );
    // THEN only the Feb 2026 one remains, and its source says so
    expect(rows.map((m) => m.throughputRps)).toEqual([1337.095]);
    expect(rows[0].source).toContain('2026-02-26');
    expect(rows[0].source).toContain('Neuron 2.27.0');
  });

  test('resnet50 real-time on Inf2 comes from Feb 2026 only', () => {
    // GIVEN Sept 2024: 1246.26/s at p50 0.79 and Feb 2026: 1218.88/s at p50 0.83, batch 1 real-time
    const m = measurement('resnet50', 'inf2.xlarge', 'real-time', 1);
    // THEN 1218.88 / 2 = 609.44/s at p50 0.83 ms
    expect(m.throughputRps).toBeCloseTo(609.44, 9);
    expect(m.p50Ms).toBe(0.83);
  });

  test('a Trn1 row and an Inf2 row of the same batch and mode both stay', () => {
    // GIVEN bert-base-uncased real-time batch 1 on inf2.xlarge (1998.21/s) and trn1.2xlarge (2085.45/s)
    // THEN both are measurements
    expect(measurement('bert-base-uncased', 'inf2.xlarge', 'real-time', 1).throughputRps).toBeCloseTo(999.105, 9);
    expect(measurement('bert-base-uncased', 'trn1.2xlarge', 'real-time', 1).throughputRps).toBeCloseTo(1042.725, 9);
  });

  test('a Sept 2024 row without a newer one stays', () => {
    // GIVEN bert-base-cased batch 4, 2697.72/s, only in Sept 2024
    const m = measurement('bert-base-cased', 'inf2.xlarge', 'batch', 4);
    // THEN 2697.72 / 2 = 1348.86/s, sourced to the seed table
    expect(m.throughputRps).toBeCloseTo(1348.86, 9);
    expect(m.source).toContain('2024-09-16');
    expect(m.source).toContain('Encoder Models, Batch');
  });
});

/**
 * NeuronCores, device memory per core and host memory of the instances the tables ran on.
 * Source: /work/shared/reference/inferentia-facts.md §1b (8 GiB per Inf1 chip of 4 cores, 32 GiB per Inf2/Trn1 chip of 2).
 */
const INSTANCES: Record<string, { cores: number; deviceGiBPerCore: number; hostGiB: number; vcpus: number }> = {
  'inf1.xlarge': { cores: 4, deviceGiBPerCore: 2, hostGiB: 8, vcpus: 4 },
  'inf1.2xlarge': { cores: 4, deviceGiBPerCore: 2, hostGiB: 16, vcpus: 8 },
  'inf1.6xlarge': { cores: 16, deviceGiBPerCore: 2, hostGiB: 48, vcpus: 24 },
  'inf2.xlarge': { cores: 2, deviceGiBPerCore: 16, hostGiB: 16, vcpus: 4 },
  'inf2.8xlarge': { cores: 2, deviceGiBPerCore: 16, hostGiB: 128, vcpus: 32 },
  'inf2.48xlarge': { cores: 24, deviceGiBPerCore: 16, hostGiB: 768, vcpus: 192 },
  'trn1.2xlarge': { cores: 2, deviceGiBPerCore: 16, hostGiB: 32, vcpus: 8 },
};

describe('every built-in profile fits the layout it was measured on', () => {
  const cases = builtInProfiles().flatMap((p) => p.measurements.map((m, i) => [p.id, i, p, m] as const));

  test.each(cases)('%s measurements[%d]', (_id, _i, profile, m) => {
    // GIVEN the instance the row ran on and the processes it ran
    const instance = INSTANCES[m.instanceType as string];
    expect(instance).toBeDefined();
    const processes = instance.cores / m.coresPerProcess;
    // THEN the planner's memory and vCPU rules accept that layout, so the estimate never rejects what was measured
    expect(profile.deviceMemoryGiB).toBeLessThanOrEqual(m.coresPerProcess * instance.deviceGiBPerCore);
    expect(processes * profile.hostMemoryGiB).toBeLessThanOrEqual(0.9 * instance.hostGiB);
    expect(processes * (profile.vcpuPerProcess ?? 1)).toBeLessThanOrEqual(instance.vcpus);
  });

  test('every measurement is complete and sourced', () => {
    for (const profile of builtInProfiles()) {
      expect(profile.memorySource).toMatch(/^estimated: /);
      expect(profile.measurements.length).toBeGreaterThan(0);
      for (const m of profile.measurements) {
        expect(m.throughputRps).toBeGreaterThan(0);
        expect(m.p50Ms).toBeLessThanOrEqual(m.p99Ms);
        expect(m.source).toMatch(/AWS Neuron docs/);
        expect(Number.isInteger(m.batchSize) && m.batchSize > 0).toBe(true);
      }
    }
  });
});
