/**
 * A discrete-event replay of one continuous-batching replica, executing exactly the semantics the planner's model
 * approximates (`continuous-batching.ts`): Poisson arrivals (or the workload's own, `targets.arrivals`: gaps drawn
 * independently from its distribution), token lengths drawn from the workload's distributions (a file's own, with
 * its correlation, when `targets.lengths` holds them),
 * at most N sequences, first come first served admission, one prefill at a time taking priority over decode (or, with
 * chunked prefill, sharing the step), and decode steps that give every running sequence one token in step(n).
 *
 * `npm run bench:plans` replays every built-in generative plan with it; tests use it as the reference.
 */
import { random } from '../planner/simulate';
import { gapSampler } from '../traffic/arrivals';
import type { EngineTiming, GenerativeTargets } from './types';
import { distributionsOf, workloadSampler } from './lengths';

export interface GenerativeSimulationInput {
  readonly timing: EngineTiming;
  /** The lengths (stated, or whole in `lengths`) and the arrivals (`arrivals`, Poisson without) to replay. */
  readonly targets: Pick<GenerativeTargets, 'inputTokens' | 'outputTokens' | 'lengths' | 'arrivals'>;
  readonly requestsPerSecond: number;
  /** Requests to replay (the first tenth warms up and is not measured). */
  readonly requests: number;
  /** Longest prompt plus output the engine accepts; longer draws are cut to it. @default - no cap */
  readonly maxModelLength?: number;
  /** @default 1 */
  readonly seed?: number;
}

export interface GenerativeSimulationResult {
  readonly ttftP99Ms: number;
  readonly tpotP99Ms: number;
  readonly e2eP99Ms: number;
  /** Completed requests per second over the measured window. */
  readonly achievedRps: number;
  /** Output tokens per second over the measured window. */
  readonly outputTokensPerSecond: number;
  /** Time-averaged sequences decoding. */
  readonly meanRunning: number;
}

interface Sequence {
  readonly arrival: number;
  readonly input: number;
  readonly output: number;
  firstToken: number;
  remaining: number;
  measured: boolean;
}

function percentile(values: number[], q: number): number {
  if (values.length === 0) {
    return 0;
  }
  // A typed array sorts numerically with no comparator call per pair (bench:plans sorts millions of latencies).
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** Replays `requests` arrivals through one replica and measures TTFT, TPOT and end-to-end latency. */
export function simulateGenerativeReplica(input: GenerativeSimulationInput): GenerativeSimulationResult {
  const next = random(input.seed ?? 1);
  // One stream of draws, in the order gap, prompt, output: Poisson arrivals and independent lognormal lengths draw
  // exactly what this replay always drew.
  const draw = workloadSampler(distributionsOf(input.targets), next);
  const gap = gapSampler(input.targets.arrivals, next);
  const warmup = Math.floor(input.requests / 10);

  // Arrivals up front.
  const arrivals: Sequence[] = [];
  let t = 0;
  for (let i = 0; i < input.requests; i++) {
    t += gap() / input.requestsPerSecond;
    const drawn = draw();
    let inTokens = drawn.input;
    let outTokens = drawn.output;
    if (input.maxModelLength !== undefined && inTokens + outTokens > input.maxModelLength) {
      inTokens = Math.min(inTokens, input.maxModelLength - 1);
      outTokens = Math.max(1, input.maxModelLength - inTokens);
    }
    arrivals.push({ arrival: t, input: inTokens, output: outTokens, firstToken: NaN, remaining: outTokens - 1, measured: i >= warmup });
  }

  const { timing } = input;
  // `head` is the first still waiting: shifting the array is linear in its length, which the overloaded replays of
  // a capacity search make thousands long.
  const waiting: Sequence[] = [];
  let head = 0;
  const running: Sequence[] = [];
  const ttft: number[] = [];
  const tpot: number[] = [];
  const e2e: number[] = [];
  let now = 0;
  let nextArrival = 0;
  let runningArea = 0;
  let measuredStart = NaN;
  let measuredEnd = 0;
  let measuredTokens = 0;
  let measuredDone = 0;

  const finish = (s: Sequence) => {
    if (!s.measured) {
      return;
    }
    e2e.push((now - s.arrival) * 1000);
    if (s.output > 1) {
      tpot.push(((now - s.firstToken) * 1000) / (s.output - 1));
    }
    measuredTokens += s.output;
    measuredDone++;
    measuredEnd = now;
  };

  while (nextArrival < arrivals.length || head < waiting.length || running.length > 0) {
    while (nextArrival < arrivals.length && arrivals[nextArrival].arrival <= now) {
      waiting.push(arrivals[nextArrival++]);
    }
    if (head < waiting.length && running.length < timing.maxSequences) {
      // Prefill the head of the queue: decode stops meanwhile (chunked prefill: the running sequences also step).
      const s = waiting[head++];
      if (s.measured && Number.isNaN(measuredStart)) {
        measuredStart = s.arrival;
      }
      const duration = timing.prefillSeconds(s.input);
      const stepping = timing.chunkedPrefill && running.length > 0;
      runningArea += running.length * duration;
      now += duration + (stepping ? timing.stepSeconds : 0);
      if (stepping) {
        advance(running, finish);
      }
      s.firstToken = now;
      if (s.measured) {
        ttft.push((now - s.arrival) * 1000);
      }
      if (s.remaining <= 0) {
        finish(s);
      } else {
        running.push(s);
      }
      continue;
    }
    if (running.length > 0) {
      const duration = timing.stepSeconds;
      runningArea += running.length * duration;
      now += duration;
      advance(running, finish);
      continue;
    }
    now = Math.max(now, arrivals[nextArrival].arrival);
  }

  const window = Math.max(1e-9, measuredEnd - measuredStart);
  return {
    ttftP99Ms: percentile(ttft, 0.99),
    tpotP99Ms: percentile(tpot, 0.99),
    e2eP99Ms: percentile(e2e, 0.99),
    achievedRps: measuredDone / window,
    outputTokensPerSecond: measuredTokens / window,
    meanRunning: runningArea / Math.max(1e-9, now),
  };
}

/** One decode step: every running sequence gets a token; finished ones leave. */
function advance(running: Sequence[], finish: (s: Sequence) => void): void {
  for (let i = running.length - 1; i >= 0; i--) {
    running[i].remaining--;
    if (running[i].remaining <= 0) {
      finish(running[i]);
      running.splice(i, 1);
    }
  }
}
