/**
 * The stand-in's scheduler: continuous batching in real time, with the semantics the token planner models
 * (lib/generative/continuous-batching.ts, replayed by lib/generative/simulate.ts) and vLLM on Neuron runs:
 *
 * - at most `maxNumSeqs` sequences running; arrivals wait first come, first served;
 * - one prefill at a time, taking priority over decode, and decode stops meanwhile (no chunked prefill on Neuron:
 *   "Chunked prefill is not supported on Neuron", vLLM user guide of the Neuron SDK);
 * - the prefill yields the request's first token (vLLM samples it from the context-encoding pass);
 * - a decode step gives every running sequence one token and takes `stepMs` however many run (the decode graph is
 *   compiled for `max_num_seqs` and runs padded to it).
 *
 * Times run on a virtual clock advanced by exact durations, so a late timer on a loaded host delays tokens but does
 * not slow the engine down: operations that fell due while the host was busy run at once, catching up. Behind by more
 * than `MAX_CATCH_UP_MS`, the clock resynchronises instead (no long burst), and the time lost is counted
 * (`lostMs`, `/metrics` `standin:clock_lost_seconds_total`), so a bench can tell the host's stalls from the plan's.
 *
 * @see https://awsdocs-neuron.readthedocs-hosted.com/en/latest/libraries/nxd-inference/developer_guides/vllm-user-guide-v1.html
 */

/** Most the virtual clock may run ahead of real time before it resynchronises, ms. */
export const MAX_CATCH_UP_MS = 50;

/** Timings of the simulated engine, ms (before `slowdown`). */
export interface StandinTiming {
  /** Most sequences decoding at once (`--max-num-seqs`). */
  readonly maxNumSeqs: number;
  /** One decode step. */
  readonly stepMs: number;
  /** Prefill per prompt token. */
  readonly prefillMsPerToken: number;
  /** Least a prefill takes (its fixed costs). */
  readonly prefillFloorMs: number;
  /**
   * Compiled prompt buckets and each one's prefill time, ascending: a prompt runs in the smallest bucket that holds it
   * (the last one when none does), as NxD Inference runs context encoding. Replaces the line when given.
   */
  readonly prefillBuckets?: readonly { readonly tokens: number; readonly ms: number }[];
  /** Every duration is multiplied by this (above 1: slower than the plan). @default 1 */
  readonly slowdown?: number;
}

/** Prefill time of `tokens` prompt tokens, ms: its bucket's, or linear in tokens, never below the floor. */
export function prefillMs(timing: StandinTiming, tokens: number): number {
  const buckets = timing.prefillBuckets;
  const ms = buckets !== undefined && buckets.length > 0
    ? (buckets.find((b) => b.tokens >= tokens) ?? buckets[buckets.length - 1]).ms
    : Math.max(timing.prefillFloorMs, timing.prefillMsPerToken * tokens);
  return ms * (timing.slowdown ?? 1);
}

/** `--prefill-buckets` text (`tokens:ms,...`) of a timing's buckets. */
export function formatPrefillBuckets(buckets: readonly { readonly tokens: number; readonly ms: number }[]): string {
  return buckets.map((b) => `${b.tokens}:${b.ms}`).join(',');
}

/**
 * Reads `--prefill-buckets` (`tokens:ms,...`, ascending tokens).
 *
 * @throws Error naming the entry that is not `tokens:ms` with a whole number of tokens and a time of at least 0
 */
export function parsePrefillBuckets(text: string): { tokens: number; ms: number }[] {
  const buckets = text.split(',').map((entry) => {
    const [tokens, ms] = entry.split(':').map(Number);
    if (!Number.isInteger(tokens) || tokens < 1 || !Number.isFinite(ms) || ms < 0) {
      throw new Error(`--prefill-buckets entry "${entry}": give tokens:ms, e.g. 1024:120.5`);
    }
    return { tokens, ms };
  });
  if (buckets.some((b, i) => i > 0 && b.tokens <= buckets[i - 1].tokens)) {
    throw new Error(`--prefill-buckets=${text}: list the buckets by ascending tokens`);
  }
  return buckets;
}

