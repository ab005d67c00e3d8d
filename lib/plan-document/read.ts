/**
 * Reading a plan back: a `cdk-inferentia plan --json` document, a plan stored in CI, or a plan object handed to a
 * construct. One reader per plan kind checks the shape and the version and says what is wrong, field by field, with
 * the value received and the fix, instead of a `TypeError` deep inside a construct.
 *
 * Versions: every plan carries `planVersion` ({@link PLAN_VERSION}). A plan without it was written before plans carried
 * their version and is read as version 1, provided it has every field version 1 requires: what it lacks is named, and
 * the fix is to plan again. A plan of a newer version than this reader's is refused as such (upgrade, or plan again
 * with this version), never read field by field. Keys the reader does not know pass untouched, so plans from a
 * planner that added optional fields still read; the fields consumers use are checked strictly.
 */
import type { z } from 'zod';
import type { PlanForArtifact } from '../compile/check';
import type { GenerativePlanForArtifact } from '../compile/generative-spec';
import { InputError } from '../errors';
import type { GenerativePlan } from '../generative/types';
import { PLAN_VERSION, type Plan } from '../planner/types';
import { formatValue, valueAt } from '../profiles/schema';
import { generativePlanForArtifactSchema, generativePlanSchema } from './generative-schema';
import { planForArtifactSchema, singleCallPlanSchema } from './schema';

/** Options of the plan readers. */
export interface ReadPlanOptions {
  /**
   * Accept the whole document `cdk-inferentia plan --json` prints (`{ request, chosen, alternatives, rejected }`) and
   * read its `chosen`. Constructs turn it off: their `plan` prop is the plan itself.
   *
   * @default true
   */
  readonly document?: boolean;
}

/** Field problems listed before the rest are counted: a document of the wrong kind would otherwise list dozens. */
const MAX_LISTED = 12;

/** True for a generative plan (`kind: 'generative'`); a single-call plan has no kind. */
export function isGenerativePlan(plan: Plan | GenerativePlan): plan is GenerativePlan {
  return (plan as { kind?: unknown }).kind === 'generative';
}

/**
 * A plan of either kind, checked: a single-call `Plan` or a `GenerativePlan` (told apart by `kind`).
 *
 * @param json the parsed JSON: a `plan --json` document (its `chosen` is read) or a bare plan
 * @param origin how messages name the plan: a property name such as `plan` (giving `plan.instanceCount: ...`) or a
 *   label such as `--plan plan.json` (giving `--plan plan.json: chosen.instanceCount: ...`)
 * @returns the plan object itself (not a copy), typed
 * @throws InputError listing every problem: field path, value received, what is expected, and how to get a valid plan
 * @see docs/plan-documents.md
 */
export function readPlan(json: unknown, origin: string, options: ReadPlanOptions = {}): Plan | GenerativePlan {
  const { plan, path } = unwrap(json, origin, options);
  return kindOf(plan) === 'generative' ? check(plan, origin, path, 'generative') : check(plan, origin, path, 'single-call');
}

/**
 * A single-call plan (`plan()`, or `cdk-inferentia plan --json` of a single-call model), checked.
 *
 * @throws InputError as {@link readPlan}, and for a generative plan, naming the kind and the fix
 */
export function readSingleCallPlan(json: unknown, origin: string, options: ReadPlanOptions = {}): Plan {
  const { plan, path } = unwrap(json, origin, options);
  return check(plan, origin, path, 'single-call');
}

/**
 * A generative plan (`planGenerative()`, or `cdk-inferentia plan --json` of a generative model), checked.
 *
 * @throws InputError as {@link readPlan}, and for a single-call plan, naming the kind and the fix
 */
export function readGenerativePlan(json: unknown, origin: string, options: ReadPlanOptions = {}): GenerativePlan {
  const { plan, path } = unwrap(json, origin, options);
  return check(plan, origin, path, 'generative');
}

/**
 * What a compile job reads of a single-call plan (instance type and family, core version, cores per process, batch),
 * checked; the rest of a full plan may be there or not.
 *
 * @throws InputError naming each missing or invalid field
 */
export function readPlanForArtifact(json: unknown, origin: string): PlanForArtifact {
  return checkShape(json, origin, [], planForArtifactSchema()) as PlanForArtifact;
}

/**
 * What a compile job reads of a generative plan (instance type and family, engine settings), checked.
 *
 * @throws InputError naming each missing or invalid field
 */
