/**
 * Which constructs this package made, so its policy rules and acknowledgements reach only those: a user's own
 * repository or role is the user's to check and to acknowledge.
 *
 * A global symbol, not a class or a WeakSet, so two loaded copies of the package agree.
 */
import type { IConstruct } from 'constructs';

const OWNED = Symbol.for('cdk-inferentia.owned');

/** Marks `scope` and everything that will be created under it as made by this package. */
export function markOwned(scope: IConstruct): void {
  Object.defineProperty(scope, OWNED, { value: true, enumerable: false });
}

/** Whether `node` is, or lies under, a construct this package made. */
export function isOwned(node: IConstruct): boolean {
  return node.node.scopes.some((s) => (s as unknown as Record<symbol, unknown>)[OWNED] === true);
}
