/**
 * Validates benchmark options before any request is sent, reporting every problem at once.
 */
import { InputError } from '../errors';
import { lazySchema, loadZod } from '../lazy-schema';
import { compileAnswerCheck } from './answer';
import { arrivalProcessSchema } from '../traffic/schema';
import type { BenchOptions } from './types';

/**
 * The longest delay a Node timer takes: `setTimeout` treats anything above 2^31-1 ms as 1 ms and warns.
 *
 * @see https://nodejs.org/api/timers.html#settimeoutcallback-delay-args
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The highest request rate a run accepts: well above what one Node process sends (tens of thousands per second);
 * a higher rate only spins the scheduler counting requests it cannot send.
 */
export const MAX_RATE_RPS = 100_000;

/** The most requests in flight a run accepts: each holds a socket, and one process runs out of file descriptors. */
export const MAX_IN_FLIGHT = 10_000;

const positive = (what: string, example: string) =>
  loadZod().number().refine((n) => Number.isFinite(n) && n > 0, `${what} must be a positive number, e.g. ${example}`);
const positiveInt = (what: string, example: string) =>
  loadZod().number().refine((n) => Number.isInteger(n) && n >= 1, `${what} must be a whole number >= 1, e.g. ${example}`);
const nonNegative = (what: string, example: string) =>
  loadZod().number().refine((n) => Number.isFinite(n) && n >= 0, `${what} must be a number >= 0, e.g. ${example}`);

const httpUrl = lazySchema((z) => z.string().refine((value) => {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an absolute http(s) URL, e.g. https://my-alb.example.com/invocations'));

const target = lazySchema((z) => z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('http'),
    url: httpUrl(),
    method: z.enum(['GET', 'POST', 'PUT']).optional(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  z.object({
    kind: z.literal('sagemaker'),
    endpointName: z.string().min(1, 'must name the SageMaker endpoint, e.g. my-model-prod'),
    region: z.string().min(1, 'must be a region name such as us-east-1, or be left out').optional(),
    targetVariant: z.string().min(1, 'must name a production variant, or be left out').optional(),
  }),
]));

const mode = lazySchema((z) => z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('closed'),
    concurrency: positiveInt('concurrency', '4').refine((n) => n <= MAX_IN_FLIGHT, `concurrency must be at most ${MAX_IN_FLIGHT}`),
  }),
  z.object({
    kind: z.literal('open'),
    rateRps: positive('the request rate', '50').refine((n) => n <= MAX_RATE_RPS, `the request rate must be at most ${MAX_RATE_RPS} per second`),
    maxInFlight: positiveInt('maxInFlight', '200')
      .refine((n) => n <= MAX_IN_FLIGHT, `maxInFlight must be at most ${MAX_IN_FLIGHT}`)
      .optional(),
    arrivals: z.union([
      z.enum(['uniform', 'poisson'], { error: "arrivals must be 'uniform' or 'poisson'" }),
      // A load worker's share of a plan's arrival process; never typed on a command line.
      z.object({ process: arrivalProcessSchema(), index: z.number().int().min(0), of: z.number().int().min(1) }).strict(),
    ], { error: "arrivals must be 'uniform' or 'poisson'" }).optional(),
    seed: z.number({ error: 'seed must be an integer, e.g. 1' }).int('seed must be an integer, e.g. 1').optional(),
  }),
]));

const stop = lazySchema((z) => z
  .object({ durationMs: positive('durationMs', '10000').optional(), requests: positiveInt('requests', '500').optional() })
  .refine(
    (s) => (s.durationMs === undefined) !== (s.requests === undefined),
    'give exactly one of durationMs (run for a time) or requests (run for a count)',
  ));

const answerCheck = lazySchema((z) => z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('json'), value: z.unknown() }),
    z.object({ kind: z.literal('json-path'), path: z.string(), value: z.unknown() }),
    z.object({ kind: z.literal('regex'), pattern: z.string() }),
  ])
  .superRefine((check, ctx) => {
    try {
      compileAnswerCheck(check);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message, input: check });
    }
  }));

const thresholds = lazySchema((z) => z.object({
  p50MaxMs: positive('p50MaxMs', '50').optional(),
  p99MaxMs: positive('p99MaxMs', '200').optional(),
  minThroughputRps: nonNegative('minThroughputRps', '100').optional(),
  maxErrorRate: z
    .number()
    .refine((n) => n >= 0 && n <= 1, 'maxErrorRate is a fraction between 0 and 1, e.g. 0.01 for 1 %')
    .optional(),
  serverP99MaxMs: positive('serverP99MaxMs', '50').optional(),
}));

const options = lazySchema((z) => z
  .object({
    target: target(),
    body: z.string().optional(),
    contentType: z.string().min(1, 'must be a MIME type such as application/json, or be left out').optional(),
    mode: mode(),
    stop: stop(),
    warmupMs: nonNegative('warmupMs', '2000').optional(),
    timeoutMs: positive('timeoutMs', '10000')
      .refine((n) => n <= MAX_TIMER_MS, `timeoutMs must be at most ${MAX_TIMER_MS} (the longest Node timer)`)
      .optional(),
    expectStatus: z
      .number()
      .refine((n) => Number.isInteger(n) && n >= 100 && n <= 599, 'must be an HTTP status between 100 and 599')
      .optional(),
    expect: answerCheck().optional(),
    thresholds: thresholds().optional(),
  })
  .superRefine((value, ctx) => {
    if (value.target.kind !== 'sagemaker') {
      return;
    }
    if (value.body === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['body'],
        input: value.body,
        message: 'InvokeEndpoint needs a request body: give the payload the model expects, e.g. {"inputs":"hello"}',
      });
    }
    if (value.expectStatus !== undefined && value.expectStatus !== 200) {
      ctx.addIssue({
        code: 'custom',
        path: ['expectStatus'],
        input: value.expectStatus,
        message:
          'SageMaker answers 200 on success and wraps any other model status in a ModelError (424): leave it out or use 200',
      });
    }
  }));

/**
 * Checks options before a run.
 *
 * @throws InputError listing every problem, each naming the option, the value received and the fix.
 */
export function validateBenchOptions(value: BenchOptions): void {
  const result = options().safeParse(value, { reportInput: true });
  if (result.success) {
    return;
  }
  throw new InputError(
    result.error.issues.map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join('.') : 'options';
      const received = 'input' in issue ? `${describe(issue.input)}: ` : '';
      return `${where}=${received}${issue.message}`;
    }),
  );
}

function describe(value: unknown): string {
  if (value === undefined) {
    return 'undefined';
  }
  try {
    const text = JSON.stringify(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return String(value);
  }
}
