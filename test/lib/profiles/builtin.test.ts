import { BUILT_IN_SECTIONS, copiesOf, inFlight } from '../../../lib/profiles/builtin';
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

describe('a row is divided by the copies its own columns state', () => {
  test.each([
    // [model, batch, table throughput per instance, per process]: the Inf1 Latency optimized rows, "N Models 1,
    // Workers per Model 1", are one process: their throughput is not divided by the 4 cores of inf1.xlarge.
    ['bert-base-cased', 1, 125.7],
    ['bert-base-uncased', 3, 284.7],
    ['distilbert-base-uncased', 6, 538.2],
    ['distilroberta-base', 3, 417.0],
  ])('Inf1 latency row %s batch %d is one process at %p/s', (id, batchSize, perProcess) => {
    // GIVEN the row's N Models = 1 WHEN the profile is built
    const m = measurement(id, 'inf1.xlarge', 'real-time', batchSize);
    // THEN the process does the whole instance figure (before: a quarter of it, 31.4 / 71.2 / 134.6 / 104.3)
    expect(m.throughputRps).toBe(perProcess);
    expect(m.measuredProcesses).toBe(1);
    expect(m.source).toContain('1 stated by the table');
    expect(m.source).toContain('N Models 1, Workers per Model 1');
  });

  test('an Inf1 throughput row with "N Models 4, Workers per Model 2" is 4 processes', () => {
    // GIVEN bert-base-cased, inf1.xlarge, batch 8, 1095.4/s, 4 models x 2 workers
    const m = measurement('bert-base-cased', 'inf1.xlarge', 'batch', 8);
    // THEN one process does 1095.4 / 4 = 273.85/s on NeuronCore-v1
    expect(m.throughputRps).toBeCloseTo(273.85, 9);
    expect(m).toMatchObject({ coreVersion: 'v1', coresPerProcess: 1, measuredProcesses: 4 });
  });

  test('an inf2.xlarge Data Parallel row whose calls overlapped is split over its 2 NeuronCores', () => {
    // GIVEN the Feb 2026 row: bert-base-uncased, inf2.xlarge, batch 8, 2674.19/s, p50 5.97 ms (2.0 batches in flight)
    const m = measurement('bert-base-uncased', 'inf2.xlarge', 'batch', 8);
    // THEN one process does 2674.19 / 2 = 1337.095/s, on 1 core of NeuronCore-v2
    expect(m.throughputRps).toBeCloseTo(1337.095, 9);
    expect(m).toMatchObject({ coresPerProcess: 1, coreVersion: 'v2', measuredProcesses: 2, p50Ms: 5.97, p99Ms: 6.17 });
  });

  test('an inf2.xlarge row with one call in flight ran one copy, so it is not halved', () => {
    // GIVEN resnet50 real time, 1218.88/s at p50 0.83 ms: 1218.88 x 0.00083 = 1.01 calls in flight on 2 cores
    const m = measurement('resnet50', 'inf2.xlarge', 'real-time', 1);
    // THEN one process did all 1218.88/s (its latency allows 1000 / 0.83 = 1205/s serially)
    expect(m.throughputRps).toBe(1218.88);
    expect(m.measuredProcesses).toBe(1);
    expect(m.source).toContain('1.01 in flight on 2 core groups');
  });

  test('xlm-roberta-base on inf2.48xlarge is the 2 copies its columns state, not 24', () => {
    // GIVEN 51.14/s at batch 16 and p50 625.66 ms: 51.14 x 0.62566 / 16 = 2.0 batches in flight
    const m = measurement('xlm-roberta-base', 'inf2.48xlarge', 'batch', 16);
    // THEN 51.14 / 2 = 25.57/s per process (before: 51.29 / 24 = 2.14/s)
    expect(m.throughputRps).toBeCloseTo(25.57, 9);
    expect(m.measuredProcesses).toBe(2);
    expect(measurement('xlm-roberta-base', 'inf2.48xlarge', 'real-time', 1).throughputRps).toBeCloseTo(24.4, 9);
  });

  test('the TensorFlow distilbert row on inf1.6xlarge is the 4 copies its latency shows, not 16', () => {
    // GIVEN 2123.4/s at batch 16, p50 30 ms: 3.98 batches in flight, N Models left empty
    const m = measurement('distilbert SST-2 (TF 2.10)', 'inf1.6xlarge', 'batch', 16);
    // THEN 2123.4 / 4 = 530.85/s per process
    expect(m.throughputRps).toBeCloseTo(530.85, 9);
  });

  test('the Inf1 NeuronCore Pipeline row is one process over all 16 cores of inf1.6xlarge', () => {
    const m = measurement('BERT base (NeuronCore Pipeline)', 'inf1.6xlarge', 'real-time', 1);
    expect(m.coresPerProcess).toBe(16);
    expect(m.throughputRps).toBe(2009.1);
  });

  test('an image-generation pipeline is one process on both cores of inf2.xlarge', () => {
    const m = measurement('Stable Diffusion 1.5', 'inf2.xlarge', 'real-time', 1);
    expect(m.coresPerProcess).toBe(2);
    expect(m.throughputRps).toBe(0.48);
  });
});