export function readGenerativePlanForArtifact(json: unknown, origin: string): GenerativePlanForArtifact {
  return checkShape(json, origin, [], generativePlanForArtifactSchema()) as GenerativePlanForArtifact;
}

type Kind = 'single-call' | 'generative';

/** The plan in `json` and its path in the document: `chosen` of a `plan --json` document, or the object itself. */
function unwrap(json: unknown, origin: string, options: ReadPlanOptions): { plan: unknown; path: PropertyKey[] } {
  if (!isObject(json) || !('chosen' in json)) {
    return { plan: json, path: [] };
  }
  if (options.document === false) {
    throw new InputError(`${origin}: this is a whole \`cdk-inferentia plan --json\` document ({ request, chosen, ... }), not a plan; `
      + 'pass its `chosen` (readPlan(document, origin) reads and checks it)');
  }
  if (json.chosen === null) {
    throw new InputError(`${origin}: the document holds no plan (chosen is null: no candidate met the targets, its reasons say why); `
      + 'plan again with targets a candidate meets');
  }
  return { plan: json.chosen, path: ['chosen'] };
}

function kindOf(plan: unknown): Kind {
  return isObject(plan) && plan.kind === 'generative' ? 'generative' : 'single-call';
}

function check<K extends Kind>(plan: unknown, origin: string, path: PropertyKey[], kind: K):
K extends 'generative' ? GenerativePlan : Plan {
  if (!isObject(plan)) {
    throw new InputError(`${where(origin, path)}: expected a plan object (what plan() or planGenerative() returns, the \`chosen\` `
      + `of \`cdk-inferentia plan --json\`), got ${formatValue(plan)}`);
  }
  kindProblem(plan, origin, path, kind);
  versionProblem(plan, origin, path);
  checkShape(plan, origin, path, kind === 'generative' ? generativePlanSchema() : singleCallPlanSchema());
  const crossField = kind === 'generative' ? generativeProblems(plan as unknown as GenerativePlan) : singleCallProblems(plan as unknown as Plan);
  if (crossField.length > 0) {
    throw new InputError([...crossField.map((p) => `${where(origin, path)}: ${p}`), fix(origin)]);
  }
  return plan as unknown as K extends 'generative' ? GenerativePlan : Plan;
}

/** A plan of the other kind is one problem, said as such, not a field-by-field refusal of the rest. */
function kindProblem(plan: Record<string, unknown>, origin: string, path: PropertyKey[], kind: Kind): void {
  const at = where(origin, path);
  if (plan.kind !== undefined && plan.kind !== 'generative') {
    throw new InputError(`${where(origin, [...path, 'kind'])}: ${formatValue(plan.kind)} is not a plan kind; generative plans say `
      + '"kind": "generative", single-call plans have no kind');
  }
  if (kind === 'generative' && plan.kind !== 'generative') {
    throw new InputError(`${at}: a single-call plan (no "kind": "generative"${'processesPerInstance' in plan ? '; it has processesPerInstance' : ''}) `
      + 'where a generative plan is expected: plan the generative model (planGenerative(), or `cdk-inferentia plan` with a generative '
      + 'profile), or deploy this plan with the single-call constructs (NeuronSageMakerEndpoint, NeuronEcsService)');
  }
  if (kind === 'single-call' && plan.kind === 'generative') {
    throw new InputError(`${at}: a generative plan (planned in tokens) where a single-call plan is expected: deploy it with the `
      + 'generative constructs (NeuronGenerativeEndpoint, NeuronGenerativeEcsService), or plan the single-call model (plan())');
  }
}

function versionProblem(plan: Record<string, unknown>, origin: string, path: PropertyKey[]): void {
  const version = plan.planVersion;
  if (version === undefined) {
    return;
  }
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new InputError(`${where(origin, [...path, 'planVersion'])}: expected a whole number >= 1, got ${formatValue(version)}; `
      + `plans this version of cdk-inferentia writes say ${PLAN_VERSION}: plan again`);
  }
  if (version > PLAN_VERSION) {
    throw new InputError(`${where(origin, [...path, 'planVersion'])}: ${version} is newer than this version of cdk-inferentia reads `
      + `(${PLAN_VERSION}); upgrade cdk-inferentia to the version that wrote the plan, or plan again with this one `
      + '(`cdk-inferentia plan ... --json`, or plan()/planGenerative() in code)');
  }
}

