import { afterEach, describe, expect, it } from 'vitest';
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

  describe('Intl formatters', () => {
    const RealFormat = Intl.DateTimeFormat;
    afterEach(() => {
      Intl.DateTimeFormat = RealFormat;
    });
    /** Counts the `Intl.DateTimeFormat`s built from here on (each costs a fraction of a millisecond warm, tens cold). */
    const countFormats = () => {
      const count = { built: 0 };
      const Counting = function (...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
        count.built++;
        return new RealFormat(...args);
      } as unknown as typeof Intl.DateTimeFormat;
      Object.assign(Counting, { supportedLocalesOf: RealFormat.supportedLocalesOf, prototype: RealFormat.prototype });
      Intl.DateTimeFormat = Counting;
      return count;
    };

    it('builds a zone\'s formatter once, not once per line or per call', () => {
      const facts = Array.from({ length: 20 }, (_, i) => ({ memory: buildFact({ userId: 'default', text: `Fact ${i}`, createdAt: at - i * 86_400_000 }, at) }));
      const count = countFormats();
      const first = formatContext(facts, { now: at, timeZone: 'Pacific/Chatham' });
      expect(count.built).toBeLessThanOrEqual(2);
      const built = count.built;
      const second = formatContext(facts, { now: at, timeZone: 'Pacific/Chatham' });
      expect(count.built).toBe(built);
      expect(second).toBe(first);
      // Chatham is UTC+13:45 in November: 22 Nov 23:30 UTC is 23 Nov 13:15 there.
      expect(first.split('\n').slice(0, 3)).toEqual(['Now: 2026-11-23 13:15 (Pacific/Chatham)', '- (2026-11-23, fact) Fact 0', '- (2026-11-22, fact) Fact 1']);
      // Another zone gets its own formatter, and its own dates.
      expect(formatContext(facts.slice(0, 1), { now: at, timeZone: 'America/Los_Angeles' })).toBe('Now: 2026-11-22 15:30 (America/Los_Angeles)\n- (2026-11-22, fact) Fact 0');
    });
  });
});
