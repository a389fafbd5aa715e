import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { ValidationError } from '../../src/errors.js';
import { OPERATIONS } from '../../src/operations/table.js';
import { builtSchema, lazySchema } from '../../src/schema/lazy-schema.js';
import { memoryOptionsSchema } from '../../src/schema/memory-options.js';
import { parseInput } from '../../src/schema/parse.js';
import { safeParse } from '../../src/schema/safe-parse.js';
import { schemaForInput } from '../../src/schema/present-members.js';
import { formatContextOptionsSchema } from '../../src/recall/format-context.js';
import { openAICompatibleOptionsSchema } from '../../src/llm/openai-compatible.js';
import { httpProxyOptionsSchema } from '../../src/llm/http-proxy.js';
import { syncOptionsSchema } from '../../src/schema/sync-options.js';

/** Counts the zod schemas built while `run` runs (zod's global post-processor hook; see lazy-schemas.test.ts). */
function schemasBuiltBy(run: () => unknown): number {
  const config = (globalThis as { __zod_globalConfig?: { postProcessor?: (schema: unknown) => void } }).__zod_globalConfig!;
  let built = 0;
  config.postProcessor = () => built++;
  try {
    run();
  } finally {
    delete config.postProcessor;
  }
  return built;
}

const outcome = (result: z.core.util.SafeParseResult<unknown>) => (result.success ? { data: result.data } : { issues: result.error.issues });

/** Every public object schema parseInput is handed: createMemory's options, each operation's parameters, the helpers' options. */
const schemas: [string, z.ZodMiniType][] = [
  ['createMemory', memoryOptionsSchema],
  ['formatContext', formatContextOptionsSchema],
  ['openAICompatible', openAICompatibleOptionsSchema],
  ['httpProxy', httpProxyOptionsSchema],
  ['sync', syncOptionsSchema],
  ...OPERATIONS.flatMap((operation) => operation.input.map((param, i): [string, z.ZodMiniType] => [`${operation.method}[${i}]`, param.schema])),
];
const someValues = [undefined, null, 0, 1.5, 'x', '', [], {}, true, () => 1];

describe('an object schema parses with the members its input has', () => {
  it('gives the same value and issues as the whole schema, for every public input schema', () => {
    let objects = 0;
    for (const [where, schema] of schemas) {
      const shape = (builtSchema(schema) as unknown as { shape?: Record<string, unknown> }).shape;
      if (!shape) continue;
      objects++;
      const inputs: Record<string, unknown>[] = [{}, { notAnOption: 1 }];
      for (const key of Object.keys(shape)) for (const value of someValues) inputs.push({ [key]: value });
      for (const input of inputs) {
        expect(outcome(safeParse(schemaForInput(schema, input), input)), `${where} ${JSON.stringify(input)}`).toEqual(outcome(safeParse(schema, input)));
      }
    }
    expect(objects).toBeGreaterThan(30);
  });

  it("createMemory's options build what the app passes, not every part's schemas", () => {
    let partBuilds = 0;
    const fresh = () =>
      lazySchema(() => z.strictObject({ name: z.string(), part: z.optional(lazySchema(() => (partBuilds++, z.strictObject({ a: z.optional(z.string()) })))) }));
    // The whole schema builds an absent optional part: zod asks it whether it accepts undefined.
    safeParse(fresh(), { name: 'n' });
    expect(partBuilds).toBe(1);
    partBuilds = 0;
    const options = fresh();
    expect(parseInput(options, { name: 'n' }, 'demo', { copy: false })).toEqual({ name: 'n' });
    expect(partBuilds).toBe(0);
    expect(parseInput(options, { name: 'n', part: { a: 'x' } }, 'demo', { copy: false })).toEqual({ name: 'n', part: { a: 'x' } });
    expect(partBuilds).toBe(1);
  });

  it("createMemory's own options: an app passing a name and a progress listener builds a tenth of them (419 when every part was built)", async () => {
    vi.resetModules();
    const { memoryOptionsSchema: options } = await import('../../src/schema/memory-options.js');
    const { parseInput: parse } = await import('../../src/schema/parse.js');
    const first = schemasBuiltBy(() => parse(options, { name: 'app', onProgress: () => undefined }, 'createMemory', { copy: false }));
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(120);
    expect(schemasBuiltBy(() => parse(options, { name: 'app', extraction: { model: 'm' } }, 'createMemory', { copy: false }))).toBeGreaterThan(10);
  });

  it('keeps a default under an optional member, and an object with checks of its own, whole', () => {
    const defaulted = z.strictObject({ a: z.optional(z._default(z.number(), 7)), b: z.optional(z.string()) });
    expect(parseInput(defaulted, {}, 'demo')).toEqual({ a: 7 });
    const checked = z.strictObject({ a: z.optional(z.number()), b: z.optional(z.number()) }).check(z.refine((v) => v.a === undefined || v.b !== undefined, 'b goes with a'));
    expect(schemaForInput(checked, { a: 1 })).toBe(checked);
    expect(() => parseInput(checked, { a: 1 }, 'demo')).toThrow(ValidationError);
    const text = z.string();
    expect(schemaForInput(text, 'x')).toBe(text);
  });

  it('refuses, typed, an input whose `in` check throws or whose keys change between reads', () => {
    const schema = z.strictObject({ a: z.optional(z.string()), b: z.optional(z.number()) });
    const throwing = new Proxy({}, { has: () => { throw new Error('trap'); } });
    expect(() => parseInput(schema, throwing, 'demo', { copy: false })).toThrow(/demo: could not be read \(trap\)/);
    // `b` hidden from the member check, then listed and read: it is refused, never passed through unchecked.
    const shifting = new Proxy({ b: 'not a number' }, { has: (target, key) => key !== 'b' && key in target });
    expect(() => parseInput(schema, shifting, 'demo', { copy: false })).toThrow(/Unrecognized key: "b"/);
  });
});
