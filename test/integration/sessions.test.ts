import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError, type Memory, type MemoryOptions, type RecallHit } from '../../src/index.js';
import { freshIndexedDB, openMemory } from '../support/memory.js';

/**
 * Sessions as an axis of recall (issue 47): a question's references to
 * sessions by their order ("our first conversation", "two sessions ago",
 * "the last three sessions", "the session before last") are windows of
 * those sessions' memories; `recall({ sessionId })` and `recall({ sessions })`
 * filter by session; each hit carries its session's place and span, and
 * `formatContext` can group by it.
 */
const memories: Memory[] = [];
afterEach(async () => {
  await Promise.all(memories.splice(0).map((m) => m.close()));
});
async function open(options: Partial<MemoryOptions> = {}): Promise<Memory> {
  const m = await openMemory({ timeZone: 'UTC', clock: () => NOW, ...options });
  memories.push(m);
  return m;
}

const DAY = 86_400_000;
const START = Date.UTC(2023, 0, 2, 10);
const NOW = START + 30 * DAY;
const TOPICS = ['our new puppy', 'the trip to Lisbon', 'a pottery class', 'the job interview', 'the garden'];

/** Five sessions, a week apart; their ids do not sort in time order. */
const SESSIONS = ['zeta', 'alpha', 'mid', 'beta', 'omega'];
const TURNS = SESSIONS.flatMap((sessionId, s) => [
  { id: `${sessionId}-1`, sessionId, speaker: 'Ana', text: `Let me tell you about ${TOPICS[s]}.`, createdAt: START + s * 7 * DAY },
  { id: `${sessionId}-2`, sessionId, speaker: 'Bo', text: 'Go on, I am listening.', createdAt: START + s * 7 * DAY + 60_000 },
]);

const ids = (hits: RecallHit[]) => hits.map((h) => h.memory.id);
const sessionsOf = (hits: RecallHit[]) => [...new Set(hits.map((h) => h.memory.sessionId))];

describe('sessions named in the question', () => {
  it('the first, two ago, the last three, the one before last: their turns, in the order said', async () => {
    const m = await open();
    await m.turns.addMany(TURNS);
    expect(ids(await m.recall('What did we talk about in our first session?', { k: 2, touch: false }))).toEqual(['zeta-1', 'zeta-2']);
    expect(ids(await m.recall('What did we discuss two sessions ago?', { k: 2, touch: false }))).toEqual(['beta-1', 'beta-2']);
    expect(sessionsOf(await m.recall('Summarize the last three sessions', { k: 6, touch: false }))).toEqual(['mid', 'beta', 'omega']);
    expect(sessionsOf(await m.recall('What came up in the session before last?', { k: 2, touch: false }))).toEqual(['beta']);
    const third = await m.recall('What did we chat about in the third conversation?', { k: 2, touch: false });
    expect(ids(third)).toEqual(['mid-1', 'mid-2']);
    expect(third[0]!.parts.timeWindow).toEqual({ text: 'in the third conversation', from: START + 14 * DAY, to: START + 14 * DAY + 60_000, by: 'session', multiplier: 4 });
  });

  it('with content, that session ranks first; the others stay reachable', async () => {
    const m = await open();
    await m.turns.addMany([...TURNS, { id: 'mid-3', sessionId: 'mid', speaker: 'Ana', text: 'The puppy chewed the clay.', createdAt: START + 14 * DAY + 120_000 }]);
    const hits = await m.recall('What did Ana say about the puppy in the third session?', { k: 11, touch: false });
    expect(ids(hits)[0]).toBe('mid-3');
    // The first session's puppy is outside the window: lower, but there.
    expect(ids(hits)).toContain('zeta-1');
    const unboosted = await m.recall('What did Ana say about the puppy?', { k: 11, touch: false });
    expect(ids(unboosted)[0]).toBe('zeta-1');
  });

  it('the session the question is asked in is not "our last conversation", and "this conversation" is it', async () => {
    const m = await open();
    await m.turns.addMany(TURNS);
    expect(sessionsOf(await m.recall('What did we say in our last conversation?', { k: 2, touch: false }))).toEqual(['omega']);
    expect(sessionsOf(await m.recall('What did we say in our last conversation?', { k: 2, currentSessionId: 'omega', touch: false }))).toEqual(['beta']);
    expect(sessionsOf(await m.recall('What did I say earlier in this conversation?', { k: 2, currentSessionId: 'omega', touch: false }))).toEqual(['omega']);
  });

  it('counts only the sessions begun by now', async () => {
    const m = await open({ clock: () => START + 15 * DAY });
    await m.turns.addMany(TURNS);
    expect(sessionsOf(await m.recall('What did we discuss in our last conversation?', { k: 2, touch: false }))).toEqual(['mid']);
  });
});

