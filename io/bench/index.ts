/**
 * The load engine: sends the requests (HTTP through undici, SageMaker through its runtime client) and measures what
 * comes back, with the pure parts from `lib/bench`. Used by the `bench` CLI and the smoke-benchmark Lambdas.
 */
export { runBenchmark, type BenchDeps } from './engine';
export {
  DEFAULT_STREAM_TIMEOUT_MS,
  runTokenLoad,
  streamCompletion,
  type StreamOptions,
  type TokenLoadDeps,
  type TokenLoadOptions,
  type TokenTarget,
} from './token-stream';
