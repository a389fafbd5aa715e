import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.js';
import { tokenize } from '../../src/text/tokenize.js';
import { memoryFixture } from '../support/memory-fixture.js';
import { speakerNames } from '../support/speaker-names.js';

/**
 * Speaker-aware scoring (issue 21): a turn's speaker is a field, not words
 * every turn repeats. A query that names a speaker is matched by its other
 * words, and that speaker's turns score 1 + speakerBoost times as much; so
 * the name does not pull in every greeting that says it.
 */
const { open } = memoryFixture();

const T0 = Date.UTC(2023, 4, 8, 12);
const said = (id: string, speaker: string, text: string, i: number) => ({ id, speaker, sessionId: 's1', createdAt: T0 + i * 60_000, text });
const TURNS = [
  said('t1', 'Melanie', 'Hey Caroline! So good to see you, Caroline.', 0),
  said('t2', 'Caroline', 'Hey Melanie!', 1),
  said('t3', 'Caroline', 'I have been researching adoption agencies all week.', 2),
  said('t4', 'Melanie', 'Thanks Caroline, you are the best, Caroline!', 3),
  said('t5', 'Melanie', 'I have been researching pottery classes for the kids.', 4),
  said('t6', 'Caroline', 'Haha, thanks!', 5),
];

describe('speakers', () => {
  it("a query naming a speaker finds what they said, boosted, not the greetings that say their name", async () => {
    const m = await open({ clock: () => T0 + 86_400_000 });
    await m.turns.addMany(TURNS);
    const hits = await m.recall('What has Caroline been researching?', { k: 6, touch: false });
    expect(hits[0]!.memory.id).toBe('t3');
    // Only Caroline's turns carry the boost, and it is 1 + the default 0.2.
    for (const hit of hits) {
      if (hit.parts.previousTurn !== undefined) continue;
      expect([hit.memory.id, hit.parts.speakerMatch]).toEqual([hit.memory.id, (hit.memory as { speaker: string }).speaker === 'Caroline' ? 1.2 : undefined]);
    }
    // The name is not matched as a word: the greetings that say it share no keyword with the query.
    const keywordOf = (list: typeof hits, id: string) => list.find((h) => h.memory.id === id)!.parts.keyword;
    expect([keywordOf(hits, 't1'), keywordOf(hits, 't4')]).toEqual([0, 0]);
    const rank = (list: typeof hits, id: string) => list.findIndex((h) => h.memory.id === id);
    // Melanie's greetings that say "Caroline" twice rank below both researching turns.
    expect(rank(hits, 't1')).toBeGreaterThan(rank(hits, 't5'));
    expect(rank(hits, 't4')).toBeGreaterThan(rank(hits, 't5'));

    // With speakerBoost 0 the name is matched as a word again: those greetings climb, and nothing is boosted.
    const off = await open({ clock: () => T0 + 86_400_000, ranking: { speakerBoost: 0 } });
    await off.turns.addMany(TURNS);
    const plain = await off.recall('What has Caroline been researching?', { k: 6, touch: false });
    expect(plain.every((h) => h.parts.speakerMatch === undefined)).toBe(true);
    expect(rank(plain, 't1')).toBeLessThan(rank(plain, 't5'));
    expect(keywordOf(plain, 't1')).toBeGreaterThan(0);
  });

  it('names only speakers the user has: a fact that mentions a name is matched by it, and not boosted', async () => {
    const m = await open();
    await m.facts.add({ id: 'f1', text: 'Caroline adopted a dog named Rex', userId: 'u1' });
    await m.turns.add({ ...said('t1', 'Melanie', 'We got a cat last year.', 0), userId: 'u2' });
    const [hit] = await m.recall('What did Caroline adopt?', { userId: 'u1', k: 1 });
    expect(hit!.memory.id).toBe('f1');
    expect(hit!.parts.keyword).toBe(1);
    expect(hit!.parts.speakerMatch).toBeUndefined();
    // u2's speaker is Melanie, not a speaker of u1: naming her changes nothing for u1.
    const [again] = await m.recall('What did Caroline and Melanie adopt?', { userId: 'u1', k: 1 });
    expect(again!.parts.speakerMatch).toBeUndefined();
  });

  it('forgets a speaker whose turns are deleted, and rejects a bad speakerBoost with a typed error', async () => {
    const m = await open();
    await m.turns.addMany(TURNS.slice(0, 3));
    expect((await m.recall('Caroline researching', { k: 1 }))[0]!.parts.speakerMatch).toBe(1.2);
    await m.turns.delete('t2');
    await m.turns.delete('t3');
    const [hit] = await m.recall('Caroline', { k: 1 });
    expect(hit!.memory.id).toBe('t1');
    expect(hit!.parts.speakerMatch).toBeUndefined();
    await expect(open({ ranking: { speakerBoost: -1 } })).rejects.toThrow(ValidationError);
    await expect(open({ ranking: { speakerBoost: Number.NaN } })).rejects.toThrow(/speakerBoost/);
  });
});

/** Names are data, never patterns (issue 46): a name a person may have never breaks recall. */
describe('speakers with any name', () => {
  it("a hyphenated speaker's user is recalled, by facts and turns, and the name boosts their turns", async () => {
    const m = await open();
    await m.facts.add({ id: 'f1', text: 'Jean-Luc grew up in Lyon', userId: 'u1' });
    await m.turns.add({ id: 't1', speaker: 'Jean-Luc', text: 'I grew up in Lyon', userId: 'u1' });
    expect((await m.recall('Where did Jean-Luc grow up?', { userId: 'u1', types: ['fact'] })).map((h) => h.memory.id)).toEqual(['f1']);
    const turn = (await m.recall('Where did Jean-Luc grow up?', { userId: 'u1', types: ['turn'] }))[0]!;
    expect([turn.memory.id, turn.parts.speakerMatch]).toEqual(['t1', 1.2]);
  });

  it('stores turns by arbitrary Unicode names and recalls them with and without the name in the query', async () => {
    const m = await open();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(speakerNames, async (name) => {
        const userId = `u${++run}`;
        await m.turns.addMany([
          { id: `${userId}-a`, userId, speaker: name, text: 'I adopted a greyhound called Biscuit' },
          { id: `${userId}-b`, userId, speaker: 'Zqxv Wvut', text: 'The ferry to Oslo was cancelled' },
        ]);
        const withName = await m.recall(`What did ${name} say about the greyhound?`, { userId, k: 2, touch: false });
        expect(withName[0]!.memory.id).toBe(`${userId}-a`);
        // The name's turn is boosted when the name has a word to match by; the other speaker's never is.
        const matchable = /[\p{L}\p{N}]/u.test(name) && tokenize(name).length > 0;
        expect(withName.map((h) => h.parts.speakerMatch)).toEqual(matchable ? [1.2, undefined] : [undefined, undefined]);
        expect(await m.recall(`Tell me about ${name}`, { userId, types: ['fact'] })).toEqual([]);

        fc.pre(!/greyhound|adopted|what|about/iu.test(name));
        const without = await m.recall('What about the greyhound we adopted?', { userId, k: 2, touch: false });
        expect(without.map((h) => [h.memory.id, h.parts.speakerMatch])).toEqual([[`${userId}-a`, undefined], [`${userId}-b`, undefined]]);
      }),
      { seed: 0x46_0002, numRuns: 100 },
    );
  });
});
