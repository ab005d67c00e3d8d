/**
 * The SmokeBenchmark props of a generative plan resolved before any resource exists: the golden prompt, the short
 * streamed run, the thresholds in tokens and the capacity proof, each recording every problem it finds.
 */
import type { TokenPoolLimits } from '../../../lib/bench/token-pools';
import { generativePlanBasis, type GenerativePlanBasis } from '../../../lib/bench/token-calibration';
import { pinFor } from '../../../lib/generative/engine-image';
import { Duration, Token } from 'aws-cdk-lib';
import { STARTUP_ALLOWANCE_MS, REPORT_RESERVE_MS, STOP_GRACE_MS } from '../../../lib/smoke/budget';
import { MAX_FAN_OUT, DEFAULT_ACCOUNT_CONCURRENCY } from '../../../lib/smoke/capacity';
import type { GenerativePlan } from '../../../lib/generative/types';
import { isPoisson } from '../../../lib/traffic/arrivals';
import {
  STREAMS_PER_WORKER,
  tokenCapacityStageMs,
  tokenSmokeStageMs,
  tokenFanOut,
  type GoldenPrompt,
  type TokenApi,
  type TokenCapacityConfig,
  type TokenSmokeRun,
} from '../../../lib/bench/token-proof';
import type { CapacityProofOptions, SmokeBenchmarkProps, TokenProofOptions } from '../smoke-benchmark-props';
import { capacityGates, proofRate, DEFAULT_ERROR_RATE, DEFAULT_THROUGHPUT_SHARE } from './smoke-defaults';

/** Requests of the smoke gate's short streamed run. */
export const DEFAULT_TOKEN_SMOKE_REQUESTS = 20;
/** Streams the short run keeps in flight: low, so it proves latency, not capacity. */
export const DEFAULT_TOKEN_SMOKE_CONCURRENCY = 4;
/** The golden prompt's answer budget: a one-word answer and the end of turn fit. */
export const DEFAULT_GOLDEN_MAX_TOKENS = 16;

/**
 * The golden prompt used when none is given: a fact every instruct model of the catalog answers the same way with
 * greedy decoding, checked with a pattern so `Paris`, ` Paris.` and `Paris is the capital` all pass and a model
 * that lost its weights (random tokens) fails.
 */
export function defaultGoldenPrompt(api: TokenApi): GoldenPrompt {
  return {
    prompt: api === 'chat' ? 'What is the capital of France? Answer with one word.' : 'The capital of France is',
    maxTokens: DEFAULT_GOLDEN_MAX_TOKENS,
    expect: { kind: 'regex', pattern: '\\bParis\\b' },
  };
}

/** What the construct builds from the props of a generative plan. */
export interface ResolvedTokenProof {
  readonly api: TokenApi;
  readonly model: string;
  readonly golden: GoldenPrompt;
  readonly smoke: TokenSmokeRun;
  readonly capacity?: TokenCapacityConfig;
  /** The configuration deployed, for the report's calibration record. */
  readonly plan: GenerativePlanBasis;
  /** The Lambda timeout the gate needs. */
  readonly timeout: Duration;
  /** With instance pools, the TTFT and TPOT limits each pool's answers are held to. @default - no pools */
  readonly pools?: TokenPoolLimits[];
}

/** True when the plan is a {@link GenerativePlan}. */
export function isGenerativePlan(plan: SmokeBenchmarkProps['plan']): plan is GenerativePlan {
  return plan !== undefined && (plan as { kind?: unknown }).kind === 'generative';
}

/**
 * Resolves the proof in tokens of a generative plan.
 *
 * @param allowance the client side's share of TTFT (the Runtime API round trip or the load-balancer hop); TPOT is
 *   measured between tokens of one stream, which a fixed hop does not stretch.
 */
