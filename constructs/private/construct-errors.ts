/**
 * Errors a construct raises about its props name the construct's path, as aws-cdk-lib's validation errors do
 * (`ValidationError.constructPath`), and put it in front of the message, which is what `cdk synth` and the example
 * apps print: with two endpoints in a stack, the message says which one refused.
 *
 * aws-cdk-lib's own `ValidationError` is not used: in 2.276 it is marked `@internal` (its constructor takes a branded
 * error-code type), and this library's errors are `InputError`s with every problem listed, which the CLI and the
 * tests read. The shape is the same: the path is the error's `constructPath`.
 */
import type { IConstruct } from 'constructs';
import { InputError } from '../../lib/errors';
import type { GenerativePlan } from '../../lib/generative/types';
import { readGenerativePlan, readPlan, readSingleCallPlan } from '../../lib/plan-document/read';
import type { Plan } from '../../lib/planner/types';

/** Throws one `InputError` naming `scope`'s path and every problem, when there is any. */
export function throwIfProblems(scope: IConstruct, problems: readonly string[]): void {
  InputError.throwIfAny(problems, { constructPath: scope.node.path });
}

/** An `InputError` raised by `scope`. */
export function constructError(scope: IConstruct, problems: readonly string[] | string): InputError {
  return new InputError(problems, { constructPath: scope.node.path });
}

/**
 * Runs `fn` for `scope`: an `InputError` it throws that names no construct yet (from a planner function, a binding,
 * a check in lib/) is thrown again naming `scope`'s path.
 */
export function within<T>(scope: IConstruct, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw e instanceof InputError ? InputError.at(scope.node.path, e) : e;
  }
}

/**
 * The single-call plan a construct was given as `prop` (default `plan`), checked before anything reads it
 * (`readSingleCallPlan`): a plan of the wrong shape, kind or version is refused naming the construct, the field, the
 * value and the fix, instead of a `TypeError` from deep inside the construct.
 */
export function singleCallPlanOf(scope: IConstruct, plan: Plan, prop = 'plan'): Plan {
  return within(scope, () => readSingleCallPlan(plan, prop, { document: false }));
}

/** The generative plan a construct was given, checked as {@link singleCallPlanOf} checks a single-call one. */
export function generativePlanOf(scope: IConstruct, plan: GenerativePlan, prop = 'plan'): GenerativePlan {
  return within(scope, () => readGenerativePlan(plan, prop, { document: false }));
}

/** A plan of either kind a construct was given, checked. */
export function anyPlanOf(scope: IConstruct, plan: Plan | GenerativePlan, prop = 'plan'): Plan | GenerativePlan {
  return within(scope, () => readPlan(plan, prop, { document: false }));
}