/** Checks `json` against `schema`; returns it, or throws every problem with the fix. */
function checkShape(json: unknown, origin: string, path: PropertyKey[], schema: z.ZodType): unknown {
  const result = schema.safeParse(json);
  if (result.success) {
    return json;
  }
  const problems = result.error.issues.map((issue) => {
    const at = where(origin, [...path, ...issue.path]);
    return issue.path.length === 0 ? `${at}: ${issue.message}, got ${formatValue(json)}`
      : `${at}: ${issue.message}, got ${formatValue(valueAt(json, issue.path))}`;
  });
  const listed = problems.length > MAX_LISTED
    ? [...problems.slice(0, MAX_LISTED), `${where(origin, path)}: and ${problems.length - MAX_LISTED} more problems of the same kind`]
    : problems;
  throw new InputError([...listed, fix(origin)]);
}

/** The fix every shape problem shares. */
function fix(origin: string): string {
  return `${origin}: not a plan this version of cdk-inferentia writes (planVersion ${PLAN_VERSION}); plan again with it: `
    + '`cdk-inferentia plan ... --json` (pass its `chosen`), or plan()/planGenerative() in code';
}

/** Counts and names that must agree with each other in a single-call plan. */
function singleCallProblems(plan: Plan): string[] {
  const problems = [...deploymentProblems(plan)];
  for (const field of ['processes', 'visibleCores'] as const) {
    if (plan[field].length !== plan.processesPerInstance) {
      problems.push(`${field} has ${plan[field].length} entries but processesPerInstance is ${plan.processesPerInstance}; one entry per process`);
    }
  }
  if ((plan.batching !== null) !== (plan.serving === 'batching')) {
    problems.push(`batching=${formatValue(plan.batching)} does not fit serving=${JSON.stringify(plan.serving)}: a batching plan has `
      + 'its batch settings, a stock plan has null');
  }
  return problems;
}

/** Counts that must agree with each other in a generative plan. */
function generativeProblems(plan: GenerativePlan): string[] {
  const problems = [...deploymentProblems(plan)];
  const g = plan.generative;
  if (g.replicas.length !== g.replicasPerInstance) {
    problems.push(`generative.replicas has ${g.replicas.length} entries but generative.replicasPerInstance is ${g.replicasPerInstance}`);
  }
  const pairs = [
    ['tensorParallelSize', g.engine.tensorParallelSize, 'tensorParallelDegree', g.tensorParallelDegree],
    ['maxNumSeqs', g.engine.maxNumSeqs, 'maxConcurrentSequences', g.maxConcurrentSequences],
    ['maxModelLen', g.engine.maxModelLen, 'maxModelLength', g.maxModelLength],
  ] as const;
  for (const [engineField, engineValue, field, value] of pairs) {
    if (engineValue !== value) {
      problems.push(`generative.engine.${engineField}=${engineValue} is not generative.${field}=${value}; the engine runs what was planned`);
    }
  }
  return problems;
}

/** What both kinds must agree on: the count range, and the instance type against the hosting and the hardware. */
function deploymentProblems(plan: Plan | GenerativePlan): string[] {
  const problems: string[] = [];
  if (plan.maxInstanceCount < plan.instanceCount) {
    problems.push(`maxInstanceCount=${plan.maxInstanceCount} is below instanceCount=${plan.instanceCount}`);
  }
  const sageMaker = plan.instanceType.startsWith('ml.');
  if (sageMaker !== (plan.hosting === 'sagemaker')) {
    problems.push(`instanceType=${JSON.stringify(plan.instanceType)} does not fit hosting=${JSON.stringify(plan.hosting)}: SageMaker `
      + "names instance types with 'ml.', EC2 without");
  }
  const ec2 = sageMaker ? plan.instanceType.slice(3) : plan.instanceType;
  if (ec2 !== plan.instance.name) {
    problems.push(`instanceType=${JSON.stringify(plan.instanceType)} is not the instance described, instance.name=${JSON.stringify(plan.instance.name)}`);
  }
  return problems;
}

/** `plan` + `generative.engine` -> `plan.generative.engine`; `f.json` + `chosen.x` -> `f.json: chosen.x`. */
function where(origin: string, path: readonly PropertyKey[]): string {
  const rendered = path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i > 0 ? '.' : ''}${String(key)}`)).join('');
  if (rendered === '') {
    return origin;
  }
  return /^[A-Za-z_$][\w$]*$/.test(origin) ? `${origin}${rendered.startsWith('[') ? '' : '.'}${rendered}` : `${origin}: ${rendered}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
