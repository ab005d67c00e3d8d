/**
 * Bad input of issue 37, through the CLI in-process (`runCli`, no process per case): each case is refused (exit 2) or
 * has no plan (exit 1) with a message that names the field, the value and the fix, where it used to plan or write
 * silently. Files the cases read (price files, profiles, proof reports) are written once into a temporary folder.
 */
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { runCli } from '../../bin/cli';
import { generativeCalibrationRecord, type GenerativePlanBasis } from '../../lib/bench/token-calibration';
import { findGenerativeProfile, VLLM_DLC_PINS } from '../../lib/generative';
import type { GenerativePlan } from '../../lib/generative';
import { findProfile } from '../../lib/profiles';
import { tempDir } from '../support/temp-dir';

async function run(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const dir = tempDir('input-refusals-', 'all');
/** `name` in the temporary folder, written with `json` when given. */
const file = (name: string, json?: unknown): string => {
  const path = join(dir(), name);
  if (json !== undefined) writeFileSync(path, JSON.stringify(json));
  return path;
};

const LLAMA = ['plan', '--model', 'llama-3.1-8b-instruct', '--throughput', '2', '--input-tokens', '1024', '--output-tokens', '256',
  '--ttft-p99', '2000', '--tpot-p99', '60', '--region', 'us-east-1', '--hosting', 'ec2'];
const T5 = ['plan', '--model', 't5-3b', '--throughput', '1', '--input-tokens', '256', '--output-tokens', '64', '--fixed-lengths',
  '--ttft-p99', '2000', '--tpot-p99', '100', '--region', 'us-east-1', '--hosting', 'ec2'];
const BERT = ['plan', '--model', 'bert-base-uncased', '--throughput', '100', '--p99', '50', '--region', 'us-east-1', '--hosting', 'ec2'];
const LLAMA_70B = ['plan', '--model', 'llama-3.3-70b-instruct', '--throughput', '0.5', '--input-tokens', '1024', '--output-tokens', '256',
  '--ttft-p99', '5000', '--tpot-p99', '100', '--region', 'us-east-1', '--hosting', 'ec2', '--instance-types', 'trn3.48xlarge'];

/** A Trn3 of `chips` chips, priced in us-east-1. */
const trn3 = (chips: number, facts: Record<string, unknown> = {}) => ({
  instances: [{ name: 'trn3.48xlarge', chips, coresPerChip: 8, logicalNeuronCoreConfig: 1, coreVersion: 'v4', deviceMemoryPerChipGiB: 144, vcpus: 192, memoryGiB: 2048, ...facts }],
  prices: [{ instanceType: 'trn3.48xlarge', region: 'us-east-1', hosting: 'ec2', usdPerHour: 50 }],
});

type Case = readonly [what: string, argv: () => readonly string[], code: number, message: RegExp];

async function expectRefusal(argv: readonly string[], code: number, message: RegExp): Promise<void> {
  const result = await run(argv);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code, stderr: expect.stringMatching(message) });
}

