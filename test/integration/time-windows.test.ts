import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError, type Memory, type MemoryOptions, type RecallHit } from '../../src/index.js';
import { openMemory } from '../support/memory.js';

/**
 * Time in the question (issue 47): the times a query names are windows over
 * the memories' own times and the times their texts give, in the app's time
 * zone; inside a window memories rank first (or alone, with `time:
 * 'filter'`), the words that named it are not matched as words, a question
 * of nothing but a time returns the window's memories in the order they
 * were said, and `parts.timeWindow` says which window a hit is in.
 */
const memories: Memory[] = [];
afterEach(async () => {
  await Promise.all(memories.splice(0).map((m) => m.close()));
});
async function open(options: Partial<MemoryOptions> = {}): Promise<Memory> {
  const m = await openMemory({ timeZone: 'America/New_York', ...options });
  memories.push(m);
  return m;
}

/** Wednesday 15 November 2023, 15:30 in New York (EST, UTC-5). */
const NOW = Date.UTC(2023, 10, 15, 20, 30);
/** 8 May 2023, 13:56 in New York (EDT, UTC-4). */
const MAY_8 = Date.UTC(2023, 4, 8, 17, 56);
const DAY = 86_400_000;

const TURNS = [
  // One session on May 8, every turn at the same time: their order is the conversation's.
  { id: 'a1', sessionId: 's1', speaker: 'Ana', text: 'Hi Bo! I finally signed up for the pottery class.', createdAt: MAY_8 },
  { id: 'a2', sessionId: 's1', speaker: 'Bo', text: 'Nice, what will you make first?', createdAt: MAY_8 },
  { id: 'a3', sessionId: 's1', speaker: 'Ana', text: 'A bowl for my cat, Tuna.', createdAt: MAY_8 },
  { id: 'a4', sessionId: 's1', speaker: 'Bo', text: 'Send me a photo when it is glazed.', createdAt: MAY_8 },
  // The next morning; one turn says what it did the day before, another says "two days ago".
  { id: 'b1', sessionId: 's2', speaker: 'Ana', text: 'I went to the first pottery lesson yesterday and loved it.', createdAt: MAY_8 + 20 * 3_600_000 },
  { id: 'b2', sessionId: 's2', speaker: 'Bo', text: 'Two days ago I fixed my bike.', createdAt: MAY_8 + 20 * 3_600_000 + 60_000 },
  // Words that a query's time names, said at other times.
  { id: 'c1', sessionId: 's3', speaker: 'Bo', text: 'My history book says they married in May 1851.', createdAt: Date.UTC(2023, 5, 20, 15) },
  { id: 'c2', sessionId: 's3', speaker: 'Ana', text: 'Last Friday we went bowling with the pottery group.', createdAt: Date.UTC(2023, 9, 2, 15) },
  { id: 'f1', sessionId: 's4', speaker: 'Ana', text: 'We planted tomatoes on the balcony.', createdAt: Date.UTC(2023, 5, 1, 16) },
  // Last Friday (10 November), yesterday evening, this morning.
  { id: 'h1', sessionId: 's5', speaker: 'Bo', text: 'The concert tickets arrived.', createdAt: Date.UTC(2023, 10, 10, 17) },
  { id: 'e1', sessionId: 's6', speaker: 'Bo', text: 'What did you think of the game tonight?', createdAt: Date.UTC(2023, 10, 15, 0, 30) },
  { id: 'd1', sessionId: 's7', speaker: 'Ana', text: 'Good morning! The kiln is fired up.', createdAt: Date.UTC(2023, 10, 15, 14) },
  { id: 'd2', sessionId: 's7', speaker: 'Bo', text: 'Glaze the bowl blue.', createdAt: Date.UTC(2023, 10, 15, 14, 1) },
];

const ids = (hits: RecallHit[]) => hits.map((h) => h.memory.id);

