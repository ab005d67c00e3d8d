/**
 * What the smoke-benchmark Lambda is told to do, and how it reads it.
 *
 * The `Trigger` provider invokes the function with an empty payload (aws-cdk-lib 2.276
 * `custom-resource-handlers/dist/triggers/lambda/index.js`: `{ FunctionName, InvocationType }`, no `Payload`), so
 * everything comes from the function's environment. The environment is part of the function version's hash, and a
 * new version is what makes the Trigger run again: a changed setting or deployment fingerprint re-runs the benchmark.
 *
 * Values that may be CloudFormation tokens (the endpoint name, the URL, the bucket, the stack id, the environment
 * name) each get a variable of their own; every literal setting travels as one JSON document in `SMOKE_CONFIG`.
 */
import type { z } from 'zod';
import { lazySchema, loadZod } from '../lazy-schema';
import type { PoolLimits } from '../bench/pools';
import type { AnswerCheck, LoadMode, StopCondition, Thresholds } from '../bench/types';
import { capacityConfigSchema, type CapacityConfig } from './capacity';

/**
 * Most requests the Lambda keeps in flight (closed-loop concurrency or open-loop in-flight cap).
 *
 * The module-level SageMaker client holds this many sockets; a smoke run needs far fewer, and a Lambda with 1769 MB
 * has one vCPU to generate load with.
 */
export const MAX_IN_FLIGHT = 256;

/** Names of the environment variables the construct sets and the handler reads. */
export const SMOKE_ENV = {
  /** JSON of {@link SmokeConfig}. */
  config: 'SMOKE_CONFIG',
  /** The SageMaker endpoint name, or the URL for an HTTP target. */
  target: 'SMOKE_TARGET',
  /** The name reports and metrics are filed under: `EndpointName` dimension and S3 key segment. */
  name: 'SMOKE_NAME',
  /** The `Environment` dimension. */
  environment: 'SMOKE_ENVIRONMENT',
  /** Bucket the JSON reports go to. */
  reportBucket: 'SMOKE_REPORT_BUCKET',
  /** ARN of the stack the Trigger belongs to, to tell a rollback from a deployment. */
  stackId: 'SMOKE_STACK_ID',
  /** Name of the load-worker function the capacity proof fans out to; set only with a capacity proof. */
  workerFunction: 'SMOKE_WORKER_FUNCTION',
} as const;

/** The literal settings of one smoke benchmark (the `SMOKE_CONFIG` variable). */
export interface SmokeConfig {
  /** Bumped when the shape changes incompatibly. */
  readonly schemaVersion: 1;
  /** The target's kind and its literal options; its name or URL is in `SMOKE_TARGET`. */
  readonly target:
    | { readonly kind: 'sagemaker'; readonly targetVariant?: string }
    | {
        readonly kind: 'http';
        readonly method?: 'GET' | 'POST' | 'PUT';
        readonly headers?: Readonly<Record<string, string>>;
      };
  /** What changed in the deployment under test: goes into the report key. @default - none */
  readonly fingerprint?: string;
  readonly request: { readonly body: string; readonly contentType: string };
  /** @default 200 */
  readonly expectStatus?: number;
  readonly expect?: AnswerCheck;
  /** An open loop always carries `maxInFlight`, at most {@link MAX_IN_FLIGHT}. */
  readonly mode: LoadMode;
  readonly stop: StopCondition;
  readonly warmupMs: number;
  /** Per-request timeout. */
  readonly timeoutMs: number;
  readonly thresholds: Thresholds;
  readonly metricNamespace: string;
  /** Key prefix of the reports, without a trailing slash. */
  readonly reportPrefix: string;
  /**
   * Fail the run when the report cannot be written to S3, even if the endpoint passed.
   *
   * @default false - a healthy endpoint is not rolled back for a report; the failed write is logged with its
   *   bucket and key and returned in the outcome
   */
  readonly failOnReportError?: boolean;
  /** The capacity proof, run after the smoke run passed. @default - none */
  readonly capacity?: CapacityConfig;
  /**
   * The endpoint's instance pools, each with the limits its own plan sets: the run reads every answer's pool
   * (`pool=<priority>` in the custom-attributes header) and holds each pool's answers to its limits.
   *
   * @default - no pools: the run is judged as a whole only
   */
  readonly pools?: readonly PoolLimits[];
}

