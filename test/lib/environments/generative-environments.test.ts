import * as fs from 'fs';
import * as path from 'path';
import { InputError } from '../../../lib/errors';
import { parseEnvironments } from '../../../lib/environments';

const EXAMPLE = path.join(__dirname, '..', '..', '..', 'examples', 'environments.json');

type Generative = { profile: string; targets: Record<string, unknown> & { inputTokens: unknown } };
type Json = { environments: ({ generative?: Generative; artifact?: unknown } & Record<string, unknown>)[]; [key: string]: unknown };

function example(): Json {
  return JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
}

function problemsOf(json: unknown): readonly string[] {
  try {
    parseEnvironments(json, { source: 'environments.json' });
  } catch (e) {
    if (e instanceof InputError) {
      return e.problems;
    }
    throw e;
  }
  throw new Error('expected the config to be refused');
}

describe('the environments config plans a generative model in tokens in every environment', () => {
  test('GIVEN the shipped example WHEN parsed THEN each environment has a SageMaker token plan that compiles like dev\'s', () => {
    const config = parseEnvironments(example(), { source: 'environments.json' });
    const plans = config.environments.map((e) => e.generative!.plan);
    expect(config.environments.map((e) => e.generative!.profileId)).toEqual(Array(3).fill('llama-3.1-8b-instruct'));
    expect(plans.every((p) => p.hosting === 'sagemaker' && p.region === 'us-east-1')).toBe(true);
    expect(new Set(plans.map((p) => JSON.stringify(p.generative.engine))).size).toBe(1);
    expect(config.environments[2].generative!.targets.peakRequestsPerSecond).toBe(4);
    expect(plans[0].generative.predictedTtftP99Ms).toBeLessThanOrEqual(2000);
  });

  test('GIVEN no generative section anywhere WHEN parsed THEN no environment has one (single-call only, as before)', () => {
    const json = example();
    json.environments.forEach((e) => delete e.generative);
    const config = parseEnvironments(json, { source: 'environments.json' });
    expect(config.environments.map((e) => e.generative)).toEqual([undefined, undefined, undefined]);
  });
});

describe('a bad generative section is refused naming the environment, the field, the value and the fix', () => {
  test('GIVEN an unknown profile, a peak below the rate and a p99 length below its mean WHEN parsed THEN all three are named', () => {
    const json = example();
    json.environments[0].generative!.profile = 'llama-9';
    json.environments[1].generative!.targets.peakRequestsPerSecond = 1;
    json.environments[2].generative!.targets.inputTokens = { mean: 1024, p99: 512 };
    const problems = problemsOf(json);
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/environment "dev" generative\.profile: "llama-9" is not a built-in generative profile; use one of .*"llama-3\.1-8b-instruct"/),
      expect.stringContaining('environment "staging" generative.targets.peakRequestsPerSecond: 1 is below targets.requestsPerSecond=2; '
        + 'the peak is the most autoscaling must serve: set it to 2 or more'),
      expect.stringContaining('environment "prod" generative.targets.inputTokens.p99: 512 is below its mean 1024'),
      expect.stringContaining('environment "staging" generative.profile: "llama-3.1-8b-instruct" differs from "dev"\'s "llama-9"; '
        + 'one model is promoted through every environment'),
    ]));
  });

  test('GIVEN token targets no SageMaker deployment meets WHEN parsed THEN refused with the targets and the fix', () => {
    const json = example();
    json.environments.forEach((e) => { e.generative!.targets.tpotP99Ms = 0.5; });
    expect(problemsOf(json)).toEqual(expect.arrayContaining([
      expect.stringMatching(/environment "dev" generative\.targets: no SageMaker deployment of llama-3\.1-8b-instruct in us-east-1 meets 2 requests\/s at TTFT p99 2000 ms and TPOT p99 0\.5 ms: .*; relax the targets/),
    ]));
  });

  test('GIVEN one environment without the section and another without an artifact location WHEN parsed THEN both are refused', () => {
    const json = example();
    delete json.environments[1].generative;
    delete json.environments[2].artifact;
    expect(problemsOf(json)).toEqual([
      expect.stringContaining('environment "staging" generative: missing while "dev" has one; the same generative model is promoted'),
      expect.stringContaining('environment "prod" artifact: missing, and its generative model is compiled once and promoted: add artifact'),
    ]);
  });

  test('GIVEN a later environment whose plan compiles another replica WHEN parsed THEN refused naming the differing settings', () => {
    const json = example();
    // Longer prompts in dev than in the later environments: another max_model_len and other prompt buckets.
    json.environments[0].generative!.targets.inputTokens = { mean: 2048 };
    const problems = problemsOf(json);
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/environment "staging" generative\.targets: plan a different compile than dev, .*maxModelLen \d+ \(dev: \d+\)/),
    ]));
    // The later environments' 1,024-token prompts plan the measured row at its 4,096 tokens (no buckets of their own).
    expect(problems.join('\n')).toMatch(/override_neuron_config\.context_encoding_buckets (\[[\d,]+\]|unset) \(dev: \[[\d,]+\]\)/);
  });

  test('GIVEN a malformed vLLM image digest and an unknown field WHEN parsed THEN each is named with its fix', () => {
    const json = example();
    json.generativeImageDigest = 'latest';
    expect(problemsOf(json)).toEqual([expect.stringContaining('generativeImageDigest="latest" is not "sha256:" and 64 lowercase hex digits')]);
    const typo = example();
    typo.environments[0].generative!.targets.ttftMs = 100;
    expect(problemsOf(typo)).toEqual([expect.stringContaining('environments[0] (environment "dev").generative.targets: unknown field \'ttftMs\'')]);
  });
});
