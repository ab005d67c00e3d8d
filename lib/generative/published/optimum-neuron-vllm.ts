/**
 * Rows of Hugging Face optimum-neuron's vLLM benchmarks (huggingface/optimum-neuron `benchmark/vllm/`): vLLM with
 * optimum-neuron's Neuron platform plugin (its own NxD-based model implementations), loaded with guidellm 0.1.0 (how
 * the CSVs are read: `guidellm.ts`). Third-party: every row is `unverified`.
 */
import { guidellmRuns } from './guidellm';
import type { GuidellmLine, GuidellmRun } from './guidellm';
import type { PublishedRow } from './types';

/** The rows of one vLLM run. */
function runs(run: Omit<GuidellmRun, 'stack'>, lines: readonly GuidellmLine[]): PublishedRow[] {
  return guidellmRuns({ ...run, stack: 'optimum-neuron-vllm' }, lines);
}

const LLAMA_8B_DP = {
  model: 'llama-3.1-8b-instruct', tensorParallelDegree: 8, batchSize: 32, sequenceLength: 4096, maxConcurrency: 128,
  commit: 'aaf2fc8c', date: '2025-09-26', sdk: '2.24.0',
} as const;

const CHUNKED = 'benchmark/vllm/chunked-prefill/';
const CHUNKED_RUN = {
  model: 'llama-3.1-8b-instruct', instanceType: 'inf2.48xlarge', chip: 'inf2', sdk: '2.26.1', tensorParallelDegree: 8,
  batchSize: 32, sequenceLength: 4096, maxConcurrency: 32, commit: '8e9d1e9a', date: '2026-03-13',
} as const;

