/**
 * `plan --lengths-from FILE` and `--workload`: the user's own traffic (a gateway log, a benchmark export) read into
 * the targets, for generative plans (lengths and arrivals) and single-call plans (arrivals and their rate).
 */
import { InputError } from '../../lib/errors';
import { lengthsFromTraffic } from '../../lib/generative/lengths';
import type { GenerativeTargets } from '../../lib/generative/types';
import { WORKLOAD_PRESETS, type WorkloadPresetName } from '../../lib/generative/workloads';
import { arrivalProcessOf } from '../../lib/traffic/arrivals';
import type { TrafficSummary } from '../../lib/traffic/types';
import { readTrafficFile } from '../../io/traffic';

/** The traffic flags of `plan`. */
export interface TrafficFlags {
  readonly lengthsFrom?: string;
  readonly workload?: WorkloadPresetName;
  readonly throughput?: number;
  readonly throughputPerMinute?: number;
  readonly inputTokens?: number;
  readonly inputTokensP99?: number;
  readonly outputTokens?: number;
  readonly outputTokensP99?: number;
  readonly fixedLengths?: boolean;
}

/**
 * The file of `--lengths-from`, read and summarised; undefined without the flag.
 *
 * @throws InputError naming `--lengths-from`, the file, the line and the fix
 */
export async function readLengthsFrom(flags: Pick<TrafficFlags, 'lengthsFrom'>): Promise<TrafficSummary | undefined> {
  if (flags.lengthsFrom === undefined) {
    return undefined;
  }
  try {
    return await readTrafficFile(flags.lengthsFrom);
  } catch (e) {
    if (e instanceof InputError) {
      throw new InputError(e.problems.map((p) => `--lengths-from ${p}`));
    }
    throw e;
  }
}

/** The steady rate the file's timestamps show, when no rate flag is given. */
export function throughputFromTraffic(flags: TrafficFlags, traffic: TrafficSummary | undefined): number | undefined {
  return flags.throughput ?? (flags.throughputPerMinute !== undefined ? flags.throughputPerMinute / 60 : traffic?.arrivals?.meanRps);
}

/**
 * What the file and `--workload` put into generative targets: the lengths whole (a file's), the arrivals, the means a
 * preset gives when no `--input-tokens` is; every clash between the file and the length flags named at once.
 */
export function generativeTraffic(flags: TrafficFlags, traffic: TrafficSummary | undefined):
Pick<GenerativeTargets, 'lengths' | 'arrivals' | 'workload'> & { readonly inputTokens?: GenerativeTargets['inputTokens']; readonly outputTokens?: GenerativeTargets['outputTokens'] } {
  const arrivals = traffic !== undefined ? arrivalProcessOf(traffic) : undefined;
  const arrival = arrivals !== undefined ? { arrivals } : {};
  if (traffic?.input !== undefined) {
    const clashes = ([
      ['inputTokens', '--input-tokens'], ['inputTokensP99', '--input-tokens-p99'], ['outputTokens', '--output-tokens'],
      ['outputTokensP99', '--output-tokens-p99'], ['fixedLengths', '--fixed-lengths'], ['workload', '--workload'],
    ] as const).filter(([key]) => flags[key] !== undefined).map(([, name]) => name);
    if (clashes.length > 0) {
      throw new InputError(
        `--lengths-from ${flags.lengthsFrom} gives the prompt and output lengths whole (the file's own distribution); ` +
          `leave out ${clashes.join(', ')}`,
      );
    }
    const lengths = lengthsFromTraffic(traffic);
    return {
      lengths,
      inputTokens: { mean: lengths.input.mean, p99: lengths.input.p99 },
      outputTokens: { mean: lengths.output.mean, p99: lengths.output.p99 },
      ...arrival,
    };
  }
  const workload = flags.workload !== undefined ? { workload: flags.workload } : {};
  // A preset alone plans its trace's own means: `--workload code` is a coding assistant like Azure's.
  const preset = flags.workload !== undefined ? WORKLOAD_PRESETS[flags.workload] : undefined;
  return {
    ...workload,
    ...arrival,
    ...(preset !== undefined && flags.inputTokens === undefined ? { inputTokens: { mean: Math.round(preset.input.mean) } } : {}),
    ...(preset !== undefined && flags.outputTokens === undefined ? { outputTokens: { mean: Math.round(preset.output.mean) } } : {}),
  };
}

/**
 * The arrivals of a single-call plan from the file: only its timestamps count (a single call has no tokens to plan).
 *
 * @throws InputError when the file has too few timestamps to measure arrivals
 */
export function singleCallTraffic(flags: TrafficFlags, traffic: TrafficSummary | undefined): { readonly arrivals?: ReturnType<typeof arrivalProcessOf> } {
  if (traffic === undefined) {
    return {};
  }
  const arrivals = arrivalProcessOf(traffic);
  if (arrivals === undefined) {
    throw new InputError(
      `--lengths-from ${flags.lengthsFrom}: a single-call plan reads only arrival times from the file, and it has ` +
        `${traffic.arrivals === undefined ? 'too few (under 101) or none' : 'none usable'}; give a log with a timestamp per request (timestamp, created), ` +
        'or leave --lengths-from out for Poisson arrivals',
    );
  }
  return { arrivals };
}

/** `gaps' SCV 2.4 (1 is Poisson): waits ...; <evidence>`, or Poisson. */
export function describeArrivals(arrivals: { readonly scv: number; readonly source: string } | undefined): string {
  if (arrivals === undefined || arrivals.scv === 1) {
    return `Poisson (gaps' SCV 1)${arrivals !== undefined ? `: ${arrivals.source}` : ''}`;
  }
  return `gaps' SCV ${arrivals.scv} (1 is Poisson): queue waits scale by (${arrivals.scv} + cs2) / (1 + cs2), Kingman's factor; ${arrivals.source}`;
}