export function resolveTokenProof(
  props: SmokeBenchmarkProps,
  plan: GenerativePlan,
  allowance: Duration,
  maxTimeoutMs: number,
  problems: string[],
): ResolvedTokenProof | undefined {
  const count = problems.length;
  const options: TokenProofOptions | undefined = props.tokens;
  for (const [name, given] of [['request', props.request], ['expect', props.expect], ['load', props.load], ['thresholds', props.thresholds]] as const) {
    if (given !== undefined) {
      problems.push(
        `${name} is set but the plan is generative (${plan.profileId}): a proof in tokens sends the golden prompt ` +
          `of \`tokens.golden\` and judges TTFT/TPOT from the plan; move the settings to \`tokens\` and remove ${name}`,
      );
    }
  }
  if (options === undefined) {
    problems.push(
      `tokens is not set but the plan is generative (${plan.profileId}): give at least tokens.servedModelName, the ` +
        `name the engine serves (vLLM's --served-model-name), e.g. { servedModelName: '${plan.profileId}' }`,
    );
    return undefined;
  }
  if (Token.isUnresolved(options.servedModelName) || options.servedModelName.trim() === '') {
    problems.push(
      `tokens.servedModelName=${JSON.stringify(options.servedModelName)} must be the literal model name the engine ` +
        `serves (vLLM's --served-model-name), e.g. '${plan.profileId}'`,
    );
  }
  const api = options.api ?? 'chat';
  if (api !== 'chat' && api !== 'completions') {
    problems.push(`tokens.api=${JSON.stringify(api)} must be 'chat' (/v1/chat/completions) or 'completions' (/v1/completions)`);
  }
  const golden = resolveGolden(options, api, problems);

  const g = plan.generative;
  const inputTokens = Math.round(plan.targets.inputTokens.mean);
  const outputTokens = Math.round(plan.targets.outputTokens.mean);
  const timeoutMs = (options.requestTimeout ?? Duration.seconds(Math.max(30, Math.ceil((3 * g.predictedE2eP99Ms) / 1000)))).toMilliseconds();
  if (!(timeoutMs > 0)) {
    problems.push(`tokens.requestTimeout=${timeoutMs} ms must be positive, e.g. Duration.seconds(60)`);
  }
  const requests = options.requests ?? DEFAULT_TOKEN_SMOKE_REQUESTS;
  if (!Number.isInteger(requests) || requests < 1 || requests > 1000) {
    problems.push(`tokens.requests=${requests} must be a whole number from 1 to 1000, e.g. ${DEFAULT_TOKEN_SMOKE_REQUESTS}`);
  }
  const slots = g.maxConcurrentSequences * g.replicasPerInstance * plan.instanceCount;
  const concurrency = options.concurrency ?? Math.max(1, Math.min(DEFAULT_TOKEN_SMOKE_CONCURRENCY, slots));
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > slots) {
    problems.push(
      `tokens.concurrency=${concurrency} must be a whole number from 1 to ${slots}, the sequences the plan runs at once ` +
        `(${g.maxConcurrentSequences} per replica x ${g.replicasPerInstance} replicas x ${plan.instanceCount} instances)`,
    );
  }
  const share = props.throughputShare ?? DEFAULT_THROUGHPUT_SHARE;
  const ttftP99MaxMs = options.ttftP99Max?.toMilliseconds() ?? round2(plan.targets.ttftP99Ms + allowance.toMilliseconds());
  const tpotP99MaxMs = options.tpotP99Max?.toMilliseconds() ?? plan.targets.tpotP99Ms;
  for (const [name, value] of [['tokens.ttftP99Max', ttftP99MaxMs], ['tokens.tpotP99Max', tpotP99MaxMs]] as const) {
    if (!(value > 0)) {
      problems.push(`${name}=${value} ms must be positive, e.g. Duration.millis(${name.endsWith('ttftP99Max') ? 2000 : 60})`);
    }
  }
  // About `concurrency` streams in flight: the open-loop rate that keeps them, at the predicted e2e latency.
  const smokeRate = round2((Math.max(1, concurrency) * 1000) / g.predictedE2eP99Ms);
  const smokeTokens = round2(smokeRate * outputTokens);
  const smoke: TokenSmokeRun = {
    requests,
    concurrency,
    rateRps: smokeRate,
    inputTokens,
    outputTokens,
    timeoutMs,
    predicted: { ttftP99Ms: g.predictedTtftP99Ms, tpotP99Ms: g.predictedTpotP99Ms, e2eP99Ms: g.predictedE2eP99Ms, outputTokensPerSecond: smokeTokens },
    thresholds: { ttftP99MaxMs, tpotP99MaxMs, minOutputTokensPerSecond: round2(share * smokeTokens), maxErrorRate: DEFAULT_ERROR_RATE },
  };
  const capacity = props.capacityProof && resolveTokenCapacity(props.capacityProof, plan, smoke, problems);
  const smokeRunMs = tokenSmokeStageMs(smoke);
  const capacityMs = capacity !== undefined ? tokenCapacityStageMs(capacity) : 0;
  const requiredMs = STARTUP_ALLOWANCE_MS + smokeRunMs + STOP_GRACE_MS + REPORT_RESERVE_MS + capacityMs;
  let timeout = props.timeout ?? Duration.seconds(Math.max(120, Math.ceil(requiredMs / 1000) + 60));
  if (props.timeout === undefined && timeout.toMilliseconds() > maxTimeoutMs && requiredMs <= maxTimeoutMs) {
    timeout = Duration.millis(maxTimeoutMs);
  }
  // The short run's length follows from its concurrency: with a concurrency already refused above, a time computed
  // from a stand-in of one stream (a run many times longer) would be a second, misleading problem.
  const concurrencyValid = Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= slots;
  if (concurrencyValid && (timeout.toMilliseconds() > maxTimeoutMs || timeout.toMilliseconds() < requiredMs)) {
    problems.push(
      `the proof in tokens needs ${Math.ceil(requiredMs / 1000)} s (startup 15 s, golden prompt and the short run of ` +
        `${requests} requests at ${smokeRate} requests/s: ${Math.ceil(smokeRunMs / 1000)} s, report 7 s` +
        (capacity !== undefined ? `, capacity proof ${Math.ceil(capacityMs / 1000)} s` : '') +
        `) and the Lambda may run ${Math.round(timeout.toMilliseconds() / 1000)} s (at most ${maxTimeoutMs / 1000} s); ` +
        'lower tokens.requests, tokens.requestTimeout or capacityProof.duration, or raise timeout',
    );
  }
  if (problems.length > count) {
    return undefined;
  }
  // Each pool's plan meets the same targets on its own: its answers are held to them, unless the limits are given.
  const pools = plan.fallbacks !== undefined && plan.fallbacks.length > 0
    ? [{ priority: 1, instanceType: plan.instanceType, plan }, ...plan.fallbacks].map((pool) => ({
      pool: pool.priority,
      instanceType: pool.instanceType,
      ttftP99MaxMs: options.ttftP99Max?.toMilliseconds() ?? round2(pool.plan.targets.ttftP99Ms + allowance.toMilliseconds()),
      tpotP99MaxMs: options.tpotP99Max?.toMilliseconds() ?? pool.plan.targets.tpotP99Ms,
    }))
    : undefined;
  // An ESTIMATE plan has no row whose SDK the calibrated row could take: the pinned image's serves it.
  return {
    api, model: options.servedModelName, golden, smoke, capacity, plan: generativePlanBasis(plan, pinFor(plan.instance.family)?.neuronSdkVersion), timeout,
    ...(pools ? { pools } : {}),
  };
}

