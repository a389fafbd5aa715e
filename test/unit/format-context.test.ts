import { describe, expect, it } from 'vitest';
import { formatContext } from '../../src/recall/format-context.js';
import { buildEpisode } from '../../src/memories/episodes/write-episode.js';
import { buildFact } from '../../src/memories/facts/build-fact.js';

const at = Date.UTC(2026, 10, 22, 23, 30); // 22 Nov 23:30 UTC = 23 Nov in Tokyo

describe('formatContext', () => {
  it('renders the Now line and one compact line per memory, in the given zone', () => {
    const episode = buildEpisode({ userId: 'default', goal: 'Choose a database', context: 'x', outcome: 'Went with Postgres', quality: 'success', createdAt: at }, at);
    const noGoal = buildEpisode({ userId: 'default', text: 'First line of notes\nsecond line', createdAt: at }, at);
    const fact = buildFact({ userId: 'default', text: 'Lives in Porto', createdAt: at }, at);
    const text = formatContext([{ memory: episode }, { memory: noGoal }, { memory: fact }], { now: at, timeZone: 'Asia/Tokyo' });
    expect(text.split('\n')).toEqual([
      'Now: 2026-11-23 08:30 (Asia/Tokyo)',
      '- (2026-11-23, episode, success) Choose a database. Outcome: Went with Postgres',
      '- (2026-11-23, episode, unknown) First line of notes.',
      '- (2026-11-23, fact) Lives in Porto',
    ]);
    expect(formatContext([{ memory: fact }], { now: at, timeZone: 'UTC' })).toBe('Now: 2026-11-22 23:30 (UTC)\n- (2026-11-22, fact) Lives in Porto');
  });

  it('rejects an unknown time zone', () => {
    expect(() => formatContext([], { timeZone: 'Mars/Olympus' })).toThrow(/IANA time zone/);
  });
});
