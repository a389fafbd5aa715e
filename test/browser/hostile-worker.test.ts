import { describe, expect, it } from 'vitest';
import { useDemoInChromium } from '../support/demo-in-chromium.js';
import { nonLocalHosts, watchPage } from '../support/browser.js';
import { openTestMemory, waitDemoReady, withTestMemory } from '../support/test-memory-page.js';

const demo = useDemoInChromium();

type Outcome = { call: string; ok: true; value: unknown } | { call: string; ok: false; name: string; code: unknown; message: string };

/**
 * Hostile values through createMemory()'s default worker mode in Chromium
 * (issue 20, item 2): Proxies, getters that change after validation, arrays
 * with a function property. Each call either rejects with a typed
 * EngramError, or succeeds and stores the validated value; none may fail
 * with a DataCloneError from postMessage.
 */
describe('hostile values on the worker path (Chromium)', () => {
  it('Proxies, changing getters and function properties give a typed error or store the validated value, never DataCloneError', async () => {
    const context = await demo.browser.newContext();
    const page = await context.newPage();
    const watch = watchPage(page);
    await page.goto(demo.url);
    await waitDemoReady(page);
    await openTestMemory(page, { name: `hostile-worker-${Date.now()}` });

    const outcomes = await withTestMemory(page, async (memory) => {
      const { dimension } = (await memory.info()).embedder;
      const results: Outcome[] = [];
      const attempt = async (call: string, run: () => Promise<unknown>) => {
        try {
          results.push({ call, ok: true, value: await run() });
        } catch (error) {
          const e = error as { name?: string; code?: unknown; message?: string };
          results.push({ call, ok: false, name: String(e?.name), code: e?.code, message: String(e?.message).slice(0, 300) });
        }
      };
      /** Reads as `first` once per index, NaN after. */
      const changingVector = () => {
        const read = new Set<string>();
        return new Proxy(Array.from({ length: dimension }, (_, i) => (i === 0 ? 3 : i === 1 ? 4 : 0)), {
          get(target, key, receiver) {
            if (typeof key === 'string' && /^\d+$/.test(key)) {
              if (read.has(key)) return NaN;
              read.add(key);
            }
            return Reflect.get(target, key, receiver);
          },
        });
      };
      const changing = (key: string, first: unknown, later: unknown) => {
        let reads = 0;
        return Object.defineProperty({}, key, { enumerable: true, get: () => (reads++ === 0 ? first : later) });
      };
      const plainVector = Array.from({ length: dimension }, (_, i) => (i === 0 ? 3 : i === 1 ? 4 : 0));

      await attempt('facts.add: Proxy embedding', async () => {
        const fact = await memory.facts.add({ userId: 'hostile', text: 'The user hands engram a proxy', embedding: changingVector() });
        const [hit] = await memory.recall('proxy', { userId: 'hostile', embedding: plainVector, touch: false });
        return { id: hit?.memory.id === fact.id, finite: Number.isFinite(hit?.score) };
      });
      await attempt('facts.add: embedding array with a function property', async () => {
        const embedding = Object.assign(plainVector.slice(), { extra: () => 'not data' });
        const tags = Object.assign(['decorated'], { extra: () => 'not data' });
        const fact = await memory.facts.add({ userId: 'hostile', text: 'The user decorates arrays', embedding, tags });
        return (await memory.facts.get(fact.id)).tags;
      });
      await attempt('facts.add: metadata getter that becomes a BigInt', async () => {
        const fact = await memory.facts.add({ userId: 'hostile', text: 'The user has a changing getter', metadata: { nested: changing('count', 1, 10n) } });
        return (await memory.facts.get(fact.id)).metadata;
      });
      await attempt('facts.add: metadata getter that grows to 5,000,014 characters', async () => {
        const fact = await memory.facts.add({ userId: 'hostile', text: 'The user has a growing getter', metadata: changing('note', 'short', 'x'.repeat(5_000_014)) });
        return (await memory.facts.get(fact.id)).metadata;
      });
      await attempt('facts.add: whole input is a Proxy', async () => {
        const input = new Proxy({ userId: 'hostile', text: 'The user is a proxy' }, {});
        return (await memory.facts.add(input)).text;
      });
      await attempt('facts.add: metadata with a function', () => memory.facts.add({ userId: 'hostile', text: 'Not cloneable', metadata: { f: () => 1 } as never }));
      await attempt('facts.add: metadata with a BigInt', () => memory.facts.add({ userId: 'hostile', text: 'Not JSON', metadata: { n: 10n } as never }));
      await attempt('recall: Proxy embedding', async () => {
        const hits = await memory.recall('proxy', { userId: 'hostile', embedding: changingVector(), touch: false });
        return hits.every((h) => Number.isFinite(h.score)) && hits.length > 0;
      });
      await attempt('facts.update: { text: undefined, tags: undefined }', async () => {
        const fact = await memory.facts.add({ userId: 'hostile', text: 'The user keeps this text', tags: ['kept'] });
        const updated = await memory.facts.update(fact.id, { text: undefined, tags: undefined });
        return [updated.text, updated.tags];
      });
      await attempt('episodes.add: Proxy tags that change', async () => {
        const episode = await memory.episodes.add({ userId: 'hostile', text: 'An episode with proxy tags', tags: new Proxy(['first'], {}) });
        return (await memory.episodes.get(episode.id)).tags;
      });
      await attempt('export then import', async () => {
        const text = await (await memory.export({ userId: 'hostile' })).text();
        return { nan: text.includes('NaN'), summary: await memory.import(text).then(() => 'imported') };
      });
      return results;
    });

    const byCall = Object.fromEntries(outcomes.map((o) => [o.call, o]));
    expect(outcomes.filter((o) => !o.ok && !['ValidationError', 'LimitError'].includes(o.name))).toEqual([]);
    expect(byCall['facts.add: Proxy embedding']).toMatchObject({ ok: true, value: { id: true, finite: true } });
    expect(byCall['facts.add: embedding array with a function property']).toMatchObject({ ok: true, value: ['decorated'] });
    expect(byCall['facts.add: metadata getter that becomes a BigInt']).toMatchObject({ ok: true, value: { nested: { count: 1 } } });
    expect(byCall['facts.add: metadata getter that grows to 5,000,014 characters']).toMatchObject({ ok: true, value: { note: 'short' } });
    expect(byCall['facts.add: whole input is a Proxy']).toMatchObject({ ok: true, value: 'The user is a proxy' });
    expect(byCall['facts.add: metadata with a function']).toMatchObject({ ok: false, name: 'ValidationError', code: 'VALIDATION' });
    expect(byCall['facts.add: metadata with a BigInt']).toMatchObject({ ok: false, name: 'ValidationError', code: 'VALIDATION' });
    expect(byCall['recall: Proxy embedding']).toMatchObject({ ok: true, value: true });
    expect(byCall['facts.update: { text: undefined, tags: undefined }']).toMatchObject({ ok: true, value: ['The user keeps this text', ['kept']] });
    expect(byCall['episodes.add: Proxy tags that change']).toMatchObject({ ok: true, value: ['first'] });
    expect(byCall['export then import']).toMatchObject({ ok: true, value: { nan: false, summary: 'imported' } });

    expect(nonLocalHosts(watch.requests)).toEqual([]);
    expect(watch.errors).toEqual([]);
    await context.close();
  }, 180_000);
});
