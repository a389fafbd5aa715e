import { describe, expect, it } from 'vitest';
import { ClosedError, EngramError, type Memory } from '../../src/index.js';
import { openMemory } from '../support/memory.js';

/**
 * A call that `close({ timeoutMs: 0 })` cuts off (issue 46, item 9: the
 * recall that failed untyped in random calls) ends as a closed memory's call
 * does: it answers, or rejects with a typed ClosedError, never with the
 * IndexedDB library's own error. The close is started a few microtask turns
 * after the call, so it lands in each of the call's reads in turn.
 */
const READS: [string, (m: Memory) => Promise<unknown>][] = [
  ['recall', (m) => m.recall('tomatoes')],
  ['recall of turns', (m) => m.recall('grow tomatoes', { types: ['turn'] })],
  ['episodes.sequence', (m) => m.episodes.sequence('tomatoes')],
];
const TURNS_OF_DELAY = 8;

describe('a read cut off by close', () => {
  for (const [name, read] of READS) {
    it(`${name} answers or rejects with ClosedError`, async () => {
      const outcomes: string[] = [];
      for (let delay = 0; delay < TURNS_OF_DELAY; delay++) {
        const memory = await openMemory();
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
      expect(outcomes.filter((outcome) => outcome !== 'answered' && outcome !== 'ClosedError')).toEqual([]);
      // The close did cut some of them off (else this test would prove nothing).
      expect(outcomes).toContain('ClosedError');
    });
  }
});
