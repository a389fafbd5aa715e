import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * Time that means something (issue 21): a memory's relative times ("yesterday",
 * "last week") are resolved against its own timestamp; a question about time
 * ranks the memories that say when higher; formatContext shows the dates.
 */
const { open } = memoryFixture();

const MAY_8 = Date.UTC(2023, 4, 8, 12);
const JUNE_20 = Date.UTC(2023, 5, 20, 12);
const TURNS = [
  { id: 't1', speaker: 'Caroline', sessionId: 's1', createdAt: MAY_8, text: 'I went to a LGBTQ support group yesterday and it was so powerful.' },
  { id: 't2', speaker: 'Melanie', sessionId: 's1', createdAt: MAY_8 + 60_000, text: 'That is wonderful, Caroline. What did the group talk about?' },
  { id: 't3', speaker: 'Caroline', sessionId: 's2', createdAt: JUNE_20, text: 'The LGBTQ support group is where I go when I need people who understand me, Caroline says.' },
  { id: 't4', speaker: 'Melanie', sessionId: 's2', createdAt: JUNE_20 + 60_000, text: 'We are going camping with the kids next month!' },
];

describe('relative times', () => {
  it('a "when" question lifts the turn that says when above a closer match, and only a question about time does', async () => {
    const m = await open({ clock: () => JUNE_20 + 86_400_000 });
    await m.turns.addMany(TURNS);
    const when = await m.recall('When did Caroline go to the LGBTQ support group?', { k: 4 });
    const what = await m.recall('Caroline LGBTQ support group', { k: 4 });
    // Without the boost, the turn that repeats the words wins; the question about time puts the dated one first.
    const off = await open({ clock: () => JUNE_20 + 86_400_000, ranking: { timeQuestionBoost: 0 } });
    await off.turns.addMany(TURNS);
    const unboosted = await off.recall('When did Caroline go to the LGBTQ support group?', { k: 4 });
    expect(unboosted[0]!.memory.id).toBe('t3');
    expect(unboosted.every((h) => h.parts.timeMatch === undefined)).toBe(true);

    expect(when[0]!.memory.id).toBe('t1');
    expect(when[0]!.parts.timeMatch).toBe(1.3);
    const t1Unboosted = unboosted.find((h) => h.memory.id === 't1')!;
    expect(when[0]!.score).toBeCloseTo(t1Unboosted.score * 1.3, 12);
    expect(when[0]!.times).toEqual([{ text: 'yesterday', grain: 'day', offset: -1 }]);
    // A question not about time: no boost, though the hits still carry their times.
    expect(what.every((h) => h.parts.timeMatch === undefined)).toBe(true);
    expect(what.find((h) => h.memory.id === 't1')!.times).toEqual([{ text: 'yesterday', grain: 'day', offset: -1 }]);
    expect(what.find((h) => h.memory.id === 't3')!.times).toBeUndefined();
  });

  it('the boost belongs to the turn that says when: a turn carried by it is not boosted twice', async () => {
    const m = await open({ clock: () => JUNE_20 + 86_400_000 });
    await m.turns.addMany(TURNS);
    const hits = await m.recall('When did Caroline go to the LGBTQ support group?', { k: 4 });
    const t1 = hits.find((h) => h.memory.id === 't1')!;
    const t2 = hits.find((h) => h.memory.id === 't2')!;
    // t2 ranks by t1 (the question before it): 0.85 × t1's score without t1's own boosts (its time, and its speaker, whom
    // the question names); t2 gives no time itself, and its speaker (Melanie) is not named.
    expect(t2.answers?.id).toBe('t1');
    expect(t1.parts.speakerMatch).toBe(1.2);
    expect(t2.parts.timeMatch).toBeUndefined();
    expect(t2.parts.speakerMatch).toBeUndefined();
    expect(t2.parts.previousTurn).toBeCloseTo((0.85 * t1.score) / (1.3 * 1.2), 12);
    expect(t2.score).toBe(t2.parts.previousTurn);
  });

  it('formatContext shows what each relative time means, in the zone it renders in', async () => {
    const m = await open({ clock: () => JUNE_20 + 86_400_000 });
    await m.turns.addMany(TURNS);
    const hits = await m.recall('When are they going camping?', { k: 4 });
    const text = m.formatContext(hits, { now: JUNE_20 + 86_400_000, timeZone: 'UTC' });
    expect(text).toContain('- (2023-06-20, turn, Melanie) We are going camping with the kids next month (2023-07)!');
    expect(text).toContain('- (2023-05-08, turn, Caroline) I went to a LGBTQ support group yesterday (2023-05-07) and it was so powerful.');
  });

  it('facts and episodes are dated too; an update that drops the time drops the boost', async () => {
    const m = await open({ clock: () => JUNE_20 });
    await m.facts.add({ id: 'f1', text: 'Started learning the piano last month', createdAt: MAY_8 });
    await m.episodes.add({ id: 'e1', goal: 'Book piano lessons for next week', outcome: 'Booked a teacher', createdAt: MAY_8 });
    const hits = await m.recall('When did the user start the piano?', { k: 2 });
    expect(Object.fromEntries(hits.map((h) => [h.memory.id, h.parts.timeMatch]))).toEqual({ f1: 1.3, e1: 1.3 });
    expect(hits.find((h) => h.memory.id === 'f1')!.times).toEqual([{ text: 'last month', grain: 'month', offset: -1 }]);
    await m.facts.update('f1', { text: 'Plays the piano' });
    const after = await m.recall('When did the user start the piano?', { k: 2 });
    expect(after.find((h) => h.memory.id === 'f1')!.parts.timeMatch).toBeUndefined();
    expect(after.find((h) => h.memory.id === 'f1')!.times).toBeUndefined();
  });

  it('rejects a bad timeQuestionBoost with a typed error', async () => {
    await expect(open({ ranking: { timeQuestionBoost: -1 } })).rejects.toThrow(ValidationError);
    await expect(open({ ranking: { timeQuestionBoost: Number.NaN } })).rejects.toThrow(/timeQuestionBoost/);
  });
});
