import { afterEach, describe, expect, it } from 'vitest';
import { casual as french } from 'chrono-node/fr';
import { englishTimeParser, ValidationError, type Memory, type MemoryOptions, type ParsedTimeQuery, type RecallHit, type TimeQueryParser } from '../../src/index.js';
import { openMemory, snapshot } from '../support/memory.js';

/**
 * Another language's times (issue 47): createMemory({ timeParser }) replaces
 * the English parser recall reads a question's times with. A small French
 * parser on chrono-node's `fr` locale names days ("hier", "il y a 3 jours");
 * recall ranks that day's turns first. A parser that answers garbage is
 * refused with a ValidationError and the store is left as it was.
 */
const memories: Memory[] = [];
afterEach(async () => {
  await Promise.all(memories.splice(0).map((m) => m.close()));
});
async function open(options: Partial<MemoryOptions>): Promise<Memory> {
  const m = await openMemory({ timeZone: 'Europe/Paris', clock: () => NOW, ...options });
  memories.push(m);
  return m;
}

/** Saturday 28 November 2026, 16:00 in Paris (CET, UTC+1). */
const NOW = Date.UTC(2026, 10, 28, 15);
const DAY = 86_400_000;

/** Each day the user ate something else; the words of the question match them all alike. */
const TURNS = [
  { id: 'd1', sessionId: 's1', speaker: 'Léa', text: "J'ai mangé une pizza au restaurant.", createdAt: NOW - 1 * DAY },
  { id: 'd2', sessionId: 's2', speaker: 'Léa', text: "J'ai mangé un couscous au restaurant.", createdAt: NOW - 2 * DAY },
  { id: 'd3', sessionId: 's3', speaker: 'Léa', text: "J'ai mangé des crêpes au restaurant.", createdAt: NOW - 3 * DAY },
  { id: 'd4', sessionId: 's4', speaker: 'Léa', text: "J'ai mangé une salade au restaurant.", createdAt: NOW - 4 * DAY },
];

/** Days named in French, read by chrono-node's `fr` locale: the wall clock of `now` (local ms) read as UTC. */
const frenchTimeParser: TimeQueryParser = {
  language: 'fr',
  parse(query: string, now: number) {
    const windows = french.parse(query, { instant: new Date(now), timezone: 0 }).map((r) => {
      const day = Math.floor(r.start.date().getTime() / DAY) * DAY;
      return { start: r.index, end: r.index + r.text.trimEnd().length, from: day, to: day + DAY };
    });
    return { windows, sessions: [] };
  },
};

const ids = (hits: RecallHit[]) => hits.map((h) => h.memory.id);

