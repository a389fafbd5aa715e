import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AbortError, ValidationError, type Embedder, type LLMRequest, type MemoryOptions } from '../../src/index.js';
import { freshIndexedDB, realEmbedder } from '../support/memory.js';
import { rawStore } from '../support/raw-store.js';
import { episodeDraft, scriptedLLM } from '../support/scripted-llm.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * `observe`, `recall` and `idle` take the app's AbortSignal (issue 18): an
 * abort rejects with the typed AbortError and leaves the store exactly as it
 * was (every row of every object store compared), and an abort after the
 * write has committed changes nothing.
 */
const memories = memoryFixture({ closeTimeoutMs: 1000 });

let counter = 0;
async function open(options: Partial<MemoryOptions> = {}) {
  const idb = freshIndexedDB();
  const name = `abort-${process.pid}-${++counter}`;
  const memory = await memories.open({ name, ...idb, capture: { cooldownTurns: 0, cooldownMinutes: 0 }, ...options });
  return { memory, dump: () => rawStore(idb.indexedDB as unknown as IDBFactory, name) };
}

/** A provider call that never answers by itself: only its signal ends it. */
function untilAborted(request: LLMRequest, seen: string[]): Promise<never> {
  return new Promise((_, reject) => {
    request.signal!.addEventListener('abort', () => {
      seen.push(`${request.task}: ${(request.signal!.reason as Error)?.message}`);
      reject(new Error('aborted by engram'));
    });
  });
}

const turn = { userId: 'ana', sessionId: 's1', user: 'I moved to Porto last month.', assistant: 'Noted!' };
const porto = { output: { facts: [{ text: 'The user lives in Porto.', category: 'profile', importance: 0.9 }], hasEpisode: true } };

async function expectAborted(promise: Promise<unknown>, operation: string, reason?: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AbortError);
  expect(error).toMatchObject({ name: 'AbortError', code: 'ABORTED', details: { operation } });
  if (reason) expect((error as Error).message).toContain(reason);
}

describe('observe({ signal })', () => {
  it('an abort during the stage-1 call aborts the provider, rejects with AbortError and writes nothing', async () => {
    const aborts: string[] = [];
    const llm = scriptedLLM({ extract: (request) => untilAborted(request, aborts) });
    const { memory, dump } = await open({ llm: llm.provider });
    await memory.facts.add({ userId: 'ana', text: 'Ana drinks her coffee black.' });
    const before = await dump();

    const controller = new AbortController();
    const pending = memory.observe(turn, { signal: controller.signal });
    await expect.poll(() => llm.calls.length).toBe(1);
    controller.abort(new Error('the user left the chat'));
    await expectAborted(pending, 'observe', 'the user left the chat');
    expect(aborts).toEqual(['extract: the user left the chat']);

    await memory.idle();
    expect(await dump()).toEqual(before);
    // The memory goes on working after an aborted turn.
    llm.enqueue('extract', { output: { facts: [], hasEpisode: false } });
    await expect(memory.observe(turn)).resolves.toMatchObject({ reason: 'no_episode' });
  });

  it('an abort after stage 1 answered, before the turn is written, still writes nothing', async () => {
    const llm = scriptedLLM({ extract: porto, episode: episodeDraft() });
    const controller = new AbortController();
    const model = await realEmbedder();
    // The abort lands while the extracted fact is being embedded: no LLM call is running then.
    const embedder: Embedder = {
      id: model.id,
      dimension: model.dimension,
      embed: async (texts) => {
        if (texts.includes('The user lives in Porto.')) controller.abort(new Error('navigated away'));
        return model.embed(texts);
      },
    };
    const { memory, dump } = await open({ llm: llm.provider, embedder });
    const before = await dump();
    await expectAborted(memory.observe(turn, { signal: controller.signal }), 'observe', 'navigated away');
    await memory.idle();
    expect(llm.callsFor('episode')).toHaveLength(0);
    expect(await dump()).toEqual(before);
  });

  it('an already-aborted signal calls no provider; an abort after the write committed changes nothing', async () => {
    const llm = scriptedLLM({ extract: porto, episode: episodeDraft() });
    const { memory, dump } = await open({ llm: llm.provider });
    const before = await dump();
    await expectAborted(memory.observe(turn, { signal: AbortSignal.abort() }), 'observe');
    expect(llm.calls).toHaveLength(0);
    expect(await dump()).toEqual(before);

    const controller = new AbortController();
    const result = await memory.observe(turn, { signal: controller.signal });
    controller.abort();
    expect(result).toMatchObject({ facts: { stored: 1 }, episodeScheduled: true });
    await memory.idle();
    expect((await memory.facts.list({ userId: 'ana' })).map((f) => f.text)).toEqual(['The user lives in Porto.']);
  });
});

