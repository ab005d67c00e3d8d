/**
 * The SSM records `promote` reads, and what it checks of an environment's generative model before it moves it on:
 * the vLLM image digest its Generative stack recorded against the config's `generativeImageDigest`, and the compiled
 * replica's hash against the one promoted into it.
 */
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { z } from 'zod';
import type { EnvironmentConfig, EnvironmentsConfig } from '../../lib/environments';
import {
  PromotionRefusedError, generativeDeploymentParameterName, generativeDeploymentRecordSchema, parseRecord,
  releaseParameterName, releaseRecordSchema,
} from '../../lib/release';
import type { GenerativeDeploymentRecord, ReleaseRecord } from '../../lib/release';

/**
 * An SSM record of an environment, checked against its schema.
 *
 * @returns undefined when the parameter does not exist
 * @throws PromotionRefusedError when it exists but is not a record this version reads
 */
export async function readRecord<T>(ssm: SSMClient, name: string, schema: z.ZodType<T>, env: EnvironmentConfig): Promise<T | undefined> {
  let value: string | undefined;
  try {
    value = (await ssm.send(new GetParameterCommand({ Name: name }))).Parameter?.Value;
  } catch (e) {
    if ((e as { name?: string }).name === 'ParameterNotFound') {
      return undefined;
    }
    throw e;
  }
  const parsed = parseRecord(schema, safeJson(value), `ssm:${name} in ${env.account} ${env.region}`);
  if ('problem' in parsed) {
    throw new PromotionRefusedError(env.name, undefined, [parsed.problem]);
  }
  return parsed.value;
}

/** `text` parsed as JSON, or the text itself when it is not JSON (the schema then says what is wrong). */
export function safeJson(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * What the source environment's generative model serves, once it is shown to be what the config rolls out and what
 * was promoted into it.
 *
 * @returns the source's generative deployment record, or every reason to refuse
 */
export async function checkGenerativeSource(ssm: SSMClient, config: EnvironmentsConfig, from: EnvironmentConfig):
Promise<{ readonly record: GenerativeDeploymentRecord } | { readonly reasons: string[] }> {
  const parameter = generativeDeploymentParameterName(config.application, from.name);
  const record = await readRecord(ssm, parameter, generativeDeploymentRecordSchema(), from);
  if (record === undefined) {
    return {
      reasons: [`${from.name} has no generative deployment record at ssm:${parameter} (${from.account}, ${from.region}): `
        + `deploy ${from.name}/Generative (npx cdk deploy '${from.name}/*') and let its token proof pass`],
    };
  }
  const reasons: string[] = [];
  const expected = config.generativeImageDigest;
  if (expected !== undefined && record.imageDigest !== expected) {
    reasons.push(`generativeImageDigest: ${from.name}'s generative model runs vLLM image ${record.imageDigest}, not `
      + `${expected} that the environments config rolls out; deploy ${from.name} with it first `
      + `(npx cdk deploy '${from.name}/*') and let its token proof pass`);
  }
  const releaseParameter = releaseParameterName(config.application, from.name);
  const release: ReleaseRecord | undefined = await readRecord(ssm, releaseParameter, releaseRecordSchema(), from);
  const promoted = release?.generative?.hash;
  if (promoted !== undefined && promoted !== record.hash) {
    const first = config.environments[0].name;
    reasons.push(`generative hash: ${from.name} serves compiled replica ${record.hash} (ssm:${parameter}), not ${promoted} `
      + `that was promoted into it from ${release!.promotedFrom} (ssm:${releaseParameter}); its weights, engine settings `
      + `or Neuron SDK changed since, so no earlier environment proved it: deploy the change to ${first} and promote it `
      + `from there`);
  }
  if (from.artifact !== undefined && (record.artifact.bucket !== from.artifact.bucket
    || !record.artifact.prefix.startsWith(from.artifact.prefix))) {
    reasons.push(`generative artifact: ${from.name} serves s3://${record.artifact.bucket}/${record.artifact.prefix}, outside `
      + `its artifact location s3://${from.artifact.bucket}/${from.artifact.prefix} that promote copies; compile into the `
      + "environment's artifact location (the environments config's artifact { bucket, prefix })");
  }
  return reasons.length > 0 ? { reasons } : { record };
}
