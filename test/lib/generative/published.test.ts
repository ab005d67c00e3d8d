import { Catalog, neuronCores } from '../../../lib/catalog';
import { findGenerativeProfile } from '../../../lib/generative';
import {
  PUBLISHED_MODELS,
  PUBLISHED_ROWS,
  SERVING_STACKS,
  plannerUsable,
  publishedCounts,
  publishedSummary,
  toMeasurement,
} from '../../../lib/generative/published';
import type { LatencyStatistics, PublishedModel, PublishedRow } from '../../../lib/generative/published';
import { chipOf } from '../../../lib/planner/planner';

const catalog = Catalog.builtIn();

/**
 * Instance types rows name that the catalog does not build in: trn2.3xlarge, one Trainium2 chip, 4 logical cores at
 * LNC=2 (https://aws.amazon.com/ec2/instance-types/trn2/).
 */
const OUTSIDE_CATALOG: Readonly<Record<string, { family: string; cores: number }>> = { 'trn2.3xlarge': { family: 'trn2', cores: 4 } };

function where(r: PublishedRow): string {
  return `${r.model} on ${r.instanceType} (${r.stack} ${r.neuronSdkVersion}, ${r.source.commit ?? r.source.url} ${r.source.locator})`;
}

function statistics(r: PublishedRow): [string, LatencyStatistics][] {
  return Object.entries({ ttft: r.ttft, tpot: r.tpot, e2e: r.e2e, latencyPerToken: r.latencyPerToken, derivedTpot: r.derived?.tpot, derivedTtft: r.derived?.ttft })
    .filter((e): e is [string, LatencyStatistics] => e[1] !== undefined);
}

/** What makes two rows the same measurement: everything but the figures and the source. */
function identity(r: PublishedRow): string {
  return JSON.stringify([r.model, r.instanceType, r.stack, r.neuronSdkVersion, r.tensorParallelDegree, r.dataParallel ?? 1, r.batchSize,
    r.load, r.concurrency, r.requestRate, r.inputTokens, r.outputTokens, r.sequenceLength, r.weightDtype, r.kvDtype, r.levers, r.run]);
}

/** Parameters of a dense decoder from its geometry: embeddings (untied), attention, SwiGLU or 2-matrix feed-forward. */
function denseParameters(m: PublishedModel, feedForwardMatrices: number, tied: boolean): number {
  const attention = m.hiddenSize * m.headDim * (2 * m.attentionHeads + 2 * m.kvHeads);
  const feedForward = feedForwardMatrices * m.hiddenSize * m.intermediateSize;
  return (m.layers * (attention + feedForward) + (tied ? 1 : 2) * m.vocabulary * m.hiddenSize) / 1e9;
}