describe('recall({ signal })', () => {
  it('an abort while the query is embedded rejects with AbortError at once and touches no access time', async () => {
    const model = await realEmbedder();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let holdQueries = false;
    const embedder: Embedder = {
      id: model.id,
      dimension: model.dimension,
      embed: async (texts) => {
        if (holdQueries) await gate;
        return model.embed(texts);
      },
    };
    const { memory, dump } = await open({ embedder });
    await memory.facts.add({ userId: 'ana', text: 'Ana lives in Porto.' });
    const before = await dump();

    holdQueries = true;
    const controller = new AbortController();
    const pending = memory.recall('where does Ana live?', { userId: 'ana', signal: controller.signal });
    controller.abort();
    // Rejected while the embedding is still held: the recall did not wait for it.
    await expectAborted(pending, 'recall');
    release();
    await memory.idle();
    expect(await dump()).toEqual(before);

    // Without an abort the same recall finds the fact and records its access time.
    const hits = await memory.recall('where does Ana live?', { userId: 'ana', signal: controller.signal.aborted ? undefined : controller.signal });
    expect(hits.map((h) => h.memory.text)).toEqual(['Ana lives in Porto.']);
  });

  it('a signal reused for many calls keeps no listener once they settle', async () => {
    const { memory } = await open();
    await memory.facts.add({ userId: 'ana', text: 'Ana lives in Porto.' });
    const controller = new AbortController();
    for (let i = 0; i < 20; i++) await memory.recall('Porto', { userId: 'ana', signal: controller.signal });
    await memory.idle({ signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('idle({ signal })', () => {
  it('an abort ends the wait with AbortError; the background job goes on and finishes', async () => {
    let releaseEpisode!: () => void;
    const episodeGate = new Promise<void>((resolve) => (releaseEpisode = resolve));
    const llm = scriptedLLM({
      extract: porto,
      episode: async () => {
        await episodeGate;
        return episodeDraft();
      },
    });
    const { memory } = await open({ llm: llm.provider });
    await memory.observe(turn);
    await expect.poll(() => llm.callsFor('episode').length).toBe(1);

    const controller = new AbortController();
    const waiting = memory.idle({ signal: controller.signal });
    controller.abort(new Error('stop waiting'));
    await expectAborted(waiting, 'idle', 'stop waiting');
    expect((await memory.activity()).jobs).toHaveLength(1);

    releaseEpisode();
    await memory.idle();
    expect(await memory.episodes.list({ userId: 'ana' })).toHaveLength(1);
    expect((await memory.activity()).jobs).toEqual([]);
  });
});

describe('the signal option is validated', () => {
  it('refuses what is not an AbortSignal, and unknown options, with a ValidationError', async () => {
    const llm = scriptedLLM({ extract: porto });
    const { memory, dump } = await open({ llm: llm.provider });
    const before = await dump();
    const refusals = [
      memory.recall('Porto', { signal: 'soon' as unknown as AbortSignal }),
      memory.observe(turn, { signal: { aborted: false } as unknown as AbortSignal }),
      memory.observe(turn, { later: true } as never),
      memory.idle({ signal: new AbortController() as unknown as AbortSignal }),
      memory.idle({ timeoutMs: 5 } as never),
    ];
    for (const refusal of refusals) await expect(refusal).rejects.toBeInstanceOf(ValidationError);
    expect(llm.calls).toHaveLength(0);
    expect(await dump()).toEqual(before);
    // Explicit undefined means "not given".
    await expect(memory.recall('Porto', { signal: undefined })).resolves.toEqual([]);
  });
});