describe('plan refuses token flags that would change nothing or everything', () => {
  test.each<Case>([
    ['--accepted-tokens 100 (TPOT 0 ms)', () => [...LLAMA, '--accepted-tokens', '100'],
      2, /^error: acceptedTokens=100 is above 8: a speculative step keeps at most the draft's 7 proposals plus the target's own token; give 1 to 8/],
    ['--accepted-tokens 1e308', () => [...LLAMA, '--accepted-tokens', '1e308'], 2, /^error: acceptedTokens=1e\+308 is above 8/],
    ['--accepted-tokens 3 --no-speculative-decoding', () => [...LLAMA, '--accepted-tokens', '3', '--no-speculative-decoding'],
      2, /^error: acceptedTokens=3 would be ignored: speculative decoding is off \(speculativeDecoding: false, --no-speculative-decoding\); drop one of the two/],
    ['--accepted-tokens 3 --no-estimates', () => [...LLAMA, '--accepted-tokens', '3', '--no-estimates'],
      2, /^error: acceptedTokens=3 would be ignored: levers shape only the performance model's candidates, and estimates are off/],
    ['--prefix-hit-rate 0.5 --no-estimates', () => [...LLAMA, '--prefix-hit-rate', '0.5', '--no-estimates'], 2, /^error: prefixHitRate=0.5 would be ignored/],
    ['--accepted-tokens on a model without a draft', () => [...T5, '--accepted-tokens', '2'],
      2, /acceptedTokens=2 would be ignored: t5-3b has no cited draft model, so speculative decoding is never a candidate; leave it out/],
    ['--prefix-hit-rate on an encoder-decoder', () => [...T5, '--prefix-hit-rate', '0.5'],
      2, /prefixHitRate=0\.5 would be ignored: the performance model estimates decoder-only models and t5-3b is encoder-decoder/],
    ['--no-fp8 --no-speculative-decoding --no-estimates on a single-call model', () => [...BERT, '--no-fp8', '--no-speculative-decoding', '--no-estimates'],
      2, /^error: bert-base-uncased is a single-call model: --no-estimates, --no-speculative-decoding, --no-fp8 apply to generative models only\n$/],
  ])('GIVEN %s THEN it is refused, naming the flag and the fix', async (_what, argv, code, message) => {
    await expectRefusal(argv(), code, message);
  });
});

describe('plan names an end-to-end target that cannot be met', () => {
  test.each<Case>([
    ['--e2e-p99 100', () => [...LLAMA, '--e2e-p99', '100'], 2, /^error: e2eP99=100 is below ttftP99=2000: a request's end-to-end time includes its first token, so no request could meet both; give an end-to-end target above 2000 ms \(the TTFT and TPOT targets alone allow up to 45740 ms for 730 output tokens at p99: 2000 \+ 729 x 60\)/],
    ['--e2e-p99 1000 below --ttft-p99 2000', () => [...LLAMA, '--e2e-p99', '1000'], 2, /^error: e2eP99=1000 is below ttftP99=2000/],
    // Above the TTFT target but out of reach: the estimates used to blame TTFT ("misses TTFT p99 2000 ms even alone (385.92 ms)").
    ['--e2e-p99 2050, which no trn1.32xlarge candidate meets', () => [...LLAMA, '--e2e-p99', '2050', '--instance-types', 'trn1.32xlarge', '--no-speculative-decoding', '--no-fp8', '--fixed-lengths'],
      1, /and end-to-end p99 2050 ms in us-east-1:\n- trn1\.32xlarge tp=\d+ \(ESTIMATE\): estimated end-to-end p99 \d+ ms even alone; the end-to-end target is 2050 ms \(TTFT p99 [\d.]+ ms \+ 255 tokens at TPOT p99 [\d.]+ ms\): raise it, or shorten the outputs\n/],
  ])('GIVEN %s THEN the end-to-end target is named as the cause', async (_what, argv, code, message) => {
    await expectRefusal(argv(), code, message);
  });
});

describe('plan checks the instances and prices a price file defines as the built-in ones', () => {
  test.each<Case>([
    ['a 3-chip trn3.48xlarge (TP 24 over 3 chips)', () => [...LLAMA_70B, '--prices', file('trn3-3.json', trn3(3))],
      1, /trn3\.48xlarge tp=24 \(ESTIMATE\): 24 NeuronCores span 3 Neuron devices of trn3\.48xlarge, but on a Trainium instance a copy takes 1, 4, 8 or 16 Neuron devices/],
    ['a 6-chip trn3.48xlarge (TP 48 over 6 chips)', () => [...LLAMA_70B, '--prices', file('trn3-6.json', trn3(6))],
      1, /48 NeuronCores span 6 Neuron devices of trn3\.48xlarge/],
    ['coreVersion "v2" and logicalNeuronCoreConfig 3 on trn3', () => [...LLAMA_70B, '--prices', file('trn3-v2.json', trn3(16, { coreVersion: 'v2', logicalNeuronCoreConfig: 3 }))],
      2, /instances\[0\]\.coreVersion: expected "v4" for trn3 \(Trainium3\), got "v2"\n.*instances\[0\]\.logicalNeuronCoreConfig: expected 1 or 2 on trn3/],
    ['a built-in trn2.48xlarge redefined with 12 chips', () => [...LLAMA, '--prices', file('trn2-12.json', {
      instances: [{ name: 'trn2.48xlarge', chips: 12, coresPerChip: 4, logicalNeuronCoreConfig: 2, coreVersion: 'v3', deviceMemoryPerChipGiB: 96, vcpus: 192, memoryGiB: 2048 }],
      prices: [],
    })], 2, /instances\[0\]: "trn2\.48xlarge" is built in, and this entry changes its chips 12 \(built in: 16\); drop the entry .* or add "replacesBuiltIn": true/],
    ['usdPerHour 1e308 ($∞/h)', () => [...BERT, '--prices', file('huge.json', { prices: [{ instanceType: 'inf2.48xlarge', region: 'us-east-1', hosting: 'ec2', usdPerHour: 1e308 }] })],
      2, /prices\[0\]\.usdPerHour: expected USD per instance-hour of at most 1,000 .*, got 1e\+308/],
    ['a Capacity Block price for SageMaker', () => [...BERT, '--prices', file('cb.json', { prices: [{ instanceType: 'trn2.48xlarge', region: 'us-east-1', hosting: 'sagemaker', kind: 'capacity-block', usdPerHour: 30 }] })],
      2, /prices\[0\]\.kind: "capacity-block" is the rate of an EC2 Capacity Block for ML, which SageMaker hosting is not billed by/],
    ['--instance-types trn2.48xlarge outside us-east-2', () => [...LLAMA.slice(0, -4), '--region', 'us-west-2', '--hosting', 'ec2', '--instance-types', 'trn2.48xlarge'],
      1, /no on-demand ec2 price for trn2\.48xlarge in us-west-2; the catalog prices it for ec2 on-demand in us-east-2: plan there \(--region us-east-2\), or add the price with a price file \(`cdk-inferentia catalog refresh --regions us-west-2 --instance-types trn2\.48xlarge --out prices\.json`, then --prices prices\.json/],
    ['--instance-types trn2.48xlarge on SageMaker, which no region prices', () => [...LLAMA.slice(0, -4), '--region', 'us-east-2', '--hosting', 'sagemaker', '--instance-types', 'trn2.48xlarge'],
      1, /no on-demand sagemaker price for ml\.trn2\.48xlarge in us-east-2; the catalog prices it for sagemaker on-demand nowhere, only in us-east-2 \(ec2 on-demand\)/],
    ['--instance-types inf2.48xlarg', () => [...LLAMA, '--instance-types', 'inf2.48xlarg'], 2, /instance type 'inf2\.48xlarg' is not in the catalog; did you mean inf2\.48xlarge\?/],
    ['a price file dated 2026-13-45', () => [...BERT, '--prices', file('date.json', { asOf: '2026-13-45', prices: [] })],
      2, /asOf: expected a date the calendar has, such as 2026-11-22, got "2026-13-45"/],
  ])('GIVEN %s THEN it is refused or rejected with the rule and the fix', async (_what, argv, code, message) => {
    await expectRefusal(argv(), code, message);
  });
});

describe('plan names profile rows no candidate would use', () => {
  const llama = () => JSON.parse(JSON.stringify(findGenerativeProfile('llama-3.1-8b-instruct'))) as { measurements: Record<string, unknown>[] };
  const bert = () => JSON.parse(JSON.stringify(findProfile('bert-base-uncased'))) as { measurements: Record<string, unknown>[] };
  const withRow = (profile: { measurements: Record<string, unknown>[] }, change: Record<string, unknown>) => ({ ...profile, measurements: [{ ...profile.measurements[0], ...change }] });
  const GENERATIVE = LLAMA.slice(3);

  test.each<Case>([
    ['a generative row on inf2.48xlarg', () => ['plan', '--profile', file('g-typo.json', withRow(llama(), { instanceType: 'inf2.48xlarg' })), ...GENERATIVE],
      2, /measurements\[0\]\.instanceType: "inf2\.48xlarg" is not an EC2 instance type name; did you mean "inf2\.48xlarge"\?/],
    ['a generative row on ml.inf2.48xlarge', () => ['plan', '--profile', file('g-ml.json', withRow(llama(), { instanceType: 'ml.inf2.48xlarge' })), ...GENERATIVE],
      2, /measurements\[0\]\.instanceType: "ml\.inf2\.48xlarge" is a SageMaker name; write the EC2 name "inf2\.48xlarge"/],
    ['a generative row on trn3.48xlarge, a chip no catalog instance has without a price file', () => ['plan', '--profile', file('g-trn3.json', withRow(llama(), { instanceType: 'trn3.48xlarge' })), ...GENERATIVE],
      2, /llama-3\.1-8b-instruct: measurements\[0\]\.instanceType "trn3\.48xlarge": no instance of the catalog has its chip \(Trainium3\), so no candidate would use the row; define the type under "instances" in a price file/],
    ['a single-call row on ml.inf2.xlarge', () => ['plan', '--profile', file('s-ml.json', withRow(bert(), { instanceType: 'ml.inf2.xlarge', coreVersion: 'v2' })), ...BERT.slice(3)],
      2, /measurements\[0\]\.instanceType: "ml\.inf2\.xlarge" is a SageMaker name/],
    ['a single-call NeuronCore-v2 row on inf1.xlarge', () => ['plan', '--profile', file('s-v1.json', withRow(bert(), { instanceType: 'inf1.xlarge', coreVersion: 'v2' })), ...BERT.slice(3)],
      2, /measurements\[0\]\.coreVersion: expected "v1" \(Inferentia\) for instanceType inf1\.xlarge, got "v2"/],
    ['a single-call row on p4d.24xlarge', () => ['plan', '--profile', file('s-gpu.json', withRow(bert(), { instanceType: 'p4d.24xlarge' })), ...BERT.slice(3)],
      2, /measurements\[0\]\.instanceType: "p4d\.24xlarge" is not a Neuron instance/],
  ])('GIVEN %s THEN it is refused, named', async (_what, argv, code, message) => {
    await expectRefusal(argv(), code, message);
  });
});

describe('calibrate checks a proof in tokens before writing, and what it writes plans', () => {
  /** The configuration of the README's Llama plan on EC2 (an ESTIMATE: no row measures it at its length). */
  const BASIS: GenerativePlanBasis = {
    profileId: 'llama-3.1-8b-instruct', instanceType: 'trn1.32xlarge', instanceCount: 1, replicasPerInstance: 4, tensorParallelDegree: 8,
    maxConcurrentSequences: 16, maxModelLength: 4407, inputTokens: 1024, outputTokens: 256, neuronSdkVersion: VLLM_DLC_PINS.inf2Trn1.neuronSdkVersion,
  };
  const percentiles = (p50: number, p99: number) => ({ p50, p90: (p50 + p99) / 2, p99, max: p99 * 1.1 });
  const MEASURED = { requests: 600, errors: 0, offeredRps: 2.02, achievedRps: 2, ttftMs: percentiles(300, 900), tpotMs: percentiles(20, 30), e2eMs: percentiles(6000, 12000) };
  const report = (name: string, basis: Partial<GenerativePlanBasis> = {}, measured: Partial<typeof MEASURED> = {}, measuredAt = '2026-11-27T03:00:00.000Z') =>
    file(`${name}.json`, { schemaVersion: 1, kind: 'tokens', capacity: { calibration: generativeCalibrationRecord({ ...BASIS, ...basis }, { ...MEASURED, ...measured }, measuredAt, true) } });
  const calibrate = (name: string, ...more: string[]) => ['calibrate', '--report', name, '--out', file('out.json'), ...more];
  const AT = 'capacity\\.calibration\\.';

  test.each<Case>([
    ['TTFT p50 above p99', () => calibrate(report('ttft', {}, { ttftMs: { p50: 900, p90: 600, p99: 300, max: 330 } })), 2, new RegExp(`${AT}measured\\.ttftMs: expected p50 <= p90 <= p99 <= max, got \\{"p50":900`)],
    ['TPOT 0', () => calibrate(report('tpot', {}, { tpotMs: percentiles(0, 0) })), 2, new RegExp(`${AT}measured\\.tpotMs\\.p50: expected a positive number of milliseconds, got 0`)],
    ['a p4d row', () => calibrate(report('p4d', { instanceType: 'p4d.24xlarge' })), 2, new RegExp(`${AT}plan\\.instanceType: "p4d\\.24xlarge" is not a Neuron instance`)],
    ['SDK "latest"', () => calibrate(report('latest', { neuronSdkVersion: 'latest' })), 2, new RegExp(`${AT}plan\\.neuronSdkVersion: expected a Neuron SDK release such as "2\\.28\\.0" \\(the serving image's\\), got "latest"`)],
    ['600 requests at 0 requests/s', () => calibrate(report('zero', {}, { offeredRps: 0, achievedRps: 0 })), 2, new RegExp(`${AT}measured\\.offeredRps: 600 requests measured at an offered 0 requests/s`)],
    ['500 achieved of 2.02 offered', () => calibrate(report('achieved', {}, { achievedRps: 500 })), 2, new RegExp(`${AT}measured\\.achievedRps: 500 requests/s achieved of 2\\.02 offered`)],
    ['more errors than requests (it read "-100 successful requests")', () => calibrate(report('errors', {}, { errors: 700 })), 2, new RegExp(`^error: [^\\n]*${AT}measured\\.errors: 700 is more than the 600 requests measured[^\\n]*\\n$`)],
    ['a measuredAt that is no time', () => calibrate(report('when', {}, {}, 'yesterday')), 2, new RegExp(`${AT}measuredAt: expected an ISO 8601 time`)],
    ['a sequence longer than the model\'s context', () => calibrate(report('long', { maxModelLength: 200_000 })), 2, /the row it measured would not read back: the calibrated profile: measurements\[\d+\]: its sequence length exceeds model\.maxContextTokens \(131072\)/],
    ['a single-call --profile', () => calibrate(report('single'), '--profile', file('bert.json', findProfile('bert-base-uncased'))),
      2, /^error: --profile .*bert\.json: a single-call profile \(bert-base-uncased\), and this report is a proof in tokens of the generative model llama-3\.1-8b-instruct/],
  ])('GIVEN a report with %s THEN nothing is written and the field is named', async (_what, argv, code, message) => {
    await expectRefusal(argv(), code, message);
  });

  test('GIVEN the proof of an ESTIMATE plan whose report says SDK "unknown" WHEN calibrated THEN the row takes the pinned image\'s SDK, says so, and plan --profile reads it', async () => {
    const written = await run(calibrate(report('unknown', { neuronSdkVersion: 'unknown' })));
    expect(written).toMatchObject({ code: 0, stderr: expect.stringMatching(/^warning: the report does not say which Neuron SDK served .* the row says 2\.28\.0, the SDK of the image pinned for trn1\.32xlarge/) });
    const profile = JSON.parse(readFileSync(file('out.json'), 'utf8')) as { measurements: { neuronSdkVersion: string }[] };
    expect(profile.measurements.at(-1)).toMatchObject({ instanceType: 'trn1.32xlarge', neuronSdkVersion: '2.28.0', ttftP99Ms: 900, tpotP50Ms: 20 });
    // The loop the README documents: plan -> proof -> calibrate -> plan. Measured rows at the mean lengths, to keep it quick.
    const planned = await run(['plan', '--profile', file('out.json'), ...LLAMA.slice(3), '--instance-types', 'trn1.32xlarge', '--no-estimates', '--fixed-lengths', '--json']);
    expect(planned.code).toBe(0);
    const { chosen, alternatives } = JSON.parse(planned.stdout) as { chosen: GenerativePlan; alternatives: GenerativePlan[] };
    const fromProof = [chosen, ...alternatives].filter((p) => p.generative.measurement.some((m) => m.source.includes('measured by the proof in tokens')));
    expect(fromProof.map((p) => `${p.instanceType} tp=${p.generative.tensorParallelDegree} seqs=${p.generative.maxConcurrentSequences}`)).toEqual(['trn1.32xlarge tp=8 seqs=16']);
  });
});
