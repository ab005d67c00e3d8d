/**
 * The load engine's pure parts, shared by the `bench` CLI and the post-deploy smoke-benchmark Lambda: options and
 * their validation, answer checks, error classification, statistics and reports. The engine itself, which sends
 * requests, is `io/bench`.
 */
export * from './types';
export { defaultMaxInFlight, DEFAULT_TIMEOUT_MS } from './in-flight';
export { errorKindForStatus, type ErrorKind } from './error-kind';
export {
  classifyError,
  describeThreshold,
  RequestTimeoutError,
  BenchFailedError,
  runFailures,
  type RunOutcome,
} from './errors';
export { checkAnswer, compileAnswerCheck, parseJsonPath, selectJsonPath, type JsonPathSegment } from './answer';
export { evaluateThresholds, type BenchStats } from './thresholds';
export { formatReport, formatHistogram, reportForJson } from './format';
export type { JsonBenchReport } from './format';
export { validateBenchOptions, MAX_IN_FLIGHT, MAX_RATE_RPS, MAX_TIMER_MS } from './validate';
export { LatencyRecorder } from './latency';
export { parseServerTiming, ServerTimingRecorder, SERVER_TIMING_HEADER, type ServerTiming } from './server-timing';
export {
  calibrationRecord,
  planBasis,
  CALIBRATION_RECORD_VERSION,
  type CalibrationRecord,
  type MeasuredRun,
  type PlanBasis,
} from './calibration-record';
export { SseDecoder } from './sse';
export {
  DONE_EVENT,
  parseCompletionChunk,
  syntheticPrompt,
  tokenLatencies,
  tokenRequestBody,
  TokenStreamTracker,
  type ChatMessage,
  type CompletionChunk,
  type TokenApi,
  type TokenRequest,
  type TokenStreamResult,
} from './token-stream';
export { poissonArrivals, TokenLoadRecorder, type TokenLoadReport } from './token-load';
export type { TokenPercentiles } from './token-pools';
