import { describe, expect, it } from 'vitest';
import { formatReplay } from '../../src/index.js';
import { memoryFixture } from '../support/memory-fixture.js';

const DAY = 86_400_000;
const t0 = Date.UTC(2026, 2, 1);
const { open } = memoryFixture();

describe('structured metadata', () => {
  it('filters list() and recall() on participants, tools, entities, outcome and tags', async () => {
    const m = await open({ lifecycle: { dedupThreshold: 0, chainThreshold: 1 } });
    const a = await m.episodes.add({
      text: 'Debugged the flaky checkout test with Ana',
      participants: ['ana', 'me'],
      toolsUsed: ['vitest', 'git bisect'],
      entities: ['checkout-service'],
      keyDecisions: ['quarantine the test'],
      outcomeStatus: 'success',
      tags: ['testing'],
    });
    const b = await m.episodes.add({
      text: 'Planned the checkout redesign with Ben',
      participants: ['ben'],
      toolsUsed: ['figma'],
      entities: ['checkout-service'],
      outcomeStatus: 'ongoing',
      tags: ['design'],
    });
    const ids = (list: { id: string }[]) => list.map((e) => e.id).sort();
    expect(ids(await m.episodes.list({ participants: ['ana'] }))).toEqual([a.id]);
    expect(ids(await m.episodes.list({ toolsUsed: ['figma', 'vitest'] }))).toEqual([a.id, b.id].sort());
    expect(ids(await m.episodes.list({ entities: ['checkout-service'], outcomeStatus: ['ongoing'] }))).toEqual([b.id]);
    expect(ids(await m.episodes.list({ tags: ['testing'] }))).toEqual([a.id]);
    expect((await m.recall('checkout', { filter: { participants: 'ben' } })).map((h) => h.memory.id)).toEqual([b.id]);
    expect((await m.recall('checkout', { filter: { outcomeStatus: 'success' } })).map((h) => h.memory.id)).toEqual([a.id]);
  });

  it('state only moves forward and archived episodes leave recall unless asked for', async () => {
    const m = await open();
    const e = await m.episodes.add({ text: 'Negotiated the apartment lease renewal' });
    await m.episodes.update(e.id, { state: 'summarized' });
    await m.episodes.update(e.id, { state: 'archived' });
    await expect(m.episodes.update(e.id, { state: 'active' })).rejects.toThrow(/only moves forward/);
    expect(await m.recall('apartment lease')).toEqual([]);
    expect((await m.recall('apartment lease', { includeArchived: true })).map((h) => h.memory.id)).toEqual([e.id]);
  });
});

describe('chronological replay', () => {
  it('orders relevant episodes by start time and drops those under the relevance floor', async () => {
    const m = await open({ lifecycle: { dedupThreshold: 0, chainThreshold: 1 } });
    const later = await m.episodes.add({ goal: 'Kitchen renovation: installed the cabinets and the kitchen sink', outcome: 'Cabinets in', startedAt: t0 + 10 * DAY, tags: ['kitchen'], outcomeStatus: 'ongoing' });
    const first = await m.episodes.add({ goal: 'Kitchen renovation: chose tiles and cabinets for the kitchen', outcome: 'Ordered oak cabinets', startedAt: t0, tags: ['kitchen'], outcomeStatus: 'success' });
    const middle = await m.episodes.add({ goal: 'Kitchen renovation: removed the old kitchen cabinets', startedAt: t0 + 5 * DAY, parentId: first.id });
    await m.episodes.add({ goal: 'Filed the quarterly tax return', startedAt: t0 + 2 * DAY });

    const replay = await m.episodes.sequence('kitchen renovation cabinets', { limit: 10 });
    expect(replay.map((e) => e.id)).toEqual([first.id, middle.id, later.id]);
    // A limit keeps the first episodes of the replay, in its order.
    expect((await m.episodes.sequence('kitchen renovation cabinets', { limit: 2 })).map((e) => e.id)).toEqual([first.id, middle.id]);
    expect(await m.episodes.sequence('kitchen renovation cabinets', { minRelevance: 0.99 })).toEqual([]);

    expect(formatReplay(replay.slice(0, 2))).toBe(
      [
        '[2026-03-01] Kitchen renovation: chose tiles and cabinets for the kitchen',
        'Ordered oak cabinets',
        'Tags: kitchen | Outcome: success',
        '',
        `[2026-03-06] Kitchen renovation: removed the old kitchen cabinets (continues ${first.id.slice(0, 8)})`,
        'Tags: - | Outcome: unknown',
      ].join('\n'),
    );
  });

  it('a short topic replays the episodes tagged with it, in order, even when no text mentions it', async () => {
    const m = await open({ lifecycle: { dedupThreshold: 0, chainThreshold: 1 } });
    const second = await m.episodes.add({ goal: 'Made the test job cache its dependencies', outcome: 'Builds took 4 minutes instead of 11', startedAt: t0 + DAY, tags: ['ci'] });
    const first = await m.episodes.add({ goal: 'Moved the build pipeline to a new runner', startedAt: t0, tags: ['CI', 'infra'] });
    await m.episodes.add({ goal: 'Planned the garden beds for spring', startedAt: t0 + 2 * DAY, tags: ['garden'] });
    // Tags match in any letter case; the garden episode is not on the topic.
    expect((await m.episodes.sequence('ci')).map((e) => e.id)).toEqual([first.id, second.id]);
    expect((await m.episodes.sequence(' CI ')).map((e) => e.id)).toEqual([first.id, second.id]);
    expect((await m.episodes.sequence('ci', { limit: 1 })).map((e) => e.id)).toEqual([first.id]);
    // Another user's episode tagged "ci" is not replayed.
    await m.episodes.add({ userId: 'other', goal: 'Their pipeline', tags: ['ci'] });
    expect((await m.episodes.sequence('ci')).map((e) => e.id)).toEqual([first.id, second.id]);
  });
});