async function seeded(options: Partial<MemoryOptions> = {}): Promise<Memory> {
  const m = await open({ clock: () => NOW, ...options });
  await m.turns.addMany(TURNS);
  return m;
}

describe('a question of nothing but a time', () => {
  it('returns the day’s turns in the order they were said, then those that say they are about it', async () => {
    const m = await seeded();
    const hits = await m.recall('What did we discuss on May 8th?', { k: 6, touch: false });
    expect(ids(hits)).toEqual(['a1', 'a2', 'a3', 'a4', 'b1', expect.any(String)]);
    expect(hits[0]!.parts.timeWindow).toEqual({ text: 'on May 8th', from: Date.UTC(2023, 4, 8, 4), to: Date.UTC(2023, 4, 9, 4), by: 'createdAt', multiplier: 4 });
    // b1 (May 9) is in the window by what it says: "yesterday".
    expect(hits[4]!.parts.timeWindow?.by).toBe('mention');
    // The last place goes to the best of the rest, outside the window.
    expect(hits[5]!.parts.timeWindow).toBeUndefined();
    // A smaller k is the start of the same slice.
    expect(ids(await m.recall('What did we discuss on May 8th?', { k: 2, touch: false }))).toEqual(['a1', 'a2']);
  });

  it('reads the other phrasings of a day, and parts of today and yesterday', async () => {
    const m = await seeded();
    expect(ids(await m.recall('Remind me what we chatted about on 8 May 2023.', { k: 4, touch: false }))).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(ids(await m.recall('What came up earlier today?', { k: 2, touch: false }))).toEqual(['d1', 'd2']);
    expect(ids(await m.recall('what did we talk about this morning', { k: 2, touch: false }))).toEqual(['d1', 'd2']);
    expect(ids(await m.recall('What did we discuss yesterday evening?', { k: 1, touch: false }))).toEqual(['e1']);
    expect(ids(await m.recall('What did we talk about last Friday?', { k: 1, touch: false }))).toEqual(['h1']);
  });

  it('a date without its year is the latest one that holds memories', async () => {
    const m = await seeded({ clock: () => NOW + 365 * DAY });
    const hits = await m.recall('What did we discuss on May 8th?', { k: 4, touch: false });
    expect(ids(hits)).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(hits[0]!.parts.timeWindow?.from).toBe(Date.UTC(2023, 4, 8, 4));
  });
});

describe('the words that named the time are not matched as words', () => {
  it('"… 167 days ago" ranks that day, not a turn that says "two days ago"', async () => {
    const m = await seeded();
    const hits = await m.recall('What did we discuss 167 days ago?', { k: 3, touch: false });
    expect(ids(hits)[0]).toBe('f1');
    expect(ids(hits)).not.toContain('b2');
  });

  it('"… in May" ranks May\'s turns, not a turn that says "in May"', async () => {
    const m = await seeded();
    const hits = await m.recall('What did we talk about in May?', { k: 6, touch: false });
    expect(ids(hits)).toEqual(['a1', 'a2', 'a3', 'a4', 'b1', 'b2']);
    expect(ids(hits)).not.toContain('c1');
  });

  it('"last Friday" is that Friday, not a turn that says "last Friday" in another week', async () => {
    const m = await seeded();
    const hits = await m.recall('What did we talk about last Friday?', { k: 3, touch: false });
    expect(ids(hits)[0]).toBe('h1');
    expect(hits.find((h) => h.memory.id === 'c2')?.parts.timeWindow).toBeUndefined();
  });

  it('a window that holds no memory is dropped, and its words stay', async () => {
    const m = await seeded();
    const hits = await m.recall('What did we say about May 1851 on January 3rd, 2020?', { k: 3, touch: false });
    expect(hits.every((h) => h.parts.timeWindow === undefined)).toBe(true);
    expect(ids(hits)[0]).toBe('c1');
  });
});

