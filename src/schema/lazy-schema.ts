import * as z from 'zod/mini';

/**
 * A schema that zod builds the first time something parses with it, not
 * when its module evaluates. Building a zod schema costs one object per
 * node, each initialised by zod with its methods bound; engram's page entry
 * imports every public method's schemas, and building them all at import
 * was most of the page's start-up work (docs/benchmarks.md, "The page's
 * start long task"). Parsing through it is the built schema's own parse:
 * the same result, issues and paths. zod builds it once (ZodLazy caches it).
 * Marked free of side effects, as zod marks its own builders, so that a
 * bundler drops the schemas an app's code never reaches.
 */
/* @__NO_SIDE_EFFECTS__ */
export function lazySchema<T extends z.ZodMiniType>(build: () => T): z.ZodMiniLazy<T> {
  return z.lazy(build);
}

/**
 * The schema itself, built now if it is a lazy one: for what needs the
 * object (`z.extend`, `z.pick`, `.shape`), called inside another
 * `lazySchema` builder so that nothing is built at import.
 */
export function builtSchema<T extends z.ZodMiniType>(schema: T | z.ZodMiniLazy<T>): T {
  return schema instanceof z.ZodMiniLazy ? (schema as z.ZodMiniLazy<T>)._zod.innerType : (schema as T);
}
