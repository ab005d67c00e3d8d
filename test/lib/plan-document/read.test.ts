import { InputError } from '../../../lib/errors';
import {
  readGenerativePlan, readGenerativePlanForArtifact, readPlan, readPlanForArtifact, readSingleCallPlan,
} from '../../../lib/plan-document';
import { plan, PLAN_VERSION, type Plan } from '../../../lib/planner';
import { requireProfile } from '../../../lib/profiles';
import { handWrittenGenerativePlan } from '../../support/generative-plan';
import { inputError } from '../../support/input-error';

const SINGLE = plan(requireProfile('bert-base-uncased'), { throughputRps: 200, p99Ms: 50 }, { region: 'us-east-1', hosting: 'sagemaker' });
const GENERATIVE = handWrittenGenerativePlan();
/** What every shape problem ends with. */
const FIX = (origin: string) => `${origin}: not a plan this version of cdk-inferentia writes (planVersion ${PLAN_VERSION}); plan again `
  + 'with it: `cdk-inferentia plan ... --json` (pass its `chosen`), or plan()/planGenerative() in code';

/** The value through JSON, as a file or CI artifact gives it back. */
const roundTrip = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('Reading a plan back', () => {
  test('GIVEN a plan the planner wrote THEN it carries the current version and reads back as itself, not a copy', () => {
    // GIVEN
    const json = roundTrip(SINGLE);
    // THEN
    expect(SINGLE.planVersion).toBe(PLAN_VERSION);
    expect(readSingleCallPlan(json, 'plan')).toBe(json);
    expect(readPlan(json, 'plan')).toBe(json);
  });

  test('GIVEN a generative plan written before plans carried a version THEN it reads as version 1', () => {
    // GIVEN the hand-written plan has no planVersion
    expect(GENERATIVE.planVersion).toBeUndefined();
    // THEN
    expect(readGenerativePlan(roundTrip(GENERATIVE), 'plan')).toEqual(GENERATIVE);
  });

  test('GIVEN a `plan --json` document THEN its chosen plan is read; a construct (document: false) refuses the document', () => {
    // GIVEN
    const document = roundTrip({ request: {}, chosen: SINGLE, alternatives: [], rejected: [] });
    // THEN
    expect(readPlan(document, '--plan plan.json')).toBe(document.chosen);
    expect(inputError(() => readSingleCallPlan(document, 'plan', { document: false })).message).toBe('plan: this is a whole '
      + '`cdk-inferentia plan --json` document ({ request, chosen, ... }), not a plan; pass its `chosen` (readPlan(document, origin) '
      + 'reads and checks it)');
    expect(inputError(() => readPlan({ chosen: null, reasons: [] }, '--plan none.json')).message).toMatch(
      /^--plan none\.json: the document holds no plan \(chosen is null/);
  });

  test('GIVEN fields added by a newer planner as optional THEN the plan still reads', () => {
    // GIVEN keys this reader does not know, at the top and inside the generative part (sensitivity, evidence)
    const newer = { ...GENERATIVE, sensitivity: [{ lever: 'fp8' }],
      generative: { ...GENERATIVE.generative, evidence: { rows: 3 }, sensitivity: [] } };
    // THEN
    expect(readGenerativePlan(newer, 'plan')).toBe(newer);
  });
});

describe('A plan made from a traffic file', () => {
  /** 60 ascending points, as `plan --lengths-from` writes for a length or the gaps. */
  const table = (scale: number) => Array.from({ length: 60 }, (_, i) => scale * (1 + i));
  const empirical = (mean: number, p99: number) => ({
    spread: 'empirical' as const, mean, p99, mu: Math.log(mean), sigma: 0.5, scv: 0.6, quantiles: table(mean / 30), source: 'gateway.jsonl',
  });
  const lengths = { input: empirical(900, 3000), output: empirical(180, 600), correlation: 0.2, totalP99: 3400 };
  const arrivals = { scv: 3, source: 'gateway.jsonl: 12,000 arrival times', gapQuantiles: table(0.03) };
  const fromTraffic = {
    ...GENERATIVE, targets: { ...GENERATIVE.targets, workload: 'chat', lengths, arrivals }, generative: { ...GENERATIVE.generative, lengths },
  };

  test('GIVEN the file\'s quantile tables, correlation and arrivals THEN the plan reads', () => {
    expect(readGenerativePlan(roundTrip(fromTraffic), 'plan')).toEqual(fromTraffic);
  });

  test('GIVEN a table short of a point, a correlation above 1 or an unknown preset THEN each is named', () => {
    const broken = {
      ...fromTraffic,
      targets: { ...fromTraffic.targets, workload: 'batch', arrivals: { ...arrivals, gapQuantiles: table(0.03).slice(1) } },
      generative: { ...fromTraffic.generative, lengths: { ...lengths, correlation: 1.5 } },
    };
    const problems = inputError(() => readGenerativePlan(broken, 'plan')).problems.join('\n');
    expect(problems).toMatch(/plan\.targets\.workload: expected one of 'chat', 'code'/);
    expect(problems).toMatch(/plan\.targets\.arrivals\.gapQuantiles: expected 60 numbers >= 0, one per QUANTILE_PROBABILITIES point, ascending/);
    expect(problems).toMatch(/plan\.generative\.lengths\.correlation: expected a correlation from -1 to 1/);
  });
});

describe('A plan with fallback pools', () => {
  test('GIVEN a pool that lacks what a hosting deploys THEN each missing field of the pool is named, with the pool\'s index', () => {
    const problems = inputError(() => readGenerativePlan({ ...GENERATIVE, fallbacks: [{ priority: 2, instanceType: 'ml.inf2.24xlarge' }] }, 'plan')).message;
    for (const field of ['chip', 'instanceCount', 'layout', 'capacity', 'plan']) {
      expect(problems).toContain(`plan.fallbacks[0].${field}: `);
    }
  });
});

describe('A plan that cannot be read', () => {
  test('GIVEN a plan with EAGLE3 speculation, its evidence, sensitivity and an empirical length table THEN it reads back; an unknown draft method is named', () => {
    // GIVEN what the planner writes for a speculative plan on Trn2 planned from a file's lengths
    const g = GENERATIVE.generative;
    const table = Array.from({ length: 60 }, (_, i) => 100 + i);
    const speculative = roundTrip({
      ...GENERATIVE,
      generative: {
        ...g,
        lengths: {
          input: { spread: 'empirical', mean: 130, p99: 159, mu: 4.86, sigma: 0.1, scv: 0.01, quantiles: table, source: 'requests.csv' },
          output: { spread: 'fixed', mean: 256, p99: 256, mu: 5.55, sigma: 0, scv: 0, source: 'fixed' },
        },
        engine: { ...g.engine, levers: { speculation: {
          draft: { id: 'eagle3', huggingFaceId: 'RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3', parametersBillions: 0.95, acceptedTokens: 3.22,
            source: 'tutorial', method: 'eagle3', stepCost: 0.32 },
          speculativeTokens: 3, acceptedTokens: 3.22,
        } } },
        evidence: { basis: 'measured', nearest: [], headroom: { tpot: 1, ttft: 1, class: 'measured', heldOutRows: 0, quantile: 0 },
          levers: { speculation: { source: 'EAGLE3 tutorial', measured: true } } },
        sensitivity: { stepSlowdownToMissTarget: 1.31, acceptedTokensToMissTarget: 2.1 },
        lengthCut: { requestedLength: 4407, measuredLength: 4096, cutShare: 0.008, source: 'row' },
      },
    });
    // THEN
    expect(readGenerativePlan(speculative, 'plan')).toBe(speculative);
    const broken = roundTrip(speculative);
    (broken.generative.engine.levers!.speculation!.draft as { method: string }).method = 'medusa';
    expect(inputError(() => readGenerativePlan(broken, 'plan')).problems[0])
      .toBe("plan.generative.engine.levers.speculation.draft.method: expected one of 'fused', 'eagle3', got \"medusa\"");
  });

  test('GIVEN a newer planVersion THEN it is refused as such, naming both versions and the fix', () => {
    expect(inputError(() => readGenerativePlan({ ...GENERATIVE, planVersion: PLAN_VERSION + 1 }, 'plan')).problems).toEqual([
      `plan.planVersion: ${PLAN_VERSION + 1} is newer than this version of cdk-inferentia reads (${PLAN_VERSION}); upgrade `
        + 'cdk-inferentia to the version that wrote the plan, or plan again with this one (`cdk-inferentia plan ... --json`, or '
        + 'plan()/planGenerative() in code)',
    ]);
    expect(inputError(() => readPlan({ ...SINGLE, planVersion: 1.5 }, 'plan')).message).toMatch(/^plan\.planVersion: expected a whole number >= 1, got 1\.5/);
  });

  test('GIVEN a generative plan without its engine (the `levers` TypeError) THEN the field, the value and the fix are named', () => {
    // GIVEN
    const broken = { ...GENERATIVE, generative: { ...GENERATIVE.generative, engine: undefined } };
    // THEN
    expect(inputError(() => readGenerativePlan(broken, 'plan')).problems).toEqual([
      'plan.generative.engine: expected an object, got nothing (the field is missing)',
      FIX('plan'),
    ]);
  });

  test('GIVEN a file label THEN paths read as `label: chosen.field`, every problem at once', () => {
    // GIVEN
    const document = { chosen: { ...roundTrip(SINGLE), instanceCount: 0, serving: 'fast' } };
    // THEN
    expect(inputError(() => readPlan(document, '--plan plan.json')).problems).toEqual([
      '--plan plan.json: chosen.instanceCount: expected a positive integer, got 0',
      "--plan plan.json: chosen.serving: expected one of 'stock', 'batching', got \"fast\"",
      FIX('--plan plan.json'),
    ]);
  });

  test('GIVEN a plan of the other kind THEN one problem names the kind and where each kind goes', () => {
    expect(inputError(() => readGenerativePlan(SINGLE, 'plan')).message).toMatch(
      /^plan: a single-call plan \(no "kind": "generative"; it has processesPerInstance\) where a generative plan is expected: .*NeuronSageMakerEndpoint/);
    expect(inputError(() => readSingleCallPlan(GENERATIVE, 'plan')).message).toMatch(
      /^plan: a generative plan \(planned in tokens\) where a single-call plan is expected: .*NeuronGenerativeEndpoint/);
    expect(inputError(() => readPlan({ ...GENERATIVE, kind: 'generativ' }, 'plan')).message).toBe(
      'plan.kind: "generativ" is not a plan kind; generative plans say "kind": "generative", single-call plans have no kind');
  });

  test('GIVEN something not an object, or an object missing most fields THEN the list stays short', () => {
    expect(inputError(() => readPlan('hello', 'plan')).message).toMatch(/^plan: expected a plan object .*got "hello"$/);
    const problems = inputError(() => readPlan({ profileId: 'x' }, 'plan')).problems;
    expect(problems).toHaveLength(14);
    expect(problems[12]).toBe('plan: and 24 more problems of the same kind');
  });

  test('GIVEN counts that contradict each other THEN each contradiction is named', () => {
    // GIVEN a generative plan whose engine runs another degree than planned, and one replica short
    const generative = { ...GENERATIVE.generative, tensorParallelDegree: 4, replicas: GENERATIVE.generative.replicas.slice(1) };
    // AND a single-call plan on EC2 with a SageMaker instance name and a batching mode without its batch
    const single: Plan = { ...SINGLE, hosting: 'ec2', serving: 'batching', batching: null };
    // THEN
    expect(inputError(() => readGenerativePlan({ ...GENERATIVE, generative }, 'plan')).problems).toEqual([
      'plan: generative.replicas has 2 entries but generative.replicasPerInstance is 3',
      'plan: generative.engine.tensorParallelSize=8 is not generative.tensorParallelDegree=4; the engine runs what was planned',
      FIX('plan'),
    ]);
    expect(inputError(() => readSingleCallPlan(single, 'plan')).problems.slice(0, 2)).toEqual([
      `plan: instanceType="${SINGLE.instanceType}" does not fit hosting="ec2": SageMaker names instance types with 'ml.', EC2 without`,
      'plan: batching=null does not fit serving="batching": a batching plan has its batch settings, a stock plan has null',
    ]);
  });
});

describe('What a compile job reads of a plan', () => {
  test('GIVEN a full plan or just the fields a compile job reads THEN both read; a missing engine is named', () => {
    expect(readPlanForArtifact(SINGLE, 'plan')).toBe(SINGLE);
    const subset = { instanceType: 'ml.inf2.48xlarge', instance: { family: 'inf2' }, generative: { engine: GENERATIVE.generative.engine } };
    expect(readGenerativePlanForArtifact(subset, 'plan')).toBe(subset);
    expect(() => readGenerativePlanForArtifact({ ...subset, generative: {} }, 'plan')).toThrow(InputError);
    expect(inputError(() => readGenerativePlanForArtifact({ ...subset, generative: {} }, 'plan')).problems[0])
      .toBe('plan.generative.engine: expected an object, got nothing (the field is missing)');
  });
});