describe('content and a date', () => {
  it('ranks what matches inside the window first, and keeps the rest reachable', async () => {
    const m = await seeded();
    const hits = await m.recall('What did Ana say about pottery on May 9?', { k: 13, touch: false });
    expect(ids(hits)[0]).toBe('b1');
    expect(hits[0]!.parts.timeWindow).toMatchObject({ by: 'createdAt', multiplier: 4 });
    // a1 and c2 also speak of pottery, outside the window: lower, but there.
    expect(ids(hits)).toEqual(expect.arrayContaining(['a1', 'c2']));
  });

  it("time: 'filter' keeps only the window's memories; 'off' reads no time", async () => {
    const m = await seeded();
    const filtered = await m.recall('What did Ana say about pottery on May 9?', { k: 13, time: 'filter', touch: false });
    expect(ids(filtered).sort()).toEqual(['b1', 'b2']);
    expect(filtered.every((h) => h.parts.timeWindow?.multiplier === 1)).toBe(true);
    const off = await m.recall('What did we talk about in May?', { k: 3, time: 'off', touch: false });
    expect(off.every((h) => h.parts.timeWindow === undefined)).toBe(true);
    expect(ids(off)[0]).toBe('c1');
  });

  it('the boost is a ranking option; at 0 the window only takes its words out', async () => {
    const m = await seeded({ ranking: { timeWindowBoost: 0 } });
    const hits = await m.recall('What did Ana say about pottery on May 9?', { k: 3, touch: false });
    expect(hits.every((h) => h.parts.timeWindow === undefined)).toBe(true);
  });
});

describe('the app’s time zone', () => {
  it('places a day in the zone: 22:00 in New York on May 8 is May 9 in UTC', async () => {
    const late = { id: 'late', sessionId: 'x', speaker: 'Ana', text: 'Good night!', createdAt: Date.UTC(2023, 4, 9, 2) };
    const ny = await open({ clock: () => NOW });
    await ny.turns.addMany([...TURNS, late]);
    expect(ids(await ny.recall('What did we discuss on May 8th?', { k: 5, time: 'filter', touch: false }))).toContain('late');
    expect(ids(await ny.recall('What did we discuss on May 8th?', { k: 10, time: 'filter', timeZone: 'UTC', touch: false }))).not.toContain('late');
    expect(ids(await ny.recall('What did we discuss on May 9th?', { k: 10, time: 'filter', timeZone: 'UTC', touch: false }))).toContain('late');
  });

  it('a day where the clocks go back is 25 hours long (America/New_York, 5 November 2023)', async () => {
    const m = await open({ clock: () => NOW });
    await m.turns.addMany([
      { id: 'first', speaker: 'Ana', text: 'Just after midnight', createdAt: Date.UTC(2023, 10, 5, 4, 1) },
      { id: 'last', speaker: 'Ana', text: 'Just before midnight', createdAt: Date.UTC(2023, 10, 6, 4, 59) },
      { id: 'next', speaker: 'Ana', text: 'The next day', createdAt: Date.UTC(2023, 10, 6, 5, 1) },
    ]);
    const hits = await m.recall('What did we discuss on November 5?', { k: 3, time: 'filter', touch: false });
    expect(ids(hits)).toEqual(['first', 'last']);
    expect(hits[0]!.parts.timeWindow!.to - hits[0]!.parts.timeWindow!.from).toBe(25 * 3_600_000);
  });

  it('refuses a zone that does not exist, and a mode that is not one, with a typed error', async () => {
    await expect(openMemory({ timeZone: 'Mars/Olympus_Mons' })).rejects.toThrow(ValidationError);
    const m = await seeded();
    await expect(m.recall('on May 8th', { timeZone: 'Nowhere/Land' })).rejects.toThrow(/timeZone/);
    await expect(m.recall('on May 8th', { time: 'sometimes' as never })).rejects.toThrow(ValidationError);
  });
});
