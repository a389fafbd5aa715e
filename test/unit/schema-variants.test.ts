import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { episodeInputSchema, episodePatchSchema, episodeRecordSchema } from '../../src/schema/episode.js';
import { factInputSchema, factPatchSchema, factRecordSchema } from '../../src/schema/fact.js';
import { turnInputSchema, turnRecordSchema } from '../../src/schema/turn.js';
import { builtSchema } from '../../src/schema/lazy-schema.js';

type Shape = Record<string, z.ZodMiniType>;
const shapeOf = (schema: z.ZodMiniType): Shape => (builtSchema(schema) as unknown as { shape: Shape }).shape;
/** The schema under `optional(...)`, which `z.partial` wraps each field in. */
const unwrapOptional = (schema: z.ZodMiniType): z.ZodMiniType => {
  const def = schema._zod.def as { type: string; innerType?: z.ZodMiniType };
  return def.type === 'optional' ? def.innerType! : schema;
};

/**
 * The input and patch schemas are derived from the record schema (zod's
 * pick/partial/extend), so a rule changed on a stored field reaches what
 * `add` and `update` accept. Fields the app writes differently from how they
 * are stored (text with length limits, pre-computed embeddings) are the only
 * ones declared apart.
 */
const variants = [
  { kind: 'fact', record: factRecordSchema, input: factInputSchema, patch: factPatchSchema, apart: ['text', 'embedding'] },
  {
    kind: 'episode',
    record: episodeRecordSchema,
    input: episodeInputSchema,
    patch: episodePatchSchema,
    apart: ['text', 'goal', 'context', 'approach', 'outcome', 'lessons'],
  },
  { kind: 'turn', record: turnRecordSchema, input: turnInputSchema, patch: undefined, apart: ['speaker', 'text', 'embedding'] },
];

describe('record, input and patch schemas', () => {
  for (const { kind, record, input, patch, apart } of variants) {
    it(`a ${kind}'s input and patch fields are the record's own schemas`, () => {
      const stored = shapeOf(record);
      for (const variant of [input, patch]) {
        if (!variant) continue;
        const fields = Object.entries(shapeOf(variant)).filter(([name]) => !apart.includes(name));
        expect(fields.length).toBeGreaterThan(3);
        for (const [name, schema] of fields) expect(unwrapOptional(schema), `${kind} ${name}`).toBe(stored[name]);
      }
    });

    it(`a ${kind}'s input refuses identity and bookkeeping fields that engram sets`, () => {
      const owned = ['type', 'updatedAt', 'lastAccessedAt'].filter((name) => name in shapeOf(record));
      expect(owned.length).toBe(3);
      for (const name of owned) expect(name in shapeOf(input), name).toBe(false);
      if (patch) for (const name of [...owned, 'id', 'userId', 'createdAt']) expect(name in shapeOf(patch), name).toBe(false);
    });
  }

  it('an unknown field is refused by every input and patch schema', () => {
    expect(factInputSchema.safeParse({ text: 'x', colour: 'red' }).success).toBe(false);
    expect(factPatchSchema.safeParse({ colour: 'red' }).success).toBe(false);
    expect(episodeInputSchema.safeParse({ text: 'x', colour: 'red' }).success).toBe(false);
    expect(episodePatchSchema.safeParse({ colour: 'red' }).success).toBe(false);
    expect(turnInputSchema.safeParse({ speaker: 'user', text: 'x', colour: 'red' }).success).toBe(false);
  });
});
