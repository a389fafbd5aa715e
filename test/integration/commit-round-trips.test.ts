import { afterEach, describe, expect, it } from 'vitest';
import type { Memory } from '../../src/index.js';
import { recordRequests, type IssuedRequest } from '../support/idb-round-trips.js';
import { WRITE_MARK_KEY } from '../../src/store/write-mark.js';
import { openMemory } from '../support/memory.js';

/**
 * Every commit carries bookkeeping besides the rows it writes: the write mark
 * (a read and a put of `meta`), a write-log row per indexed write
 * (`indexLog`) and the id-space check (a read of every other kind's table).
 * On a phone each round trip to the storage process costs the worker a
 * wake-up, so none of that bookkeeping may wait for an answer it does not
 * need: what can go out together goes in one round trip (issue 45).
 */
const memories: Memory[] = [];
afterEach(async () => {
  await Promise.all(memories.splice(0).map((m) => m.close()));
});

/** The requests of observe()'s commit without an LLM (the one transaction that writes turns). */
async function observeRequests(): Promise<IssuedRequest[]> {
  const memory = await openMemory();
  memories.push(memory);
  await memory.observe({ user: 'My sister lives in Porto', assistant: 'Porto is lovely in spring.' });
  const requests = await recordRequests(() => memory.observe({ user: 'I am learning Portuguese', assistant: 'Boa sorte!' }));
  const writer = requests.find((r) => r.store === 'turns' && r.method === 'put')?.tx;
  expect(writer, 'observe() put no turn').toBeDefined();
  return requests.filter((r) => r.tx === writer);
}

const tripsOf = (requests: readonly IssuedRequest[], pick: (r: IssuedRequest) => boolean) => [...new Set(requests.filter(pick).map((r) => r.trip))];

describe('a commit does its bookkeeping without extra round trips', () => {
  it('the write mark is read and replaced in one round trip', async () => {
    const requests = await observeRequests();
    const markGet = tripsOf(requests, (r) => r.store === 'meta' && r.method === 'get' && r.key === WRITE_MARK_KEY);
    const markPut = tripsOf(requests, (r) => r.store === 'meta' && r.method === 'put' && r.key === WRITE_MARK_KEY);
    expect(markGet).toHaveLength(1);
    expect(markPut).toEqual(markGet);
  });

  it('each write-log row goes out with the write it logs', async () => {
    const requests = await observeRequests();
    const turnPuts = tripsOf(requests, (r) => r.store === 'turns' && r.method === 'put');
    const blockAdds = tripsOf(requests, (r) => r.store === 'vectorBlocks' && r.method === 'add');
    const logAdds = tripsOf(requests, (r) => r.store === 'indexLog' && r.method === 'add');
    expect(turnPuts).toHaveLength(1);
    expect(blockAdds).toHaveLength(1);
    expect(logAdds).toEqual([...turnPuts, ...blockAdds]);
  });

  it('observe() does not check ids it drew at random itself against the other kinds', async () => {
    const requests = await observeRequests();
    const others = ['facts', 'episodes', 'tasks'];
    expect(requests.filter((r) => others.includes(r.store) && r.method === 'get')).toEqual([]);
    expect(Math.max(...requests.map((r) => r.trip))).toBe(7);
  });

  it('the id-space check reads every other kind in one round trip', async () => {
    const memory = await openMemory();
    memories.push(memory);
    const requests = await recordRequests(() => memory.turns.add({ id: 'chosen-turn', speaker: 'user', text: 'I am learning Portuguese' }));
    const writer = requests.find((r) => r.store === 'turns' && r.method === 'put')?.tx;
    const own = requests.filter((r) => r.tx === writer);
    const others = ['facts', 'episodes', 'tasks'];
    for (const store of others) expect(own.some((r) => r.store === store && r.method === 'get'), `no read of ${store}`).toBe(true);
    expect(tripsOf(own, (r) => others.includes(r.store) && r.method === 'get')).toHaveLength(1);
  });
});