/**
 * Everything one hook run needs, parsed from the environment: the workload's literal settings (`C`) and the values
 * every workload shares. A workload adds only its config schema ({@link readHookSettings}).
 */
export interface HookSettings<C> {
  readonly config: C;
  /** Endpoint name, URL, or the engine's base URL. */
  readonly target: string;
  readonly name: string;
  readonly environment: string;
  readonly reportBucket: string;
  readonly stackId: string;
  /** The load-worker function, when the config has a capacity proof. */
  readonly workerFunction?: string;
}

/** Everything one single-call run needs, parsed from the environment. */
export type SmokeSettings = HookSettings<SmokeConfig>;

const positive = lazySchema((z) => z.number().positive());
const positiveInt = lazySchema((z) => z.number().int().positive());

const answerCheck = lazySchema((z) => z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('json'), value: z.unknown() }),
  z.object({ kind: z.literal('json-path'), path: z.string().min(1), value: z.unknown() }),
  z.object({ kind: z.literal('regex'), pattern: z.string().min(1) }),
]));

/**
 * Schema of {@link SmokeConfig}; the construct checks what it writes with it, the handler what it reads.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const smokeConfigSchema = lazySchema((z) => z
  .object({
    schemaVersion: z.literal(1),
    target: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('sagemaker'), targetVariant: z.string().min(1).optional() }).strict(),
      z
        .object({
          kind: z.literal('http'),
          method: z.enum(['GET', 'POST', 'PUT']).optional(),
          headers: z.record(z.string(), z.string()).optional(),
        })
        .strict(),
    ]),
    fingerprint: z.string().min(1).optional(),
    request: z.object({ body: z.string(), contentType: z.string().min(1) }).strict(),
    expectStatus: z.number().int().min(100).max(599).optional(),
    expect: answerCheck().optional(),
    mode: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('closed'), concurrency: positiveInt().max(MAX_IN_FLIGHT) }).strict(),
      z.object({ kind: z.literal('open'), rateRps: positive(), maxInFlight: positiveInt().max(MAX_IN_FLIGHT) }).strict(),
    ]),
    stop: z.union([z.object({ durationMs: positive() }).strict(), z.object({ requests: positiveInt() }).strict()]),
    warmupMs: z.number().min(0),
    timeoutMs: positive(),
    thresholds: z
      .object({
        p50MaxMs: positive().optional(),
        p99MaxMs: positive().optional(),
        minThroughputRps: z.number().min(0).optional(),
        maxErrorRate: z.number().min(0).max(1).optional(),
        serverP99MaxMs: positive().optional(),
      })
      .strict(),
    metricNamespace: z.string().min(1),
    reportPrefix: z.string().min(1),
    failOnReportError: z.boolean().optional(),
    capacity: capacityConfigSchema().optional(),
    pools: z.array(z.object({
      pool: z.number().int().min(1).max(5),
      instanceType: z.string().min(1),
      p99MaxMs: positive().optional(),
      serverP99MaxMs: positive().optional(),
    }).strict()).min(1).optional(),
  })
  .strict());

const required = (name: string) =>
  loadZod().string({ error: `${name} is not set` }).min(1, `${name} is empty`);

/** The environment schema around one workload's config schema: every hook reads the same variables. */
function settingsSchema<C extends { readonly capacity?: unknown }>(configSchema: z.ZodType<C>) {
  const z = loadZod();
  return z.object({
    [SMOKE_ENV.config]: required(SMOKE_ENV.config)
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: `${SMOKE_ENV.config} is not JSON: ${(err as Error).message}` });
          return z.NEVER;
        }
      })
      .pipe(configSchema),
    [SMOKE_ENV.target]: required(SMOKE_ENV.target),
    [SMOKE_ENV.name]: required(SMOKE_ENV.name),
    [SMOKE_ENV.environment]: required(SMOKE_ENV.environment),
    [SMOKE_ENV.reportBucket]: required(SMOKE_ENV.reportBucket),
    [SMOKE_ENV.stackId]: required(SMOKE_ENV.stackId),
    [SMOKE_ENV.workerFunction]: z.string().min(1).optional(),
  }).refine((values) => (values[SMOKE_ENV.config] as C).capacity === undefined || values[SMOKE_ENV.workerFunction] !== undefined, {
    path: [SMOKE_ENV.workerFunction],
    message: `${SMOKE_ENV.workerFunction} is not set but ${SMOKE_ENV.config} has a capacity proof`,
  });
}