/** Every row of optimum-neuron's vLLM benchmarks. */
export const OPTIMUM_NEURON_VLLM_ROWS: readonly PublishedRow[] = [
  ...runs({
    ...LLAMA_8B_DP, instanceType: 'inf2.48xlarge', chip: 'inf2', dataParallel: 3,
    path: 'benchmark/vllm/data-parallel/llama3.1-8b/vllm-results-dp3.csv', run: '2025-09-16-13-19-42',
    notes: 'Three servers of TP 8 behind nginx (docker-compose-dp3.yaml); the synchronous line reaches one of them',
  }, [
    ['synchronous', 0.14437592982674508, 6.925908158807194, 475.0536329606, 26.588146713290314, 34.98143852684488],
    ['asynchronous@5.33 req/sec', 4.57726721800918, 17.19737365967637, 349.93110403008416, 71.10800281007674, 1084.4343911731107],
    ['throughput', 5.331211351276123, 15.570491513083963, 4198.371141097125, 49.52729766230695, 1226.1158906599637],
  ]),
  ...([
    ['2025-09-22-07-53-25', [
      ['synchronous', 0.15134643883957585, 6.606927156448364, 477.6602586110433, 26.072938623887865, 35.57482126279141],
      ['asynchronous@6.68 req/sec', 6.001307312748338, 12.653115241887184, 271.32100133256534, 52.18654567494364, 1423.650907381188],
      ['throughput', 6.6834932267300236, 12.227865216467116, 2244.7382052739463, 42.359638024675455, 1576.8588352931704],
    ]],
    ['2025-09-22-08-51-27', [
      ['synchronous', 0.1572846967378049, 6.3574992418289185, 242.49992105695935, 26.57249451377343, 36.192956327110444],
      ['asynchronous@6.76 req/sec', 6.086197078891722, 12.76975058021228, 273.24190053794325, 52.818190617461596, 1440.3183758391926],
      ['throughput', 6.756599933566527, 12.23339974615309, 2083.9777337180244, 42.721298628504385, 1606.9446841999056],
    ]],
    ['2025-09-22-10-19-06', [
      ['synchronous', 0.15429269957345304, 6.480733381377326, 241.84584617614746, 26.648029642405117, 36.121635333473954],
      ['asynchronous@6.72 req/sec', 6.040529839374817, 12.78356383015478, 271.2742687098362, 52.64837282358858, 1435.023791313891],
      ['throughput', 6.724027840010517, 12.32137459119161, 2125.291834937201, 42.99773258202774, 1596.2842092184967],
    ]],
  ] as const).flatMap(([run, lines]) => runs({
    ...LLAMA_8B_DP, instanceType: 'trn1.32xlarge', chip: 'trn1', dataParallel: 4,
    path: 'benchmark/vllm/data-parallel/llama3.1-8b/vllm-results-dp4.csv', run,
    notes: 'Four servers of TP 8 on /dev/neuron0-15 behind nginx (docker-compose-dp4.yaml); the file names no instance: 16 devices ' +
      'of 2 cores is trn1.32xlarge (inf2.48xlarge has 12). The file holds three runs of this configuration',
  }, lines)),
  ...runs({
    model: 'llama-3.1-8b-instruct', instanceType: 'trn2.48xlarge', chip: 'trn2', sdk: '2.26.0', tensorParallelDegree: 4,
    batchSize: 32, sequenceLength: 4096, maxConcurrency: 128, commit: '3a32a361', date: '2025-10-16',
    path: 'benchmark/vllm/single-instance/llama-3.1-8b-trn2/vllm-results.csv', run: '2025-10-16-12-32-02',
    notes: 'The commit ("add Trainium 2 TP4 llama-3.1-8B benchmark") names no instance size; TP 4 is one Trainium2 chip on either ' +
      'trn2.3xlarge or trn2.48xlarge (the neighbouring Qwen3 commits of the same week ran on trn2.3xlarge)',
  }, [
    ['synchronous', 0.1839959922297138, 5.434610323472456, 197.24611802534622, 22.13561523381564, 43.531779070711835],
    ['asynchronous@2.46 req/sec', 2.273251542201194, 11.44439393661442, 211.32527665699018, 47.561615871055935, 537.1344318141907],
    ['throughput', 2.4602618311878577, 11.783191284266385, 1253.8270473480225, 44.46380418193004, 578.7877787952672],
  ]),
  ...runs({ ...CHUNKED_RUN, path: `${CHUNKED}std-ods.csv`, run: '2026-03-03-15-22-15', levers: { onDeviceSampling: true },
    notes: 'README config A: standard context encoding, on-device sampling' }, [
    ['synchronous', 0.172984445311499, 5.780497813224793, 321.9269275665283, 24.509724916828933, 38.52363597087083],
    ['throughput', 2.0015373021097185, 14.763975629806518, 2137.9860496520996, 59.08931553718155, 426.20735311124344],
  ]),
  ...runs({ ...CHUNKED_RUN, path: `${CHUNKED}std-cpu-sampling.csv`, run: '2026-03-03-14-07-33', levers: { onDeviceSampling: false },
    notes: 'README config B: standard context encoding, CPU sampling' }, [
    ['synchronous', 0.09304205307708972, 10.747336929494685, 340.1387388055975, 48.218728726161416, 20.080166727728272],
    ['throughput', 0.857901330416405, 29.476369602029973, 3936.1499439586296, 123.80237010113954, 176.99284356790815],
  ]),
  ...runs({ ...CHUNKED_RUN, path: `${CHUNKED}chunked-cpu-sampling.csv`, run: '2026-03-03-14-11-21',
    levers: { chunkedPrefill: { chunkTokens: 1024 }, onDeviceSampling: false }, notes: 'README config C: chunked prefill (chunk 1024), CPU sampling' }, [
    ['synchronous', 0.09419924623565319, 10.6151780648665, 343.4100367806174, 47.331534551851675, 20.441236433136744],
    ['throughput', 0.8496131299427786, 30.721854517676615, 4036.5829597819934, 119.16805373557577, 189.88081078648426],
  ]),
  ...runs({ ...CHUNKED_RUN, commit: '2eb8c80f', path: `${CHUNKED}hybrid-ods.csv`, run: '2026-03-03-15-46-00',
    levers: { chunkedPrefill: { chunkTokens: 1024 }, onDeviceSampling: true },
    notes: 'README config D: chunked prefill (chunk 1024), on-device sampling for decode and CPU sampling for the prefill graph ("hybrid ODS")' }, [
    ['synchronous', 0.18794645900453472, 5.320261987772855, 296.27027294852513, 24.55990098320304, 38.44359388729119],
    ['throughput', 2.0767781082058643, 13.820111324570396, 1966.4817810058594, 55.94166151040428, 440.4468771484964],
  ]),
  ...runs({
    model: 'qwen3-32b', instanceType: 'trn2.3xlarge', chip: 'trn2', sdk: '2.26.0', tensorParallelDegree: 4, batchSize: 2,
    sequenceLength: 4096, maxConcurrency: 128, commit: '483bf947', date: '2025-10-17',
    path: 'benchmark/vllm/single-instance/qwen3-32B-trn2/vllm-results.csv', run: '2025-10-17-08-03-08',
    notes: 'Commit "perf(vllm): add Qwen3-32B trn2.3xlarge benchmark"',
  }, [
    ['synchronous', 0.11335199395762617, 8.821782772357647, 770.858672948984, 32.083890591448515, 28.442631099213582],
    ['asynchronous@0.11 req/sec', 0.11361824015989035, 8.724871543737558, 773.6351123222937, 32.07041533936593, 28.16858369502512],
    ['throughput', 0.11363296233261756, 8.751904689348661, 775.291736309345, 32.02292996783589, 28.303348617924282],
  ]),
  ...runs({
    model: 'qwen3-30b-a3b-instruct-2507', instanceType: 'trn1.32xlarge', chip: 'trn1', sdk: '2.24.0', tensorParallelDegree: 32, batchSize: 8,
    sequenceLength: 4096, maxConcurrency: 128, commit: 'baad1f96', date: '2025-09-26',
    path: 'benchmark/vllm/single-instance/qwen3-30B-A3B/vllm-results.csv', run: '2025-09-24-15-48-36',
    notes: 'single-instance/README.md: "configurations that use a tensor parallel size of 32 require a trn1.32xlarge instance"',
  }, [
    ['synchronous', 0.12042437092593716, 8.303633400372096, 2404.5459542955673, 23.90924976315609, 29.710412655584783],
    ['asynchronous@0.27 req/sec', 0.23892632138634035, 17.427488497325353, 2415.995274271284, 62.8855046564254, 57.180188557495235],
    ['throughput', 0.27198999808851954, 29.87142524123192, 7719.043239951134, 89.47256701333183, 65.71958328813854],
  ]),
  ...runs({
    model: 'qwen3-30b-a3b-instruct-2507', instanceType: 'trn2.3xlarge', chip: 'trn2', sdk: '2.26.0', tensorParallelDegree: 4, batchSize: 16,
    sequenceLength: 4096, maxConcurrency: 128, commit: 'f24c0f4d', date: '2025-10-16',
    path: 'benchmark/vllm/single-instance/qwen3-30B-A3B-trn2/vllm-results.csv', run: '2025-10-16-15-34-34',
    notes: 'Commit "perf: add Qwen3MoE single instance benchmark on trn2.3xl"',
  }, [
    ['synchronous', 0.06699825310004796, 14.925455629825592, 1546.7508435249329, 56.35983309753353, 15.903710329623888],
    ['asynchronous@0.38 req/sec', 0.29192602223560987, 33.16586884089879, 1577.8870582580566, 135.0392551272321, 68.26064474217803],
    ['throughput', 0.3754487726583897, 37.410671257972716, 7107.181090116501, 126.31711100645593, 89.24417326089923],
  ]),
  ...runs({
    model: 'llama-4-scout-17b-16e-instruct', instanceType: 'trn1.32xlarge', chip: 'trn1', sdk: '2.24.0', tensorParallelDegree: 32, batchSize: 8,
    sequenceLength: 4096, maxConcurrency: 128, commit: '9529cca5', date: '2025-09-26',
    path: 'benchmark/vllm/single-instance/llama4-Scout/vllm-results.csv', run: '2025-09-24-16-07-17',
    notes: 'single-instance/README.md: "configurations that use a tensor parallel size of 32 require a trn1.32xlarge instance"',
  }, [
    ['synchronous', 0.15871279079818684, 6.300351017399838, 1137.3831221931857, 28.36419891985255, 28.885727925270004],
    ['asynchronous@0.49 req/sec', 0.4386585866374671, 12.734559985307547, 1151.9180948917683, 60.58351510522134, 83.46323184982883],
    ['throughput', 0.4871726215357347, 17.27207928690417, 3705.332344975965, 66.87468263892256, 98.96323839541425],
  ]),
  ...runs({
    model: 'llama-4-scout-17b-16e-instruct', instanceType: 'trn2.48xlarge', chip: 'trn2', sdk: '2.26.0', tensorParallelDegree: 64, batchSize: 32,
    sequenceLength: 4096, maxConcurrency: 128, commit: '6e2d775a', date: '2025-10-09',
    path: 'benchmark/vllm/single-instance/llama4-Scout-trn2/vllm-results.csv', run: '2025-10-08-19-09-56',
  }, [
    ['synchronous', 0.14624567302790123, 6.837393353967106, 575.0301304985495, 32.764181199640326, 27.950128921626536],
    ['asynchronous@1.14 req/sec', 0.9518388789056491, 22.397278904914856, 595.0065893786294, 108.01311540098757, 191.9825024507019],
    ['throughput', 1.138844859681237, 25.198448150298173, 4045.233894796932, 106.09772081213387, 226.2951727060717],
  ]),
  ...runs({
    model: 'llama-4-maverick-17b-128e-instruct', instanceType: 'trn2.48xlarge', chip: 'trn2', sdk: '2.26.0', tensorParallelDegree: 64, batchSize: 8,
    sequenceLength: 4096, maxConcurrency: 128, commit: '6e2d775a', date: '2025-10-09',
    path: 'benchmark/vllm/single-instance/llama4-Maverick-trn2/vllm-results.csv', run: '2025-10-09-06-13-32',
  }, [
    ['synchronous', 0.17384422877293448, 5.751895534992218, 1713.8232111930847, 16.94053329867967, 41.435771928028934],
    ['asynchronous@0.40 req/sec', 0.36186532578345104, 14.18413752033597, 1807.9037382489157, 51.82830781503374, 86.64951384295635],
    ['throughput', 0.3964185638368351, 16.800986898706313, 3308.630344715524, 56.548389701004304, 93.58851881560686],
  ]),
  ...runs({
    model: 'qwen3-235b-a22b-instruct-2507', instanceType: 'trn2.48xlarge', chip: 'trn2', sdk: '2.26.0', tensorParallelDegree: 64, batchSize: 4,
    sequenceLength: 4096, maxConcurrency: 128, commit: '6e2d775a', date: '2025-10-09',
    path: 'benchmark/vllm/single-instance/qwen3-235B-A22B-trn2/vllm-results.csv', run: '2025-10-09-07-53-08',
  }, [
    ['synchronous', 0.08680537874116302, 11.51964030265808, 4587.152791023254, 32.1826790250949, 18.697878580846513],
    ['asynchronous@0.13 req/sec', 0.11280613877454607, 17.986351893498348, 4691.194570981539, 65.62948353988479, 22.9083235665232],
    ['throughput', 0.12864197191089083, 21.449478117624917, 5823.598607381185, 69.42709868875669, 27.889579510281134],
  ]),
];