/** One generation the engine runs. */
export interface Sequence {
  readonly inputTokens: number;
  /** Tokens to generate (at least 1). */
  readonly outputTokens: number;
  /** Called once per token, with its index from 0, when it is produced. */
  readonly onToken: (index: number) => void;
  /** Called once after the last token. */
  readonly onDone: () => void;
  readonly arrivedAt: number;
  firstTokenAt?: number;
  produced: number;
  cancelled: boolean;
}

/** What the engine has done, for `/metrics`. */
export interface EngineObserver {
  onFirstToken?(s: Sequence, ttftSeconds: number): void;
  onToken?(s: Sequence, interTokenSeconds: number): void;
  onFinish?(s: Sequence, nowMs: number): void;
}

/** The continuous-batching scheduler. */
export class StandinEngine {
  readonly waiting: Sequence[] = [];
  readonly running: Sequence[] = [];
  private busy = false;
  /** Virtual time the current operation ends at. */
  private clock = 0;
  private timer?: NodeJS.Timeout;
  /** Engine time lost to host stalls longer than `MAX_CATCH_UP_MS`, ms. */
  lostMs = 0;
  private lastTokenAt = new Map<Sequence, number>();

  constructor(
    readonly timing: StandinTiming,
    private readonly observer: EngineObserver = {},
  ) {}

  /** Queues a generation. */
  submit(request: Pick<Sequence, 'inputTokens' | 'outputTokens' | 'onToken' | 'onDone'>): Sequence {
    const s: Sequence = { ...request, arrivedAt: performance.now(), produced: 0, cancelled: false };
    this.waiting.push(s);
    this.kick();
    return s;
  }

  /** Drops a generation whose client went away: its slot frees at the next step, as vLLM aborts it. */
  cancel(s: Sequence): void {
    s.cancelled = true;
    const i = this.waiting.indexOf(s);
    if (i >= 0) {
      this.waiting.splice(i, 1);
    }
  }

  /** Stops the engine's timer. */
  close(): void {
    clearTimeout(this.timer);
  }

  private kick(): void {
    if (!this.busy) {
      this.clock = performance.now();
      this.next();
    }
  }

  /** Starts the next operation: a prefill when a slot and a request wait, else a decode step, else idles. */
  private next(): void {
    for (let i = this.running.length - 1; i >= 0; i--) {
      if (this.running[i].cancelled) {
        this.lastTokenAt.delete(this.running[i]);
        this.running.splice(i, 1);
      }
    }
    const slowdown = this.timing.slowdown ?? 1;
    if (this.waiting.length > 0 && this.running.length < this.timing.maxNumSeqs) {
      const s = this.waiting.shift()!;
      this.schedule(prefillMs(this.timing, s.inputTokens), () => {
        if (s.cancelled) {
          return;
        }
        this.emit(s);
        if (s.produced < s.outputTokens) {
          this.running.push(s);
        }
      });
      return;
    }
    if (this.running.length > 0) {
      const batch = [...this.running];
      this.schedule(this.timing.stepMs * slowdown, () => {
        for (const s of batch) {
          if (!s.cancelled) {
            this.emit(s);
          }
        }
        for (let i = this.running.length - 1; i >= 0; i--) {
          if (this.running[i].produced >= this.running[i].outputTokens) {
            this.running.splice(i, 1);
          }
        }
      });
      return;
    }
    this.busy = false;
  }

  private schedule(durationMs: number, done: () => void): void {
    this.busy = true;
    const now = performance.now();
    // Far behind: the host stalled; restart the clock rather than catch up in a long burst, and count the loss.
    if (now - this.clock > MAX_CATCH_UP_MS) {
      this.lostMs += now - this.clock;
      this.clock = now;
    }
    this.clock += durationMs;
    this.timer = setTimeout(() => {
      done();
      this.next();
    }, Math.max(0, this.clock - now));
  }

  private emit(s: Sequence): void {
    const now = performance.now();
    const index = s.produced++;
    if (index === 0) {
      s.firstTokenAt = now;
      this.observer.onFirstToken?.(s, (now - s.arrivedAt) / 1000);
    } else {
      this.observer.onToken?.(s, (now - (this.lastTokenAt.get(s) ?? now)) / 1000);
    }
    this.lastTokenAt.set(s, now);
    s.onToken(index);
    if (s.produced >= s.outputTokens) {
      this.lastTokenAt.delete(s);
      this.observer.onFinish?.(s, now);
      s.onDone();
    }
  }
}
