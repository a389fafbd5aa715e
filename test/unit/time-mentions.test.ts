import { describe, expect, it } from 'vitest';
import { formatContext } from '../../src/recall/format-context.js';
import { buildFact } from '../../src/memories/facts/build-fact.js';
import { timeMentions } from '../../src/time/time-mentions.js';
import type { TimeMention } from '../../src/schema/time-mention.js';

/** Monday 8 May 2023, 12:00 UTC: the same calendar day in every zone from UTC-11 to UTC+11, where these tests may run. */
const MONDAY = Date.UTC(2023, 4, 8, 12);

describe('timeMentions: relative times resolved against when the memory was written', () => {
  it.each<[string, TimeMention[]]>([
    ['I went to a support group yesterday and it was powerful.', [{ text: 'yesterday', grain: 'day', offset: -1 }]],
    ['My school event last week was awesome', [{ text: 'last week', grain: 'week', offset: -1 }]],
    ["We're thinking about going camping next month.", [{ text: 'next month', grain: 'month', offset: 1 }]],
    ['A friend made it for me two years ago', [{ text: 'two years ago', grain: 'year', offset: -2 }]],
    ['I ran a charity race last Saturday', [{ text: 'last Saturday', grain: 'day', offset: -2 }]],
    ['See you tomorrow!', [{ text: 'tomorrow', grain: 'day', offset: 1 }]],
    ['It has been a busy week: earlier this week I moved', [{ text: 'this week', grain: 'week', offset: 0 }]],
    ['The results come in a few days', [{ text: 'in a few days', grain: 'day', offset: 3 }]],
    // chrono-node 2.10.3 reads "about 167 days ago" as 7 days ago and "around 12 days ago" as 2 (time/chrono-amounts.ts).
    ['We met about 167 days ago at the fair', [{ text: '167 days ago', grain: 'day', offset: -167 }]],
    ['I started around 12 days ago', [{ text: '12 days ago', grain: 'day', offset: -12 }]],
    ['Last year I moved; next week I start; yesterday I packed.', [
      { text: 'Last year', grain: 'year', offset: -1 },
      { text: 'next week', grain: 'week', offset: 1 },
      { text: 'yesterday', grain: 'day', offset: -1 },
    ]],
  ])('%s', (text, expected) => {
    expect(timeMentions(text, MONDAY)).toEqual(expected);
  });

  it.each([
    'I see what you mean now',
    'see you tonight',
    'this morning I went for a run',
    'the sun was out all day',
    "I've known these friends for 4 years",
    'May I ask you something?',
    'Pottery is my favourite thing in the world',
  ])('leaves out what is not a relative date: %s', (text) => {
    expect(timeMentions(text, MONDAY)).toEqual([]);
  });

  it('counts weeks from Monday and months across a year end', () => {
    const sunday = Date.UTC(2023, 4, 14, 12);
    expect(timeMentions('last week', sunday)).toEqual([{ text: 'last week', grain: 'week', offset: -1 }]);
    const newYearsEve = Date.UTC(2023, 11, 31, 12);
    expect(timeMentions('next month', newYearsEve)).toEqual([{ text: 'next month', grain: 'month', offset: 1 }]);
    expect(timeMentions('tomorrow', newYearsEve)).toEqual([{ text: 'tomorrow', grain: 'day', offset: 1 }]);
  });
});

describe('formatContext shows the date a relative time means', () => {
  const fact = buildFact({ userId: 'default', text: 'Went to a support group yesterday; camping next month, and the move was last week, two years ago was Lisbon', createdAt: MONDAY }, MONDAY);
  const times = timeMentions(fact.text, MONDAY);

  it('after each mention, counted from the memory date in the zone it renders in', () => {
    expect(formatContext([{ memory: fact, times }], { now: MONDAY, timeZone: 'UTC' }).split('\n')[1]).toBe(
      '- (2023-05-08, fact) Went to a support group yesterday (2023-05-07); camping next month (2023-06), and the move was last week (week of 2023-05-01), two years ago (2021) was Lisbon',
    );
    // 12:00 UTC is already Tuesday in Kiritimati (UTC+14): the memory's date and what "yesterday" means move together.
    expect(formatContext([{ memory: fact, times: times.slice(0, 1) }], { now: MONDAY, timeZone: 'Pacific/Kiritimati' }).split('\n')[1]).toMatch(
      /^- \(2023-05-09, fact\) Went to a support group yesterday \(2023-05-08\);/,
    );
  });

  it('a hit built by hand: a mention not in the text is skipped, an offset outside years 1 to 9999 shows no date, a bad one is refused', () => {
    const line = (t: TimeMention[]) => formatContext([{ memory: fact, times: t }], { now: MONDAY, timeZone: 'UTC' }).split('\n')[1];
    expect(line([{ text: 'last Easter', grain: 'day', offset: -30 }])).toBe(`- (2023-05-08, fact) ${fact.text}`);
    expect(line([{ text: 'yesterday', grain: 'year', offset: 100_000 }, { text: 'next month', grain: 'month', offset: -100_000 }])).toBe(`- (2023-05-08, fact) ${fact.text}`);
    expect(line([{ text: 'yesterday', grain: 'day', offset: -100_000 }])).toContain('yesterday (1749-');
    expect(() => formatContext([{ memory: fact, times: [{ text: 'yesterday', grain: 'day', offset: 0.5 }] }])).toThrow(/times\.0\.offset/);
    expect(() => formatContext([{ memory: fact, times: [{ text: 'yesterday', grain: 'fortnight' as 'day', offset: 1 }] }])).toThrow(/times\.0\.grain/);
  });
});
