/**
 * Checks that flag measurements contradicting themselves. They are warnings: the planner still uses the numbers,
 * but a user should know a row is suspect before trusting a plan built on it.
 */
import type { Measurement, ModelProfile, ProfileWarning } from './types';

/** Below this share of what batch size and p50 allow, the throughput is flagged as too low. */
export const MIN_THROUGHPUT_RATIO = 0.25;

/**
 * Above this multiple of what batch size and p50 allow, the throughput is flagged as too high. Up to 4 requests in
 * flight per process is ordinary (async execution, two workers per model); a NeuronCore Pipeline over `g` cores can
 * hold up to `g` requests at once, so the bound is `max(4, coresPerProcess)`.
 */
export const MAX_THROUGHPUT_RATIO = 4;

/**
 * Inferences per second one process can do when it runs one request (one batch) at a time: `batchSize * 1000 / p50Ms`.
 */
export function serialThroughputRps(m: Pick<Measurement, 'batchSize' | 'p50Ms'>): number {
  return (m.batchSize * 1000) / m.p50Ms;
}

/** Rounds for messages: 4 significant figures, no trailing noise. */
function fmt(n: number): string {
  return String(+n.toPrecision(4));
}

/** Where a measurement came from, for messages. */
function describe(m: Measurement): string {
  const mode = m.mode ? `${m.mode}, ` : '';
  const instance = m.instanceType ? ` on ${m.instanceType}` : '';
  return `NeuronCore-${m.coreVersion}${instance}, ${mode}batch ${m.batchSize}`;
}

/**
 * Flags measurements whose throughput is far from what their batch size and latency allow.
 *
 * A process running one request at a time does at most `batchSize * 1000 / p50Ms` inferences per second. Throughput
 * below 25 % of that, or above `max(4, coresPerProcess)` times that, contradicts the latency.
 */
export function checkProfile(profile: ModelProfile): ProfileWarning[] {
  const warnings: ProfileWarning[] = [];
  profile.measurements.forEach((m, measurementIndex) => {
    const serial = serialThroughputRps(m);
    const ratio = m.throughputRps / serial;
    const where = `${profile.id} measurements[${measurementIndex}] (${describe(m)})`;
    if (ratio < MIN_THROUGHPUT_RATIO) {
      warnings.push({
        profileId: profile.id,
        measurementIndex,
        message:
          `${where}: throughput ${fmt(m.throughputRps)}/s per process is ${fmt(ratio * 100)} % of the ` +
          `${fmt(serial)}/s that batch ${m.batchSize} at p50 ${m.p50Ms} ms allows. Likely cause: the benchmark kept ` +
          'fewer requests in flight than processes (one client, or fewer processes than the cores divided by), or a ' +
          'typo in the source row. Plans built on it are pessimistic; measure your model and pass --profile.',
      });
    }
    const maxRatio = Math.max(MAX_THROUGHPUT_RATIO, m.coresPerProcess);
    if (ratio > maxRatio) {
      warnings.push({
        profileId: profile.id,
        measurementIndex,
        message:
          `${where}: throughput ${fmt(m.throughputRps)}/s per process is ${fmt(ratio * 100)} % of the ` +
          `${fmt(serial)}/s that batch ${m.batchSize} at p50 ${m.p50Ms} ms allows (at most ${maxRatio * 100} % expected). ` +
          'Likely cause: the throughput is for the whole instance rather than one process, or the latency is not ' +
          'per request. Plans built on it are optimistic; measure your model and pass --profile.',
      });
    }
  });
  return warnings;
}
