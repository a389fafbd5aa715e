import * as z from 'zod/mini';
import { builtSchema } from './lazy-schema.js';

type AnyObjectSchema = z.ZodMiniObject<z.core.$ZodLooseShape, z.core.$ZodObjectConfig>;

/** Per object schema, its picks by the optional members an input has (their names joined). */
const picks = new WeakMap<AnyObjectSchema, Map<string, AnyObjectSchema>>();

/**
 * An optional member that adds nothing when its key is absent: `z.optional`
 * of anything but a default, whose parse of `undefined` returns `undefined`
 * without a look at the schema inside (zod's object output leaves the key out).
 */
function absentIsNothing(member: z.core.$ZodType): boolean {
  if (!(member instanceof z.ZodMiniOptional)) return false;
  const inner = (member._zod.def as { innerType: z.core.$ZodType }).innerType;
  return !(inner instanceof z.ZodMiniDefault || inner instanceof z.ZodMiniPrefault);
}

/**
 * The schema that parsing `input` needs: for an object schema (no checks of
 * its own), the same object with its required members and only the optional
 * ones `input` has (`key in input`, as zod reads them); anything else as is.
 * Parsing with it gives the same value and issues as the whole schema.
 *
 * Why: zod's object parse runs every member, and a `z.optional` member asks
 * the schema inside whether it accepts `undefined`, which builds a lazy one
 * (./lazy-schema.ts) even when the key is absent. Parsing createMemory's
 * options built every part's schemas (some 400) for an app that passed a
 * name; now a call builds what its input names.
 */
export function schemaForInput<S extends z.ZodMiniType>(schema: S, input: unknown): S {
  if (typeof input !== 'object' || input === null) return schema;
  const object = builtSchema(schema) as unknown as AnyObjectSchema;
  if (!(object instanceof z.ZodMiniObject) || (object._zod.def.checks?.length ?? 0) > 0) return schema;
  const shape = object._zod.def.shape;
  const mask: Record<string, true> = {};
  const present: string[] = [];
  let left = 0;
  for (const key of Object.keys(shape)) {
    if (!absentIsNothing(shape[key]!)) mask[key] = true;
    else if (key in input) {
      mask[key] = true;
      present.push(key);
    } else left++;
  }
  if (left === 0) return schema;
  let byPresent = picks.get(object);
  if (!byPresent) picks.set(object, (byPresent = new Map()));
  const signature = present.join('\u0000');
  let picked = byPresent.get(signature);
  if (!picked) byPresent.set(signature, (picked = z.pick(object, mask) as AnyObjectSchema));
  return picked as unknown as S;
}