describe('createMemory({ timeParser })', () => {
  it('reads the times of another language: that day’s turns rank first', async () => {
    const m = await open({ timeParser: frenchTimeParser });
    await m.turns.addMany(TURNS);
    const yesterday = await m.recall("Qu'est-ce que j'ai mangé au restaurant hier ?", { k: 4, touch: false });
    expect(ids(yesterday)[0]).toBe('d1');
    expect(yesterday[0]!.parts.timeWindow).toMatchObject({ text: 'hier', from: Date.UTC(2026, 10, 26, 23), to: Date.UTC(2026, 10, 27, 23), by: 'createdAt' });
    const threeDays = await m.recall("Qu'est-ce que j'ai mangé au restaurant il y a 3 jours ?", { k: 4, touch: false });
    expect(ids(threeDays)[0]).toBe('d3');
    expect(threeDays[0]!.parts.timeWindow?.text).toBe('il y a 3 jours');
  });

  it('the default English parser does not read French: no window, the same words rank the days alike', async () => {
    const m = await open({});
    await m.turns.addMany(TURNS);
    const hits = await m.recall("Qu'est-ce que j'ai mangé au restaurant il y a 3 jours ?", { k: 4, touch: false });
    expect(hits.every((h) => h.parts.timeWindow === undefined)).toBe(true);
  });

  it('takes a parser that answers with a promise, and englishTimeParser composes with it', async () => {
    const both: TimeQueryParser = {
      language: 'fr',
      async parse(query: string, now: number, timeZone: string): Promise<ParsedTimeQuery> {
        const fr = await frenchTimeParser.parse(query, now, timeZone);
        return fr.windows.length > 0 ? fr : englishTimeParser.parse(query, now, timeZone);
      },
    };
    const m = await open({ timeParser: both });
    await m.turns.addMany(TURNS);
    expect(ids(await m.recall('mangé au restaurant hier', { k: 1, touch: false }))).toEqual(['d1']);
    expect(ids(await m.recall('mangé au restaurant 4 days ago', { k: 1, touch: false }))).toEqual(['d4']);
  });

  it('refuses a parser that is not one, with a ValidationError', async () => {
    for (const timeParser of [{ language: 'fr' }, { language: 3, parse: () => ({ windows: [], sessions: [] }) }, () => ({ windows: [], sessions: [] }), { language: 'fr', parse: () => ({}), asksForContent: 'no' }]) {
      const error = await open({ timeParser: timeParser as unknown as TimeQueryParser }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toMatch(/timeParser: must be a time parser/);
    }
  });

  it('refuses garbage windows with a ValidationError and leaves the store as it was', async () => {
    const answers: unknown[] = [
      { windows: [{ start: 0, end: 4, from: Number.NaN, to: 5 }], sessions: [] },
      { windows: [{ start: 0, end: 4, from: 10, to: 5 }], sessions: [] },
      { windows: [{ start: 3, end: 999, from: 0, to: DAY }], sessions: [] },
      { windows: [{ start: 0, end: 4, from: '2026-11-27', to: DAY }], sessions: [] },
      { windows: [], sessions: [{ start: 0, end: 4, from: 'middle', index: 0, count: 1 }] },
      { windows: [], sessions: [{ start: 0, end: 4, from: 'first', index: -1, count: 1 }] },
      { windows: 'hier' },
      undefined,
    ];
    let answer: unknown;
    const hostile: TimeQueryParser = { language: 'xx', parse: () => answer as ParsedTimeQuery };
    const m = await open({ timeParser: hostile });
    await m.turns.addMany(TURNS);
    await m.idle();
    const before = await snapshot(m);
    for (answer of answers) {
      const error = await m.recall('mangé hier', { k: 4 }).catch((e: unknown) => e);
      expect(error, JSON.stringify(answer)).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toMatch(/timeParser/);
    }
    await m.idle();
    expect(await snapshot(m)).toEqual(before);
    // A parser that throws is told the same way.
    answer = undefined;
    const throwing = await open({ timeParser: { language: 'xx', parse: () => { throw new Error('boom'); } } });
    await throwing.turns.addMany(TURNS);
    await expect(throwing.recall('mangé hier', { k: 4 })).rejects.toThrow(ValidationError);
  });
});

/**
 * An app that names no zone gets the runtime's, read through `Date`: a
 * runtime's first `Intl.DateTimeFormat` loads its date-format data (tens of
 * milliseconds of the worker before its first answer), so the open and
 * recall build none unless something needs the zone's name.
 */
describe("the runtime's zone, when the app names none", () => {
  const RealFormat = Intl.DateTimeFormat;
  let built = 0;
  afterEach(() => {
    Intl.DateTimeFormat = RealFormat;
  });
  const countFormats = () => {
    built = 0;
    const Counting = function (...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      built++;
      return new RealFormat(...args);
    } as unknown as typeof Intl.DateTimeFormat;
    Object.assign(Counting, { supportedLocalesOf: RealFormat.supportedLocalesOf, prototype: RealFormat.prototype });
    Intl.DateTimeFormat = Counting;
  };
  const english = [
    { id: 'e1', sessionId: 's1', speaker: 'Sam', text: 'I had a pizza at the restaurant.', createdAt: NOW - 1 * DAY },
    { id: 'e2', sessionId: 's2', speaker: 'Sam', text: 'I had a curry at the restaurant.', createdAt: NOW - 3 * DAY },
  ];

  it('opens, writes and answers a question about a day without building an Intl.DateTimeFormat', async () => {
    countFormats();
    const m = await open({ timeZone: undefined });
    await m.turns.addMany(english);
    const hits = await m.recall('What did I eat at the restaurant yesterday?', { k: 2, touch: false });
    expect(ids(hits)[0]).toBe('e1');
    expect(hits[0]!.parts.timeWindow?.text).toBe('yesterday');
    expect(built).toBe(0);

    // A zone the app names is read through Intl: the count above would have seen it.
    const named = await open({ timeZone: 'Asia/Tokyo' });
    await named.recall('What did I eat yesterday?', { touch: false });
    expect(built).toBeGreaterThan(0);
  });

  it("names the runtime's zone to an app's own parser, as a named zone is", async () => {
    const zones: string[] = [];
    const m = await open({ timeZone: undefined, timeParser: { language: 'any', parse: (_query, _now, timeZone) => (zones.push(timeZone), { windows: [], sessions: [] }) } });
    await m.recall('anything at all', { touch: false });
    expect(zones).toEqual([new RealFormat().resolvedOptions().timeZone]);
  });
});