function resolveGolden(options: TokenProofOptions, api: TokenApi, problems: string[]): GoldenPrompt {
  const fallback = defaultGoldenPrompt(api);
  const given = options.golden;
  const golden: GoldenPrompt = {
    prompt: given?.prompt ?? fallback.prompt,
    maxTokens: given?.maxTokens ?? fallback.maxTokens,
    expect: given?.expect ?? fallback.expect,
  };
  if (given !== undefined && given.prompt === undefined && given.expect !== undefined) {
    problems.push(
      'tokens.golden.expect is set without tokens.golden.prompt: an expected answer only means something for the ' +
        'prompt it answers; give both, or neither for the default (capital of France, /\\bParis\\b/)',
    );
  }
  if (Token.isUnresolved(golden.prompt) || golden.prompt.trim() === '') {
    problems.push(`tokens.golden.prompt=${JSON.stringify(golden.prompt)} must be a literal, non-blank prompt`);
  }
  if (!Number.isInteger(golden.maxTokens) || golden.maxTokens < 1 || golden.maxTokens > 4096) {
    problems.push(`tokens.golden.maxTokens=${golden.maxTokens} must be a whole number from 1 to 4096, e.g. ${DEFAULT_GOLDEN_MAX_TOKENS}`);
  }
  if (golden.expect.kind === 'regex') {
    try {
      new RegExp(golden.expect.pattern, golden.expect.flags);
    } catch (err) {
      problems.push(
        `tokens.golden.expect.pattern=${JSON.stringify(golden.expect.pattern)} is not a regular expression ` +
          `(${(err as Error).message}); write it as for new RegExp(), e.g. '\\\\bParis\\\\b'`,
      );
    }
  } else if (golden.expect.text.trim() === '') {
    problems.push('tokens.golden.expect.text is blank; give the exact answer greedy decoding produces, or a regex');
  }
  return golden;
}

