import { engineTiming, findGenerativeProfile, planGenerativeReport, predictReplica, replicaCapacityRps, simulateGenerativeReplica } from '../../../lib/generative';
import { publicTargets } from '../../../lib/generative/traffic';
import type { GenerativeProfile, GenerativeTargets } from '../../../lib/generative';
import {
  empiricalLength, lengthQuantile, lengthsFromTraffic, lognormalLength, MAX_LOGNORMAL_P99_OVER_MEAN, sampleWorkload, workloadLengths,
} from '../../../lib/generative/lengths';
import { WORKLOAD_PRESETS } from '../../../lib/generative/workloads';
import { resolveGenerativeRequest } from '../../../lib/generative/planner';
import { Catalog } from '../../../lib/catalog/catalog';
import { countSummary } from '../../../lib/traffic/statistics';
import type { TrafficSummary } from '../../../lib/traffic/types';
import { random } from '../../../lib/planner/simulate';
import { inputError } from '../../support/input-error';

const LLAMA_8B = findGenerativeProfile('llama-3.1-8b-instruct') as GenerativeProfile;
const ROWS = LLAMA_8B.measurements.filter((m) => m.instanceType === 'inf2.48xlarge' && m.neuronSdkVersion === '2.24.0');

/** A RAG-like file: prompts of 2 to 4 chunks (mean near 2,400), outputs growing with them. */
function ragTraffic(): TrafficSummary {
  const next = random(17);
  const input = Float64Array.from({ length: 4000 }, () => 200 + 700 * (2 + Math.floor(next() * 3)) + Math.floor(next() * 300));
  const output = input.map((i) => Math.round(i / 20 + next() * 100));
  return {
    source: 'rag.csv (csv, 4,000 requests)', file: 'rag.csv', format: 'csv', requests: 4000, skipped: { failed: 0, withoutCounts: 0 },
    input: countSummary(input), output: countSummary(output), total: countSummary(input.map((v, i) => v + output[i])), rankCorrelation: 0.9,
  };
}

describe('lengths from the user\'s own traffic', () => {
  test('GIVEN a file\'s distribution WHEN drawn THEN its mean and p99 come back, correlated as the file\'s are', () => {
    const lengths = lengthsFromTraffic(ragTraffic());
    expect(lengths.input).toMatchObject({ spread: 'empirical', source: 'rag.csv (csv, 4,000 requests)' });
    expect(lengths.correlation).toBeCloseTo(2 * Math.sin((Math.PI * 0.9) / 6), 3);
    const draws = sampleWorkload(lengths, 20_000, 3);
    const inputs = Float64Array.from(draws.map((d) => d.input)).sort();
    const mean = inputs.reduce((a, b) => a + b, 0) / inputs.length;
    expect(Math.abs(mean / lengths.input.mean - 1)).toBeLessThan(0.02);
    expect(Math.abs(inputs[Math.ceil(0.99 * inputs.length) - 1] / lengths.input.p99 - 1)).toBeLessThan(0.05);
    expect(lengthQuantile(lengths.input, 0.99)).toBe(lengths.input.p99);
    // Long prompts come with long answers.
    const long = draws.filter((d) => d.input > lengths.input.mean);
    const short = draws.filter((d) => d.input <= lengths.input.mean);
    expect(long.reduce((a, d) => a + d.output, 0) / long.length).toBeGreaterThan(1.2 * (short.reduce((a, d) => a + d.output, 0) / short.length));
  });

  test('GIVEN a p99 past 14.97 x the mean WHEN planned THEN it is refused with the fix, not quietly changed', () => {
    expect(MAX_LOGNORMAL_P99_OVER_MEAN).toBeCloseTo(14.97, 2);
    expect(() => lognormalLength(100, 10000, 'stated', 'x')).toThrow('no lognormal has a p99 above 14.97 x its mean');
    const targets: GenerativeTargets = { requestsPerSecond: 1, inputTokens: { mean: 100, p99: 10000 }, outputTokens: { mean: 100 }, ttftP99Ms: 3000, tpotP99Ms: 60 };
    expect(inputError(() => planGenerativeReport(LLAMA_8B, targets, { region: 'us-east-1', hosting: 'ec2' })).problems).toEqual([
      'inputTokensP99=10000 is 100 x the mean (100); no lognormal holds a p99 above 14.97 x its mean (1496 here), so lengths that spread ' +
        'cannot be planned from a mean and a p99: give the lengths whole (plan --lengths-from FILE: a log or benchmark export of your requests, ' +
        'planned as its own distribution), or a p99 of at most 1496',
    ]);
  });

  test('GIVEN the code preset WHEN lengths have no p99 THEN they take its trace\'s spread and name it', () => {
    const code = workloadLengths({ inputTokens: { mean: 2000 }, outputTokens: { mean: 28 }, workload: 'code' });
    expect(code.output.p99).toBe(Math.ceil(28 * 9.03));
    expect(code.input.source).toContain(WORKLOAD_PRESETS.code.trace);
    expect(workloadLengths({ inputTokens: { mean: 2000 }, outputTokens: { mean: 28 } }).input.source).toContain('AzureLLMInferenceTrace_conv.csv');
  });

  test('GIVEN a file\'s lengths WHEN planned THEN the request names the file, max_model_len covers its p99 of prompt + output, and a context too short is cut and said', () => {
    const traffic = ragTraffic();
    const lengths = lengthsFromTraffic(traffic);
    const targets: GenerativeTargets = {
      requestsPerSecond: 0.5, inputTokens: { mean: lengths.input.mean, p99: lengths.input.p99 }, outputTokens: { mean: lengths.output.mean, p99: lengths.output.p99 },
      lengths, ttftP99Ms: 5000, tpotP99Ms: 60,
    };
    const options = { region: 'us-east-1', hosting: 'ec2' } as const;
    expect(resolveGenerativeRequest(LLAMA_8B, targets, options, Catalog.builtIn()).maxModelLength).toBe(traffic.total?.p99);
    const small: GenerativeProfile = { ...LLAMA_8B, model: { ...LLAMA_8B.model, maxContextTokens: 3000 } };
    const request = resolveGenerativeRequest(small, targets, options, Catalog.builtIn());
    expect(request.lengths.input.source).toBe('rag.csv (csv, 4,000 requests)');
    expect(request.maxModelLength).toBe(3000);
    expect(traffic.total?.p99).toBeGreaterThan(3000);
    // Every plan's warnings carry the request's notes.
    expect(request.notes).toContainEqual(expect.stringContaining(`max_model_len is cut to llama-3.1-8b-instruct's context of 3000 tokens: the traffic's p99 of prompt plus output is ${traffic.total?.p99} tokens`));
    // The plan's targets carry the means and p99s; the distributions travel once, in generative.lengths.
    expect(publicTargets(request.targets)).not.toHaveProperty('lengths');
    expect(request.targets.lengths).toBe(lengths);
  });

  test('GIVEN a file with a p99 no lognormal holds WHEN its lengths are made THEN they are planned as stated, from the table', () => {
    const heavy = countSummary(Float64Array.from({ length: 1000 }, (_, i) => (i < 985 ? 10 : 20000)));
    const d = empiricalLength(heavy, 'heavy.csv');
    expect(d.p99 / d.mean).toBeGreaterThan(MAX_LOGNORMAL_P99_OVER_MEAN);
    expect(lengthQuantile(d, 0.99)).toBe(20000);
  });
});

