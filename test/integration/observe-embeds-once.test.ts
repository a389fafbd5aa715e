import { afterEach, describe, expect, it } from 'vitest';
import type { Embedder, Memory } from '../../src/index.js';
import { openMemory, realEmbedder } from '../support/memory.js';
import { scriptedLLM } from '../support/scripted-llm.js';

/**
 * `observe()` embeds each text it stores once: an extracted fact's vector,
 * computed for the merge search, is the one stored with it. Only a text the
 * merge changed (an LLM-composed one) is embedded again. The embedder is the
 * real model behind a wrapper that records every call.
 */
const memories: Memory[] = [];
afterEach(async () => {
  await Promise.all(memories.splice(0).map((m) => m.close()));
});

async function countingEmbedder(): Promise<{ embedder: Embedder; calls: string[][] }> {
  const real = await realEmbedder();
  const calls: string[][] = [];
  const embedder: Embedder = {
    id: real.id,
    dimension: real.dimension,
    embed: (texts) => {
      calls.push([...texts]);
      return real.embed(texts);
    },
  };
  return { embedder, calls };
}

const turn = { userId: 'ana', sessionId: 's1', user: 'I moved to Porto and I only drink green tea now.', assistant: 'Noted: Porto, and green tea.' };
const porto = { text: 'The user lives in Porto.', category: 'profile', importance: 0.8 };
const tea = { text: 'The user drinks green tea.', category: 'preference', importance: 0.7 };

describe('observe embeds each stored fact once', () => {
  it('new facts: one embedder call with their texts, and the stored vectors are those', async () => {
    const { embedder, calls } = await countingEmbedder();
    const llm = scriptedLLM({ profile: { output: { updates: {} } } });
    llm.enqueue('extract', { output: { facts: [porto, tea], hasEpisode: false } });
    const m = await openMemory({ embedder, llm: llm.provider });
    memories.push(m);
    calls.length = 0;

    const result = await m.observe(turn);

    expect(result.facts).toEqual({ stored: 2, replaced: 0, skipped: 0 });
    expect(calls).toEqual([[porto.text, tea.text]]);
    // What was stored is found by meaning: the vector written is the extracted text's.
    const hits = await m.recall('Which city does Ana live in?', { userId: 'ana', types: ['fact'], k: 1, touch: false });
    expect(hits.map((h) => h.memory.text)).toEqual([porto.text]);
  });

  it('a fact merged without a new text (same fact, no LLM check) is embedded once', async () => {
    const { embedder, calls } = await countingEmbedder();
    const llm = scriptedLLM({ profile: { output: { updates: {} } } });
    llm.enqueue('extract', { output: { facts: [porto], hasEpisode: false } });
    const m = await openMemory({ embedder, llm: llm.provider });
    memories.push(m);
    await m.facts.add({ userId: 'ana', text: porto.text, category: 'profile' }, { merge: false });
    calls.length = 0;

    const result = await m.observe(turn);

    expect(result.facts).toEqual({ stored: 0, replaced: 1, skipped: 0 });
    expect(calls).toEqual([[porto.text]]);
    expect(llm.callsFor('same-fact')).toHaveLength(0);
  });

  it('a fact whose merged text the LLM composed: the extracted text once, then the composed text once', async () => {
    const { embedder, calls } = await countingEmbedder();
    const composed = 'The user lives in Porto, Portugal.';
    const llm = scriptedLLM({ profile: { output: { updates: {} } } });
    llm.enqueue('extract', { output: { facts: [porto], hasEpisode: false } });
    llm.enqueue('same-fact', { output: { same: true } });
    llm.enqueue('compose', { output: { text: composed } });
    // Every neighbour goes to the LLM's same-fact check, so the merge is composed.
    const m = await openMemory({ embedder, llm: llm.provider, facts: { autoUpdateAt: 1, checkFrom: 0 } });
    memories.push(m);
    await m.facts.add({ userId: 'ana', text: 'The user is based in Porto.', category: 'profile' }, { merge: false });
    calls.length = 0;

    const result = await m.observe(turn);

    expect(result.facts).toEqual({ stored: 0, replaced: 1, skipped: 0 });
    expect(llm.callsFor('compose')).toHaveLength(1);
    expect(calls).toEqual([[porto.text], [composed]]);
    expect((await m.facts.list({ userId: 'ana' })).map((f) => f.text)).toEqual([composed]);
  });
});