/** How {@link readHookSettings} reads: as the hook or as a load worker, and the workload's name in errors. */
export interface HookSettingsReader {
  /** A load worker has only `SMOKE_CONFIG` and `SMOKE_TARGET`. @default false */
  readonly worker?: boolean;
  /** Said after "settings" in the error, e.g. ` of the proof in tokens`. @default - nothing */
  readonly of?: string;
}

/**
 * Reads a hook's settings from the function's environment with the workload's config schema.
 *
 * @throws Error listing every missing or malformed value: the function was deployed with settings this handler
 *   does not understand, which only a construct/handler mismatch produces.
 * @internal it takes a zod schema, and zod types stay out of the published declarations (esModuleInterop).
 */
export function readHookSettings<C extends { readonly capacity?: unknown }>(
  env: Readonly<Record<string, string | undefined>>,
  configSchema: z.ZodType<C>,
  reader: HookSettingsReader = {},
): HookSettings<C> {
  const filled = reader.worker
    ? {
        [SMOKE_ENV.name]: 'worker',
        [SMOKE_ENV.environment]: 'worker',
        [SMOKE_ENV.reportBucket]: 'worker',
        [SMOKE_ENV.stackId]: 'worker',
        [SMOKE_ENV.workerFunction]: 'worker',
        ...env,
      }
    : env;
  const result = settingsSchema(configSchema).safeParse(filled);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`);
    throw new Error(
      `${reader.worker ? 'load worker' : 'smoke benchmark'} settings${reader.of ?? ''} are invalid (redeploy the ` +
        `SmokeBenchmark construct that owns this function):\n${problems.map((p) => `- ${p}`).join('\n')}`,
    );
  }
  const values = result.data;
  return {
    config: values[SMOKE_ENV.config] as C,
    target: values[SMOKE_ENV.target],
    name: values[SMOKE_ENV.name],
    environment: values[SMOKE_ENV.environment],
    reportBucket: values[SMOKE_ENV.reportBucket],
    stackId: values[SMOKE_ENV.stackId],
    workerFunction: values[SMOKE_ENV.workerFunction],
  };
}

/**
 * Reads the single-call settings from the function's environment.
 *
 * @throws Error listing every missing or malformed value (only a construct/handler mismatch produces one)
 */
export function readSettings(env: Readonly<Record<string, string | undefined>>): SmokeSettings {
  return readHookSettings(env, smokeConfigSchema() as z.ZodType<SmokeConfig>);
}

/** What a load worker reads from its environment: the target and the literal settings, as the hook has them. */
export function readWorkerSettings(env: Readonly<Record<string, string | undefined>>): Pick<SmokeSettings, 'config' | 'target'> {
  const { config, target } = readHookSettings(env, smokeConfigSchema() as z.ZodType<SmokeConfig>, { worker: true });
  return { config, target };
}
