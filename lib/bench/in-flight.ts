/**
 * The engine's defaults that constructs size with (the smoke benchmark's Lambda timeout and memory), kept apart from
 * the engine so reading them loads no HTTP or AWS client.
 */

/** @see BenchOptions.timeoutMs */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Sockets a default open-loop in-flight cap may hold at most. */
const MAX_DEFAULT_IN_FLIGHT = 1000;

/**
 * The open-loop in-flight cap used when none is given.
 *
 * In-flight requests never exceed rate x timeout (each ends by its timeout), so the cap only bites when a slow
 * server would hold more than 10 s of arrivals, or more than 1000 sockets.
 */
export function defaultMaxInFlight(rateRps: number, timeoutMs: number): number {
  const worstCase = Math.ceil(Math.min(10 * rateRps, (rateRps * timeoutMs) / 1000));
  return Math.min(MAX_DEFAULT_IN_FLIGHT, Math.max(1, worstCase));
}
