/**
 * How the gate and its load workers read a proof in tokens from their environment: the same variables as a
 * single-call smoke benchmark (`SMOKE_ENV`, read by {@link readHookSettings}), with a `SMOKE_CONFIG` of `kind: 'tokens'`.
 */
import type { z } from 'zod';
import { tokenProofConfigSchema, type TokenProofConfig } from '../bench/token-proof';
import { readHookSettings, type HookSettings } from './config';

/** Everything a proof in tokens needs, parsed from the environment. */
export type TokenSettings = HookSettings<TokenProofConfig>;

/**
 * Reads the settings of a proof in tokens.
 *
 * @param worker a load worker has only `SMOKE_CONFIG` and `SMOKE_TARGET`.
 * @throws Error listing every missing or malformed value (only a construct/handler mismatch produces one)
 */
export function readTokenSettings(env: Readonly<Record<string, string | undefined>>, worker = false): TokenSettings {
  return readHookSettings(env, tokenProofConfigSchema() as z.ZodType<TokenProofConfig>, { worker, of: ' of the proof in tokens' });
}