describe('session filters', () => {
  it('recall({ sessionId }) keeps one session or several; recall({ sessions }) keeps sessions by their places', async () => {
    const m = await open();
    await m.turns.addMany(TURNS);
    expect(sessionsOf(await m.recall('puppy Lisbon pottery interview garden', { k: 10, sessionId: 'mid', touch: false }))).toEqual(['mid']);
    expect(sessionsOf(await m.recall('puppy Lisbon pottery interview garden', { k: 10, sessionId: ['alpha', 'beta'], touch: false })).sort()).toEqual(['alpha', 'beta']);
    expect(sessionsOf(await m.recall('puppy Lisbon pottery interview garden', { k: 10, sessions: { from: -2 }, touch: false })).sort()).toEqual(['beta', 'omega']);
    expect(sessionsOf(await m.recall('puppy Lisbon pottery interview garden', { k: 10, sessions: { from: 2, to: 3 }, touch: false })).sort()).toEqual(['alpha', 'mid']);
    // Both: the sessions that are in both.
    expect(sessionsOf(await m.recall('puppy Lisbon pottery interview garden', { k: 10, sessions: { to: 2 }, sessionId: ['alpha', 'omega'], touch: false }))).toEqual(['alpha']);
    expect(await m.recall('puppy', { sessionId: 'nowhere', touch: false })).toEqual([]);
  });

  it('refuses a place that is not a whole number other than 0, with a typed error', async () => {
    const m = await open();
    for (const bad of [{ from: 0 }, { to: 1.5 }, { from: '1' }, { last: 2 }]) {
      await expect(m.recall('puppy', { sessions: bad as never })).rejects.toThrow(ValidationError);
    }
    await expect(m.recall('puppy', { sessionId: [] })).rejects.toThrow(/sessionId/);
  });
});

describe('each hit’s session, and formatContext by session', () => {
  it('carries its place and span, the same after reopening from the snapshot and from the records', async () => {
    const idb = freshIndexedDB();
    const name = `sessions-${process.pid}`;
    const first = await openMemory({ name, ...idb, clock: () => NOW });
    await first.turns.addMany(TURNS);
    const hit = (await first.recall('pottery class', { k: 1, touch: false }))[0]!;
    expect(hit.session).toEqual({ id: 'mid', number: 3, first: START + 14 * DAY, last: START + 14 * DAY + 60_000 });
    await first.close();
    for (const indexSnapshot of [undefined, false] as const) {
      const again = await open({ name, ...idb, ...(indexSnapshot === false ? { indexSnapshot } : {}) });
      expect((await again.recall('pottery class', { k: 1, touch: false }))[0]!.session).toEqual(hit.session);
    }
  });

  it('a session’s span follows its memories when one is deleted', async () => {
    const m = await open();
    await m.turns.addMany(TURNS);
    await m.turns.delete('zeta-1');
    const hits = await m.recall('What did we talk about in our first session?', { k: 1, touch: false });
    expect(ids(hits)).toEqual(['zeta-2']);
    expect(hits[0]!.session).toMatchObject({ number: 1, first: START + 60_000, last: START + 60_000 });
  });

  it('groups lines under each session with its date, sessions and lines in time order', async () => {
    const m = await open();
    await m.turns.addMany(TURNS);
    await m.facts.add({ text: 'Ana has a puppy called Tuna', createdAt: START + DAY });
    const hits = await m.recall('puppy Lisbon', { k: 5, touch: false });
    const text = m.formatContext(hits, { now: NOW, timeZone: 'UTC', groupBy: 'session' });
    expect(text).toBe(
      [
        'Now: 2023-02-01 10:00 (UTC)',
        'Session 1 (2023-01-02):',
        '- (2023-01-02, turn, Ana) Let me tell you about our new puppy.',
        '- (2023-01-02, turn, Bo) Go on, I am listening.',
        'Session 2 (2023-01-09):',
        '- (2023-01-09, turn, Ana) Let me tell you about the trip to Lisbon.',
        '- (2023-01-09, turn, Bo) Go on, I am listening.',
        'Other memories:',
        '- (2023-01-03, fact) Ana has a puppy called Tuna',
      ].join('\n'),
    );
    // Without groupBy: one list in the hits' order, as before.
    expect(m.formatContext(hits, { now: NOW, timeZone: 'UTC' }).split('\n')).toHaveLength(6);
  });
});
