import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { builtSchema, lazySchema } from '../../src/schema/lazy-schema.js';
import { parseInput } from '../../src/schema/parse.js';
import { ValidationError } from '../../src/errors.js';

/**
 * Counts the zod schema objects built while `run` runs, through zod's
 * global post-processor hook (core.js calls `__zod_globalConfig.postProcessor`
 * once per schema it builds).
 */
async function schemasBuiltBy(run: () => Promise<unknown> | unknown): Promise<number> {
  const config = (globalThis as { __zod_globalConfig?: { postProcessor?: (schema: unknown) => void } }).__zod_globalConfig!;
  let built = 0;
  config.postProcessor = () => built++;
  try {
    await run();
  } finally {
    delete config.postProcessor;
  }
  return built;
}

describe('schemas built on first use', () => {
  afterEach(() => vi.resetModules());

  it("importing engram's page entry builds a few hundred zod schemas, not every method's (it built 1,314)", async () => {
    // The instrument counts: an eagerly built schema is seen.
    expect(await schemasBuiltBy(() => z.strictObject({ a: z.string() }))).toBe(3);
    vi.resetModules();
    const atImport = await schemasBuiltBy(() => import('../../src/index.js'));
    expect(atImport).toBeGreaterThan(0);
    expect(atImport).toBeLessThan(300);
  });

  it("a method's schema is built by its first call and reused by the next", async () => {
    vi.resetModules();
    const { recallOptions } = await import('../../src/operations/recall.js');
    const first = await schemasBuiltBy(() => parseInput(recallOptions, { k: 5 }, 'recall'));
    const second = await schemasBuiltBy(() => parseInput(recallOptions, { k: 7 }, 'recall'));
    // An option the first call did not pass is built by the first call that does (schema/present-members.ts).
    const third = await schemasBuiltBy(() => parseInput(recallOptions, { k: 7, types: ['fact'] }, 'recall'));
    const fourth = await schemasBuiltBy(() => parseInput(recallOptions, { k: 3, types: ['episode'] }, 'recall'));
    expect(first).toBeGreaterThan(20);
    expect(second).toBe(0);
    expect(third).toBeGreaterThan(0);
    expect(fourth).toBe(0);
  });

  it('parses exactly as the schema it builds: the same values, issues and paths', () => {
    const build = () => z.strictObject({ n: z.number().check(z.int(), z.gte(1)), tags: z._default(z.array(z.string()), []) });
    const eager = build();
    const lazy = lazySchema(build);
    for (const input of [{ n: 3 }, { n: 0 }, { n: 1.5, tags: ['a'] }, { n: 2, extra: true }, { tags: [1] }, null]) {
      expect(z.safeParse(lazy, input)).toEqual(z.safeParse(eager, input));
    }
    expect(() => parseInput(lazy, { n: 0 }, 'demo')).toThrow(new ValidationError('demo: n: Too small: expected number to be >=1', [{ path: 'n', message: 'Too small: expected number to be >=1' }]));
    // What needs the object itself (`z.extend`, `.shape`) gets the one it built.
    expect(builtSchema(lazy)).toBe(builtSchema(lazy));
    expect(Object.keys(builtSchema(lazy).shape)).toEqual(['n', 'tags']);
    expect(builtSchema(eager)).toBe(eager);
  });
});
