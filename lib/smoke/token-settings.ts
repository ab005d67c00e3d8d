/**
 * How the gate and its load workers read a proof in tokens from their environment: the same variables as a
 * single-call smoke benchmark (`SMOKE_ENV`), with a `SMOKE_CONFIG` of `kind: 'tokens'`.
 */
import { z } from 'zod';
import { tokenProofConfigSchema, type TokenProofConfig } from '../bench/token-proof';
import { SMOKE_ENV } from './config';

/** Everything a proof in tokens needs, parsed from the environment. */
export interface TokenSettings {
  readonly config: TokenProofConfig;
  /** Endpoint name, or the engine's base URL. */
  readonly target: string;
  readonly name: string;
  readonly environment: string;
  readonly reportBucket: string;
  readonly stackId: string;
  /** The load-worker function, when the config has a capacity proof. */
  readonly workerFunction?: string;
}

const required = (name: string) => z.string({ error: `${name} is not set` }).min(1, `${name} is empty`);

const settingsSchema = z
  .object({
    [SMOKE_ENV.config]: required(SMOKE_ENV.config)
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: `${SMOKE_ENV.config} is not JSON: ${(err as Error).message}` });
          return z.NEVER;
        }
      })
      .pipe(tokenProofConfigSchema),
    [SMOKE_ENV.target]: required(SMOKE_ENV.target),
    [SMOKE_ENV.name]: required(SMOKE_ENV.name),
    [SMOKE_ENV.environment]: required(SMOKE_ENV.environment),
    [SMOKE_ENV.reportBucket]: required(SMOKE_ENV.reportBucket),
    [SMOKE_ENV.stackId]: required(SMOKE_ENV.stackId),
    [SMOKE_ENV.workerFunction]: z.string().min(1).optional(),
  })
  .refine((values) => values[SMOKE_ENV.config].capacity === undefined || values[SMOKE_ENV.workerFunction] !== undefined, {
    path: [SMOKE_ENV.workerFunction],
    message: `${SMOKE_ENV.workerFunction} is not set but ${SMOKE_ENV.config} has a capacity proof`,
  });

/**
 * Reads the settings of a proof in tokens.
 *
 * @param worker a load worker has only `SMOKE_CONFIG` and `SMOKE_TARGET`.
 * @throws Error listing every missing or malformed value (only a construct/handler mismatch produces one)
 */
export function readTokenSettings(env: Readonly<Record<string, string | undefined>>, worker = false): TokenSettings {
  const filled = worker
    ? {
        [SMOKE_ENV.name]: 'worker',
        [SMOKE_ENV.environment]: 'worker',
        [SMOKE_ENV.reportBucket]: 'worker',
        [SMOKE_ENV.stackId]: 'worker',
        [SMOKE_ENV.workerFunction]: 'worker',
        ...env,
      }
    : env;
  const result = settingsSchema.safeParse(filled);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`);
    throw new Error(
      `${worker ? 'load worker' : 'smoke benchmark'} settings of the proof in tokens are invalid (redeploy the ` +
        `SmokeBenchmark construct that owns this function):\n${problems.map((p) => `- ${p}`).join('\n')}`,
    );
  }
  const values = result.data;
  return {
    config: values[SMOKE_ENV.config] as TokenProofConfig,
    target: values[SMOKE_ENV.target],
    name: values[SMOKE_ENV.name],
    environment: values[SMOKE_ENV.environment],
    reportBucket: values[SMOKE_ENV.reportBucket],
    stackId: values[SMOKE_ENV.stackId],
    workerFunction: values[SMOKE_ENV.workerFunction],
  };
}
