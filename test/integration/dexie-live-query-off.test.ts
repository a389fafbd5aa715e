import Dexie from 'dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_USER_ID, type Memory } from '../../src/index.js';
import { openMemory } from '../support/memory.js';

/**
 * engram's writes do not feed Dexie's liveQuery machinery (src/store/database.ts
 * removes its Observability and Cache middlewares): live() and the cross-tab
 * signal follow engram's own change feed, so the key range sets Dexie built over
 * every index of each mutation, and the `storagemutated` broadcast it posted on
 * every commit, were work each write paid for nothing. Counted on Dexie's own
 * global event, which fires once per committed transaction that Observability saw.
 */
let memory: Memory | undefined;
afterEach(async () => {
  await memory?.close();
  memory = undefined;
});

describe("Dexie's liveQuery middlewares", () => {
  it('are not told of observe(), facts.add or turns.add', async () => {
    memory = await openMemory();
    const heard: unknown[] = [];
    const listener = (parts: unknown) => void heard.push(parts);
    Dexie.on('storagemutated', listener);
    try {
      await memory.observe({ userId: DEFAULT_USER_ID, sessionId: 's', user: 'I moved to Lisbon last spring.', assistant: 'Lisbon is lovely.' });
      await memory.facts.add({ text: 'The user likes green tea.' });
      await memory.turns.add({ sessionId: 's', speaker: 'user', text: 'Hello again.' });
    } finally {
      Dexie.on('storagemutated').unsubscribe(listener);
    }
    expect(heard).toEqual([]);
    // The writes themselves happened (so the empty list above is not an empty test).
    expect((await memory.turns.list({ sessionId: 's' })).map((turn: { text: string }) => turn.text).sort()).toEqual(['Hello again.', 'I moved to Lisbon last spring.', 'Lisbon is lovely.']);
  });
});
