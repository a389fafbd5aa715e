import { describe, expect, it } from 'vitest';
import { episodeDraft, noFacts, scriptedLLM } from '../support/scripted-llm.js';
import { memoryFixture } from '../support/memory-fixture.js';

const { open } = memoryFixture();
const MIN = 60_000;
const turn = { userId: 'u', user: 'We settled it: Postgres.', assistant: 'Great, Postgres it is.' };
let counter = 0;
/** Each draft is about something different, so novelty merge and dedup stay out of the way. */
const distinctDraft = () => {
  const topics = ['gardening tomatoes', 'tax return filing', 'guitar practice', 'marathon training', 'kitchen renovation', 'car insurance', 'python packaging', 'wedding planning', 'sourdough baking'];
  const topic = topics[counter++ % topics.length]!;
  return episodeDraft({ goal: `Decide the plan for ${topic} this month`, context: `The user discussed ${topic} options at length`, tags: [topic.split(' ')[0]!] });
};

describe('episode capture controls', () => {
  it('cooldown in turns since the last episode', async () => {
    let now = Date.UTC(2026, 0, 1);
    const llm = scriptedLLM({ extract: noFacts(true), episode: distinctDraft });
    const m = await open({ clock: () => now, llm: llm.provider, capture: { cooldownTurns: 2, cooldownMinutes: 0 } });
    const scheduled: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await m.observe(turn);
      await m.idle();
      scheduled.push(r.episodeScheduled);
      if (!r.episodeScheduled) expect(r).toMatchObject({ reason: 'capture_cooldown', detail: expect.stringMatching(/turns/) });
      now += MIN;
    }
    expect(scheduled).toEqual([true, false, true, false, true]);
  });

  it('cooldown in minutes since the last episode', async () => {
    let now = Date.UTC(2026, 0, 1);
    const llm = scriptedLLM({ extract: noFacts(true), episode: distinctDraft });
    const m = await open({ clock: () => now, llm: llm.provider, capture: { cooldownTurns: 0, cooldownMinutes: 10 } });
    expect((await m.observe(turn)).episodeScheduled).toBe(true);
    await m.idle();
    now += 9 * MIN;
    expect(await m.observe(turn)).toMatchObject({ episodeScheduled: false, reason: 'capture_cooldown', detail: expect.stringMatching(/minutes/) });
    now += 2 * MIN;
    expect((await m.observe(turn)).episodeScheduled).toBe(true);
    await m.idle();
    const skipped = (await m.activity()).events.filter((e) => e.type === 'capture');
    expect(skipped).toHaveLength(1);
  });

  it('daily cap counted from midnight in the user\'s time zone', async () => {
    // 23:30 in Lisbon on 1 June (UTC+1) is 22:30 UTC; midnight Lisbon is 23:00 UTC.
    let now = Date.UTC(2026, 5, 1, 22, 30);
    const llm = scriptedLLM({ extract: noFacts(true), episode: distinctDraft });
    const m = await open({ clock: () => now, llm: llm.provider, capture: { cooldownTurns: 0, cooldownMinutes: 0, maxPerDay: 2 }, lifecycle: { dedupThreshold: 0 } });
    await m.profile.update('u', { timeZone: 'Europe/Lisbon' });
    for (let i = 0; i < 2; i++) {
      expect((await m.observe(turn)).episodeScheduled).toBe(true);
      await m.idle();
      now += MIN;
    }
    expect(await m.observe(turn)).toMatchObject({ episodeScheduled: false, reason: 'capture_daily_cap' });
    now = Date.UTC(2026, 5, 1, 23, 1); // 00:01 on 2 June in Lisbon (still 1 June in UTC)
    expect((await m.observe(turn)).episodeScheduled).toBe(true);
    await m.idle();
    expect(await m.episodes.list({ userId: 'u' })).toHaveLength(3);
  });

  it('merges a low-novelty episode into a recent one instead of creating another', async () => {
    let now = Date.UTC(2026, 0, 1);
    const llm = scriptedLLM({ extract: noFacts(true) });
    llm.enqueue('episode', episodeDraft({ tags: ['databases'] }), episodeDraft({ outcome: 'Confirmed DuckDB after a second round of benchmarks', tags: ['benchmarks'] }));
    const m = await open({ clock: () => now, llm: llm.provider, capture: { cooldownTurns: 0, cooldownMinutes: 0 } });
    await m.observe(turn);
    await m.idle();
    now += 60 * MIN;
    await m.observe(turn);
    await m.idle();
    const episodes = await m.episodes.list({ userId: 'u' });
    expect(episodes).toHaveLength(1);
    expect(episodes[0]).toMatchObject({ outcome: 'Confirmed DuckDB after a second round of benchmarks', tags: ['databases', 'benchmarks'] });

    // Outside the merge window, the same content is a new write (and dedup decides, newest wins).
    now += 7 * 60 * MIN;
    llm.enqueue('episode', episodeDraft({ tags: ['later'] }));
    await m.observe(turn);
    await m.idle();
    const after = await m.episodes.list({ userId: 'u' });
    expect(after).toHaveLength(1);
    expect(after[0]!.id).not.toBe(episodes[0]!.id);
  });
});