describe('every row agrees with Little\'s law once divided', () => {
  const rows = BUILT_IN_SECTIONS.flatMap((s) => s.rows.map((row) => [`${row.model} ${row.instanceType} ${row.mode} b${row.batchSize}`, row] as const));

  test.each(rows.filter(([, row]) => row.workersPerProcess !== undefined))(
    '%s: throughput x p50 / batch = N Models x Workers per Model (within 10 %)',
    (_name, row) => {
      // GIVEN an Inf1 encoder row with its N Models and Workers per Model columns
      const stated = (row.processes as number) * (row.workersPerProcess as number);
      // THEN the requests its throughput and latency put in flight are what those columns say
      expect(Math.abs(inFlight(row) / stated - 1)).toBeLessThan(0.1);
    },
  );

  test.each(rows)('%s: between 0.8 and 4 calls in flight per process', (_name, row) => {
    // GIVEN the copies the row is divided by
    const { processes } = copiesOf(row);
    const perProcess = inFlight(row) / processes;
    // THEN no process is credited less than its latency allows (too many copies) or far more (too few). Known
    // exceptions say so in their note: the CLIP batch-64 row's p50 includes queueing, and a NeuronCore Pipeline holds
    // one call per core.
    const cores = row.coresPerProcess ?? 1;
    if (row.note?.startsWith('KNOWN WARNING')) {
      expect(perProcess).toBeGreaterThan(4);
      return;
    }
    expect(perProcess).toBeGreaterThanOrEqual(0.8);
    expect(perProcess).toBeLessThanOrEqual(Math.max(4, cores));
  });

  test('every row names its Neuron version, CSV, page and date', () => {
    for (const profile of builtInProfiles()) {
      for (const m of profile.measurements) {
        expect(m.source).toMatch(/^AWS Neuron docs, ".+", last updated \d{4}-\d{2}-\d{2} \(https:\/\/awsdocs-neuron\.readthedocs-hosted\.com\/.+\.html\)/);
        expect(m.source).toMatch(/aws-neuron\/aws-neuron-sdk (about-neuron|general)\/benchmarks\/(inf1|inf2|trn1)\/\S+\.csv/);
        expect(m.source).toMatch(/Neuron \d+\.\d+/);
        expect(m.source).not.toMatch(/version not given|shared\//);
      }
    }
  });
});

describe('Trn1 rows carry the Neuron version their table states', () => {
  test.each([
    ['bert-base-uncased', 'batch', 16, '2.27.0'],
    ['bert-base-uncased', 'real-time', 1, '2.26.0'],
    ['distilbert-base-uncased', 'batch', 16, '2.28.0'],
    ['roberta-base', 'batch', 16, '2.28.0'],
    ['bert-large-uncased', 'real-time', 1, '2.27.0'],
  ] as const)('%s %s batch %d: Neuron %s', (id, mode, batchSize, version) => {
    const m = measurement(id, 'trn1.2xlarge', mode, batchSize);
    expect(m.source).toContain(`Neuron ${version}`);
    expect(m.source).toContain('2026-02-26');
  });

  test('a trn1.2xlarge row is split over its 2 NeuronCore-v2', () => {
    // GIVEN Trn1 roberta-base batch 16, 3378.11/s
    const m = measurement('roberta-base', 'trn1.2xlarge', 'batch', 16);
    // THEN 3378.11 / 2 = 1689.055/s, NeuronCore-v2
    expect(m.throughputRps).toBeCloseTo(1689.055, 9);
    expect(m.coreVersion).toBe('v2');
  });
});

describe('Inf2 rows come from the current page where it has the model and configuration', () => {
  test.each([
    // [model, mode, batch, Feb 2026 instance throughput, Neuron version]
    ['albert-base-v2', 'batch', 8, 3147.1, '2.25.0'],
    ['google/electra-base-discriminator', 'real-time', 1, 2020.46, '2.26.0'],
    ['roberta-large', 'batch', 4, 962.7, '2.25.0'],
    ['openai/clip-vit-large-patch14', 'batch', 8, 285.94, '2.21.0'],
    ['deepmind/multimodal-perceiver', 'real-time', 1, 0.85, '2.21.0'],
  ] as const)('%s %s batch %d: %p/s per instance, Neuron %s, 2026-02-26', (id, mode, batchSize, instance, version) => {
    const m = measurement(id, 'inf2.xlarge', mode, batchSize);
    expect(m.throughputRps * (m.measuredProcesses as number)).toBeCloseTo(instance, 9);
    expect(m.source).toContain('2026-02-26');
    expect(m.source).toContain(`Neuron ${version}`);
  });

  test('resnet101 real time on Inf2 comes from Feb 2026 (994.69/s at p50 1.01 ms, Neuron 2.21.0)', () => {
    const m = measurement('resnet101', 'inf2.xlarge', 'real-time', 1);
    expect([m.throughputRps, m.p50Ms, m.p99Ms]).toEqual([994.69, 1.01, 1.02]);
    expect(m.source).toContain('latency_data_vision_cnn.csv');
  });

  test('a model the current page dropped keeps its September 2024 row, sourced to that revision', () => {
    // GIVEN bert-base-cased batch 4, 2697.72/s, only on the Sept 2024 page
    const m = measurement('bert-base-cased', 'inf2.xlarge', 'batch', 4);
    // THEN 2697.72 / 2 = 1348.86/s, sourced to the 2024 revision and its CSV
    expect(m.throughputRps).toBeCloseTo(1348.86, 9);
    expect(m.source).toContain('2024-09-16');
    expect(m.source).toContain('general/benchmarks/inf2/throughput_data_encoder.csv');
  });

  test("the 2024 bert-base-cased real-time row, whose throughput is xlm-roberta-base's 41.24/s, is left out", () => {
    // GIVEN the 2024 table's bert-base-cased Real Time row: 41.24/s at p50 1.02 ms (a copy slip)
    // THEN bert-base-cased has no Inf2 real-time measurement to mislead a plan
    const rows = (findProfile('bert-base-cased') as ModelProfile).measurements.filter(
      (m) => m.instanceType === 'inf2.xlarge' && m.mode === 'real-time',
    );
    expect(rows).toEqual([]);
  });

  test('a Trn1 row and an Inf2 row of the same batch and mode both stay', () => {
    expect(measurement('bert-base-uncased', 'inf2.xlarge', 'real-time', 1).throughputRps).toBeCloseTo(999.105, 9);
    expect(measurement('bert-base-uncased', 'trn1.2xlarge', 'real-time', 1).throughputRps).toBeCloseTo(1042.725, 9);
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
    expect(findProfile(id)?.id).toBe(id);
  });

  test('one model seen at two image sizes is two profiles', () => {
    expect(findProfile('Stable Diffusion 2.1 (512x512)')?.measurements[0].p50Ms).toBe(1655.0);
    expect(findProfile('Stable Diffusion 2.1 (768x768)')?.measurements[0].p50Ms).toBe(5504.0);
    expect(findProfile('Stable Diffusion 2.1')).toBeUndefined();
  });

  test('the token-throughput encoder-decoder rows are not profiles', () => {
    expect(findProfile('google/flan-t5-xl')).toBeUndefined();
    expect(findProfile('t5-3b')).toBeUndefined();
  });

  test('ids are unique and sorted, and profileIds() lists them', () => {
    const ids = builtInProfiles().map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(profileIds()).toEqual(ids);
    expect([...ids].sort((a, b) => a.localeCompare(b))).toEqual(ids);
    // 14 encoders + 7 vision transformers + 8 CNN + 6 Stable Diffusion + 4 PixArt on the Inf2 pages,
    // + distilroberta-base, distilbert SST-2, BERT base pipeline, ResNet-50 TF, YOLOv4, OpenPose from Inf1.
    expect(ids).toHaveLength(14 + 7 + 8 + 6 + 4 + 6);
  });
});

describe('one profile per model holds its measurements across core versions', () => {
  test('bert-base-uncased has its Inf1, Inf2 and Trn1 rows', () => {
    const profile = findProfile('bert-base-uncased') as ModelProfile;
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
    const inf1 = resnet.measurements.filter((m) => m.coreVersion === 'v1');
    // THEN it is in resnet50 at 921.5 / 4 = 230.375/s ("Num. Cores 4"), and the TF fp16 row is a profile of its own
    expect(inf1.map((m) => m.throughputRps)).toEqual([230.375]);
    expect(findProfile('ResNet-50 (TF 1.15, fp16)')?.measurements[0].throughputRps).toBeCloseTo(551.75, 9);
  });
});

/**
 * NeuronCores, device memory per core and host memory of the instances the tables ran on (aws-neuron/aws-neuron-sdk
 * `about-neuron/arch/neuron-hardware/*-arch.rst`: 8 GiB per Inf1 chip of 4 cores, 32 GiB per Inf2/Trn1 chip of 2).
 */
const INSTANCES: Record<string, { cores: number; deviceGiBPerCore: number; hostGiB: number; vcpus: number }> = {
  'inf1.xlarge': { cores: 4, deviceGiBPerCore: 2, hostGiB: 8, vcpus: 4 },
  'inf1.2xlarge': { cores: 4, deviceGiBPerCore: 2, hostGiB: 16, vcpus: 8 },
  'inf1.6xlarge': { cores: 16, deviceGiBPerCore: 2, hostGiB: 48, vcpus: 24 },
  'inf2.xlarge': { cores: 2, deviceGiBPerCore: 16, hostGiB: 16, vcpus: 4 },
  'inf2.8xlarge': { cores: 2, deviceGiBPerCore: 16, hostGiB: 128, vcpus: 32 },
  'inf2.48xlarge': { cores: 24, deviceGiBPerCore: 16, hostGiB: 768, vcpus: 192 },
  'trn1.2xlarge': { cores: 2, deviceGiBPerCore: 16, hostGiB: 32, vcpus: 8 },
  'trn1.32xlarge': { cores: 32, deviceGiBPerCore: 16, hostGiB: 512, vcpus: 128 },
};

describe('every built-in measurement fits the layout it was measured on', () => {
  const cases = builtInProfiles().flatMap((p) => p.measurements.map((m, i) => [p.id, i, p, m] as const));

  test.each(cases)('%s measurements[%d]', (_id, _i, profile, m) => {
    // GIVEN the instance the row ran on and the processes it ran
    const instance = INSTANCES[m.instanceType as string];
    expect(instance).toBeDefined();
    const processes = m.measuredProcesses as number;
    // THEN its own memory estimate accepts that layout, so the estimate never rejects what was measured
    expect(m.deviceMemoryGiB).toBeLessThanOrEqual(m.coresPerProcess * instance.deviceGiBPerCore);
    expect(processes * (m.hostMemoryGiB as number)).toBeLessThanOrEqual(0.9 * instance.hostGiB);
    expect(processes * (profile.vcpuPerProcess ?? 1)).toBeLessThanOrEqual(instance.vcpus);
  });

  test('every measurement is complete and sourced, and the profile carries the largest memory', () => {
    for (const profile of builtInProfiles()) {
      expect(profile.memorySource).toMatch(/^estimated per measurement/);
      expect(profile.measurements.length).toBeGreaterThan(0);
      expect(profile.deviceMemoryGiB).toBe(Math.max(...profile.measurements.map((m) => m.deviceMemoryGiB as number)));
      for (const m of profile.measurements) {
        expect(m.throughputRps).toBeGreaterThan(0);
        expect(m.p50Ms).toBeLessThanOrEqual(m.p99Ms);
        expect(m.deviceMemoryGiB).toBeGreaterThan(0);
        expect(m.hostMemoryGiB).toBeGreaterThan(0);
        expect(m.memorySource).toMatch(/^estimated: device = /);
        expect(Number.isInteger(m.batchSize) && m.batchSize > 0).toBe(true);
      }
    }
  });
});