describe('The published Neuron LLM rows', () => {
  test('GIVEN every row THEN its model is described, its figures are positive and finite, and no p50 exceeds its p90 or p99', () => {
    const problems: string[] = [];
    for (const r of PUBLISHED_ROWS) {
      if (!PUBLISHED_MODELS[r.model]) {
        problems.push(`${where(r)}: no model ${r.model}`);
      }
      const numbers = [r.tensorParallelDegree, r.dataParallel ?? 1, r.batchSize, r.inputTokens, r.outputTokens, r.sequenceLength ?? 1,
        r.concurrency ?? 1, r.requestRate ?? 1, r.outputTokensPerSecond ?? 1, r.totalTokensPerSecond ?? 1, r.requestsPerSecond ?? 1];
      const stats = statistics(r);
      if (numbers.some((n) => !(Number.isFinite(n) && n > 0))) {
        problems.push(`${where(r)}: a count or rate is not positive`);
      }
      for (const [name, s] of stats) {
        const values = [s.p50, s.p90, s.p99, s.mean].filter((v): v is number => v !== undefined);
        if (values.length === 0 || values.some((v) => !(Number.isFinite(v) && v > 0))) {
          problems.push(`${where(r)}: ${name} has no positive figure`);
        }
        if ((s.p50 ?? 0) > (s.p90 ?? Infinity) || (s.p90 ?? 0) > (s.p99 ?? Infinity) || (s.p50 ?? 0) > (s.p99 ?? Infinity)) {
          problems.push(`${where(r)}: ${name} percentiles out of order`);
        }
      }
      if (stats.length === 0 && r.outputTokensPerSecond === undefined && r.totalTokensPerSecond === undefined) {
        problems.push(`${where(r)}: no figure at all`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('GIVEN every row THEN its replicas fit the instance\'s NeuronCores, and its chip and stack are the instance\'s', () => {
    const problems: string[] = [];
    for (const r of PUBLISHED_ROWS) {
      const found = catalog.instance(r.instanceType);
      const spec = found ? { family: found.family, cores: neuronCores(found) } : OUTSIDE_CATALOG[r.instanceType];
      if (!spec) {
        problems.push(`${where(r)}: ${r.instanceType} is not in the catalog`);
        continue;
      }
      if (r.tensorParallelDegree * (r.dataParallel ?? 1) > spec.cores) {
        problems.push(`${where(r)}: TP ${r.tensorParallelDegree} x DP ${r.dataParallel ?? 1} exceeds ${spec.cores} cores`);
      }
      if (chipOf(spec.family) !== r.chip) {
        problems.push(`${where(r)}: chip ${r.chip}, instance family ${spec.family}`);
      }
      const stackChips: Partial<Record<PublishedRow['stack'], readonly string[]>> = {
        'transformers-neuronx': ['inf2', 'trn1'],
        'vllm-neuron-plugin': ['trn2', 'trn3'],
      };
      if (!SERVING_STACKS.includes(r.stack) || (stackChips[r.stack] && !stackChips[r.stack]?.includes(r.chip))) {
        problems.push(`${where(r)}: ${r.stack} does not run on ${r.chip}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('GIVEN every row THEN it describes its load consistently and stores derived figures apart from the stated ones', () => {
    const problems: string[] = [];
    for (const r of PUBLISHED_ROWS) {
      if ((r.concurrency !== undefined) !== (r.load === 'concurrency') || (r.requestRate !== undefined) !== (r.load === 'rate')) {
        problems.push(`${where(r)}: load ${r.load} with concurrency ${r.concurrency} and rate ${r.requestRate}`);
      }
      if (r.derived && (r.derived.how.trim().length < 10 || (r.derived.tpot && r.tpot) || (r.derived.ttft && r.ttft))) {
        problems.push(`${where(r)}: a derived figure without its arithmetic, or next to the same figure read off the source`);
      }
      if (r.latencyPerToken && r.tpot) {
        problems.push(`${where(r)}: both a per-token latency over all tokens and a TPOT`);
      }
      if (r.ttftCovers === 'batch' && r.load !== 'static-batch') {
        problems.push(`${where(r)}: a whole-batch TTFT outside static batching`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('GIVEN every row THEN no other row is the same measurement', () => {
    const seen = new Map<string, PublishedRow>();
    const duplicates = PUBLISHED_ROWS.flatMap((r) => {
      const earlier = seen.get(identity(r));
      seen.set(identity(r), r);
      return earlier ? [`${where(r)} repeats ${where(earlier)}`] : [];
    });
    expect(duplicates).toEqual([]);
  });

  test('GIVEN every row THEN its source names a repository commit and path or a URL, a date, and is UNVERIFIED unless AWS wrote it', () => {
    const awsRepositories = ['aws-neuron/', 'vllm-project/vllm-neuron', 'aws-samples/', 'awslabs/'];
    const problems = PUBLISHED_ROWS.flatMap((r) => {
      const s = r.source;
      const cited = s.repository !== undefined ? /^[0-9a-f]{8,40}$/.test(s.commit ?? '') && (s.path ?? '').length > 0 : /^https:\/\//.test(s.url ?? '');
      const aws = s.repository !== undefined ? awsRepositories.some((a) => s.repository?.startsWith(a)) : /(amazon\.com|amazonaws\.com|awsdocs-neuron)/.test(s.url ?? '');
      return [
        ...(cited && /^\d{4}-\d{2}-\d{2}$/.test(s.date) && s.locator.length > 5 ? [] : [`${where(r)}: incomplete citation`]),
        ...(aws || r.unverified === true ? [] : [`${where(r)}: third-party source not marked unverified`]),
      ];
    });
    expect(problems).toEqual([]);
  });
});

describe('The published models', () => {
  test('GIVEN every model THEN its config.json is cited and its heads divide evenly', () => {
    for (const m of Object.values(PUBLISHED_MODELS)) {
      expect(m.source).toContain(`https://huggingface.co/${m.huggingFaceId}/blob/`);
      expect(m.source).toContain('config.json');
      expect(m.attentionHeads % m.kvHeads).toBe(0);
      expect(m.moe === undefined || m.moe.activeExperts <= m.moe.experts).toBe(true);
    }
  });

  test('GIVEN a dense Llama-layout model THEN its parameter count is its geometry\'s, within 2 %', () => {
    const llamaLayout = Object.values(PUBLISHED_MODELS).filter((m) => m.architecture === 'decoder-only' && !m.moe && !m.id.startsWith('opt-'));
    expect(llamaLayout.length).toBeGreaterThan(5);
    for (const m of llamaLayout) {
      expect({ id: m.id, ratio: Math.round((denseParameters(m, 3, m.tiedEmbeddings === true) / m.parametersBillions) * 50) / 50 }).toEqual({ id: m.id, ratio: 1 });
    }
  });

  test('GIVEN an OPT model THEN its parameter count is its geometry\'s (biases and positions aside), within 2 %', () => {
    for (const m of Object.values(PUBLISHED_MODELS).filter((x) => x.id.startsWith('opt-'))) {
      expect(Math.abs(denseParameters(m, 2, true) / m.parametersBillions - 1)).toBeLessThan(0.02);
    }
  });
});

describe('The built-in generative profiles plan from the published rows', () => {
  test.each([
    ['llama-3.1-8b-instruct', 10],
    ['llama-3.3-70b-instruct', 4],
    ['qwen3-32b', 2],
    ['t5-3b', 4],
    ['google/flan-t5-xl', 4],
  ])('GIVEN %s THEN its %d measurements are published rows, each citing its source', (id, count) => {
    const profile = findGenerativeProfile(id);
    expect(profile?.measurements).toHaveLength(count);
    for (const m of profile?.measurements ?? []) {
      const row = PUBLISHED_ROWS.find((r) => plannerUsable(r) && toMeasurement(r).source === m.source);
      expect(row).toBeDefined();
      expect(m.source).toMatch(/ @ [0-9a-f]{8} /);
    }
  });

  test('GIVEN a row whose TPOT is derived from end-to-end latency THEN the planner row takes it, and the source says how', () => {
    const m = findGenerativeProfile('qwen3-32b')?.measurements[0];
    expect(m).toMatchObject({ tpotP50Ms: 10.77, tpotP99Ms: 10.77, ttftP50Ms: 48.3 });
    expect(m?.source).toContain('TPOT derived (end-to-end p99 - TTFT p99) / (output tokens - 1)');
  });

  test('GIVEN an encoder-decoder row THEN its per-token latency over input and output stays marked so', () => {
    expect(findGenerativeProfile('t5-3b')?.measurements[0]).toMatchObject({ tpotP50Ms: 8.97, latencyCounts: 'input-and-output', throughputCounts: 'input-and-output' });
  });

  test('GIVEN a row measured with speculation THEN it is refused as a planner measurement, saying why', () => {
    const eagle = PUBLISHED_ROWS.find((r) => r.levers.speculation?.method === 'eagle3') as PublishedRow;
    expect(plannerUsable(eagle)).toBe(false);
    expect(() => toMeasurement(eagle)).toThrow(/cannot be a planner measurement: it ran speculative decoding/);
  });
});

describe('The published rows\' summary', () => {
  test('GIVEN the rows THEN one line counts them by chip, stack and model', () => {
    const counts = publishedCounts();
    expect(counts.byModel.reduce((s, [, n]) => s + n, 0)).toBe(PUBLISHED_ROWS.length);
    expect(publishedSummary()).toMatch(new RegExp(`^${PUBLISHED_ROWS.length} published rows of ${counts.byModel.length} models \\(\\d chips, \\d serving stacks\\): by chip inf2 \\d+`));
  });
});