describe('bursty arrivals in the continuous-batching model', () => {
  const timing = engineTiming(ROWS, 16);
  const base: GenerativeTargets = { requestsPerSecond: 1, inputTokens: { mean: 512, p99: 1536 }, outputTokens: { mean: 128, p99: 384 }, ttftP99Ms: 3000, tpotP99Ms: 60 };

  test('GIVEN arrivals of SCV 1 WHEN predicted and replayed THEN they are Poisson\'s exactly', () => {
    const poisson = { ...base, arrivals: { scv: 1, source: 'measured' } };
    expect(predictReplica(timing, poisson, 0.4)).toEqual(predictReplica(timing, base, 0.4));
    expect(simulateGenerativeReplica({ timing, targets: poisson, requestsPerSecond: 0.4, requests: 2000 }))
      .toEqual(simulateGenerativeReplica({ timing, targets: base, requestsPerSecond: 0.4, requests: 2000 }));
  });

  test('GIVEN bursty arrivals WHEN a replica is sized THEN it holds less than the same lengths arriving as Poisson, more so the burstier', () => {
    // At one rate every p99 grows with the SCV, so the largest rate that keeps them within target falls.
    const at = (scv: number) => predictReplica(timing, { ...base, arrivals: { scv, source: 'gamma' } }, 0.4);
    const [one, two, four] = [at(1), at(2), at(4)];
    expect(two.ttftP99Ms).toBeGreaterThan(one.ttftP99Ms);
    expect(four.ttftP99Ms).toBeGreaterThan(two.ttftP99Ms);
    expect(four.tpotP99Ms).toBeGreaterThan(one.tpotP99Ms);
    const small = engineTiming(ROWS, 4);
    expect(replicaCapacityRps(small, { ...base, arrivals: { scv: 4, source: 'gamma' } })).toBeLessThan(replicaCapacityRps(small, base));
  });

  test('GIVEN bursty arrivals WHEN replayed at the rate a plan claims THEN the replay is burstier than Poisson', () => {
    const rate = 0.4;
    const bursty = simulateGenerativeReplica({ timing, targets: { ...base, arrivals: { scv: 4, source: 'gamma' } }, requestsPerSecond: rate, requests: 3000 });
    const poisson = simulateGenerativeReplica({ timing, targets: base, requestsPerSecond: rate, requests: 3000 });
    expect(bursty.ttftP99Ms).toBeGreaterThan(poisson.ttftP99Ms);
  });
});
