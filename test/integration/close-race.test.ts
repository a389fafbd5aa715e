import { describe, expect, it } from 'vitest';
import { ClosedError, EngramError, type Embedder, type Memory } from '../../src/index.js';
import { openMemory, realEmbedder } from '../support/memory.js';

/**
 * A call that `close({ timeoutMs: 0 })` cuts off (issue 46, item 9: the
 * recall that failed untyped in random calls) ends as a closed memory's call
 * does: it answers, or rejects with a typed ClosedError, never with the
 * IndexedDB library's own error. The close is started a few microtask turns
 * after the call, so it lands in each of the call's reads in turn; and once
 * from inside the query's embedding, so one close always lands between the
 * embedding and the reads (whatever number of turns the call takes to get there).
 */
const READS: [string, (m: Memory) => Promise<unknown>][] = [
  ['recall', (m) => m.recall('tomatoes')],
  ['recall of turns', (m) => m.recall('grow tomatoes', { types: ['turn'] })],
  ['episodes.sequence', (m) => m.episodes.sequence('tomatoes')],
];
const TURNS_OF_DELAY = 8;

/** Set by a test: run once, from inside the next embedding; the embedding answers once what it returns has settled. */
let armed: (() => Promise<void>) | undefined;

/** The real model, which runs `armed` (once) when it is asked to embed, and answers after it. */
async function closingWhenAsked(): Promise<Embedder> {
  const model = await realEmbedder();
  return {
    id: model.id,
    dimension: model.dimension,
    async embed(texts) {
      const vectors = await model.embed(texts);
      const run = armed;
      armed = undefined;
      await run?.();
      return vectors;
    },
  };
}

describe('a read cut off by close', () => {
  for (const [name, read] of READS) {
    it(`${name} answers or rejects with ClosedError`, async () => {
      const outcomes: string[] = [];
      for (let delay = 0; delay < TURNS_OF_DELAY; delay++) {
        const memory = await openMemory({ embedder: await closingWhenAsked() });
        await memory.facts.add({ id: 'f1', text: 'The user grows tomatoes' });
        await memory.episodes.add({ id: 'e1', text: 'We grew tomatoes on the balcony' });
        await memory.turns.addMany([{ speaker: 'user', text: 'I grow tomatoes', sessionId: 's' }, { speaker: 'assistant', text: 'Nice.', sessionId: 's' }]);
        const call = read(memory);
        for (let i = 0; i < delay; i++) await Promise.resolve();
        const closing = memory.close({ timeoutMs: 0 });
        outcomes.push(
          await call.then(
            () => 'answered',
            (error: unknown) => (error instanceof ClosedError ? 'ClosedError' : `untyped ${error instanceof EngramError ? error.code : (error as Error)?.name}`),
          ),
        );
        await closing;
      }
      // And a close that has finished while the call embeds its query: the reads after the embedding are always cut off.
      const memory = await openMemory({ embedder: await closingWhenAsked() });
      await memory.facts.add({ id: 'f1', text: 'The user grows tomatoes' });
      await memory.episodes.add({ id: 'e1', text: 'We grew tomatoes on the balcony' });
      await memory.turns.addMany([{ speaker: 'user', text: 'I grow tomatoes', sessionId: 's' }, { speaker: 'assistant', text: 'Nice.', sessionId: 's' }]);
      // The close does not wait for the call past its deadline (0), so it has closed the database when the embedding answers.
      armed = () => memory.close({ timeoutMs: 0 });
      const cut = await read(memory).then(
        () => 'answered',
        (error: unknown) => (error instanceof ClosedError ? 'ClosedError' : `untyped ${(error as Error)?.name}`),
      );
      expect(outcomes.filter((outcome) => outcome !== 'answered' && outcome !== 'ClosedError')).toEqual([]);
      expect(cut).toBe('ClosedError');
    });
  }
});