/** The proof in tokens at the plan's rate from `capacityProof` (undefined when a rule failed). */
function resolveTokenCapacity(options: CapacityProofOptions, plan: GenerativePlan, smoke: TokenSmokeRun, problems: string[]):
TokenCapacityConfig | undefined {
  for (const [name, given] of [['p99Max', options.p99Max], ['serverP99Max', options.serverP99Max], ['perWorkerRps', options.perWorkerRps]] as const) {
    if (given !== undefined) {
      problems.push(
        `capacityProof.${name} applies to single-call plans; a generative plan's proof is judged on TTFT and TPOT ` +
          `(tokens.ttftP99Max, tokens.tpotP99Max) and sized by capacityProof.streamsPerWorker; remove ${name}`,
      );
    }
  }
  const count = problems.length;
  const rateRps = proofRate(options, plan.targets.requestsPerSecond, { what: 'planned rate', example: 2 }, problems);
  const perWorker = options.streamsPerWorker ?? STREAMS_PER_WORKER;
  if (!(perWorker >= 1) || !Number.isFinite(perWorker)) {
    problems.push(`capacityProof.streamsPerWorker=${perWorker} must be at least 1, e.g. ${STREAMS_PER_WORKER}`);
  }
  const fanOut = tokenFanOut(rateRps, plan.generative.predictedE2eP99Ms, perWorker);
  const limit = Math.min(MAX_FAN_OUT, DEFAULT_ACCOUNT_CONCURRENCY);
  if (fanOut.workers > limit) {
    problems.push(
      `capacityProof at ${rateRps} requests/s keeps ${fanOut.streams} streams in flight (rate x predicted e2e ` +
        `${plan.generative.predictedE2eP99Ms} ms), ${fanOut.workers} load workers at ${perWorker} streams each, above ` +
        `the ${limit} a proof may fan out to; lower capacityProof.fraction or raise capacityProof.streamsPerWorker`,
    );
  }
  const { rateShare, maxErrorRate, durationMs, warmupMs } = capacityGates(options, problems);
  if (problems.length > count) {
    return undefined;
  }
  const g = plan.generative;
  const outputTokensPerSecond = round2(rateRps * smoke.outputTokens);
  return {
    rateRps,
    workers: fanOut.workers,
    streamsPerWorker: fanOut.streamsPerWorker,
    durationMs,
    warmupMs,
    timeoutMs: smoke.timeoutMs,
    inputTokens: smoke.inputTokens,
    outputTokens: smoke.outputTokens,
    // Each request's prompt and output drawn from the plan's distributions (the workers seed from 1 up), and its gaps
    // from the plan's arrivals when they are not Poisson: the proof sends the traffic the plan assumed.
    ...(g.lengths !== undefined ? { lengths: g.lengths, lengthSeed: 1 } : {}),
    ...(plan.targets.arrivals !== undefined && !isPoisson(plan.targets.arrivals) ? { arrivals: plan.targets.arrivals } : {}),
    predicted: {
      rateRps: plan.targets.requestsPerSecond,
      ttftP99Ms: g.predictedTtftP99Ms,
      tpotP99Ms: g.predictedTpotP99Ms,
      e2eP99Ms: g.predictedE2eP99Ms,
      outputTokensPerSecond,
    },
    thresholds: {
      rateShare,
      ttftP99MaxMs: smoke.thresholds.ttftP99MaxMs,
      tpotP99MaxMs: smoke.thresholds.tpotP99MaxMs,
      maxErrorRate,
    },
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
