/**
 * zod schemas built on first use.
 *
 * zod is 95 modules. A schema built at module level loads them all with the file, so importing
 * `cdk-inferentia` or `cdk-inferentia/planner` would load zod though only parsing a file, a record or a hook's
 * settings needs it (no public type names zod). Every schema in `lib/` is therefore a {@link lazySchema}: zod is
 * required, and the schema built, the first time something parses; the schema is then kept, so every later parse
 * uses the same one. Files that only name zod's types import them with `import type`, which emits nothing.
 */
import type * as zod from 'zod';

/**
 * zod's `z` namespace, as a schema builder receives it.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export type Zod = typeof zod.z;

let loaded: Zod | undefined;

/**
 * zod's `z`, required on the first call.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export function loadZod(): Zod {
  // A static import would load zod with whichever entry imports this file; bundlers (esbuild for the Lambda
  // handlers) still follow a literal require.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= (require('zod') as typeof zod).z;
  return loaded;
}

/**
 * A schema built the first time it is asked for, then kept.
 *
 * @param build makes the schema from zod's `z`; it runs once, on the first call of the returned function
 * @returns a function returning the schema
 * @example
 * export const pointSchema = lazySchema((z) => z.strictObject({ x: z.number(), y: z.number() }));
 * pointSchema().safeParse(json);
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export function lazySchema<T>(build: (z: Zod) => T): () => T {
  let built: { readonly schema: T } | undefined;
  return () => {
    built ??= { schema: build(loadZod()) };
    return built.schema;
  };
}
