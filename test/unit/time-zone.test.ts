import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DAY_MS, localMs, periodOf } from '../../src/time/civil.js';
import { instantOf, localOf, offsetAt } from '../../src/time/zone.js';

/**
 * Windows of a query are wall-clock days placed in the app's zone
 * (time/zone.ts): the instants of a day, 23 or 25 hours long where the
 * clocks change, whatever zone the runtime is in.
 */
const H = 3_600_000;
/** tsx, to run a TypeScript check in a Node process of its own. */
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const dayIn = (local: number, zone: string) => ({ from: instantOf(local, zone), to: instantOf(local + DAY_MS, zone) });

describe('wall clocks and instants in a zone', () => {
  it('round-trips every hour of a year in several zones', () => {
    for (const zone of ['UTC', 'Europe/Lisbon', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'America/St_Johns']) {
      for (let instant = Date.UTC(2024, 0, 1); instant < Date.UTC(2025, 0, 1); instant += H) {
        const local = localOf(instant, zone);
        // Where the clocks go back, the wall clock shows twice: instantOf gives the first of the two.
        expect(instantOf(local, zone) <= instant).toBe(true);
        expect(localOf(instantOf(local, zone), zone)).toBe(local);
      }
    }
  });

  it('knows offsets of half and quarter hours', () => {
    expect(offsetAt(Date.UTC(2024, 5, 1), 'Asia/Kolkata')).toBe(5.5 * H);
    expect(offsetAt(Date.UTC(2024, 5, 1), 'Asia/Kathmandu')).toBe(5.75 * H);
    expect(localOf(Date.UTC(2024, 4, 8, 20), 'Asia/Tokyo')).toBe(localMs(2024, 5, 9, 5));
  });

  it('a day where the clocks go forward is 23 hours, and the skipped hour starts at the jump (America/New_York, 2024-03-10)', () => {
    const day = dayIn(localMs(2024, 3, 10), 'America/New_York');
    expect(day.from).toBe(Date.UTC(2024, 2, 10, 5));
    expect(day.to - day.from).toBe(23 * H);
    // 02:30 does not exist: a window from it starts at 03:00 EDT, the instant of the jump.
    expect(instantOf(localMs(2024, 3, 10, 2, 30), 'America/New_York')).toBe(Date.UTC(2024, 2, 10, 7));
  });

  it('a day where the clocks go back is 25 hours, and a repeated wall time is its first instant (America/New_York, 2024-11-03)', () => {
    const day = dayIn(localMs(2024, 11, 3), 'America/New_York');
    expect(day.to - day.from).toBe(25 * H);
    expect(instantOf(localMs(2024, 11, 3, 1, 30), 'America/New_York')).toBe(Date.UTC(2024, 10, 3, 5, 30));
  });

  it('Europe/Lisbon changes at 01:00 UTC; Lord Howe by half an hour', () => {
    expect(dayIn(localMs(2024, 3, 31), 'Europe/Lisbon').to - dayIn(localMs(2024, 3, 31), 'Europe/Lisbon').from).toBe(23 * H);
    expect(dayIn(localMs(2024, 10, 27), 'Europe/Lisbon').to - dayIn(localMs(2024, 10, 27), 'Europe/Lisbon').from).toBe(25 * H);
    const lordHowe = dayIn(localMs(2024, 10, 6), 'Australia/Lord_Howe');
    expect(lordHowe.to - lordHowe.from).toBe(23.5 * H);
  });

  it('a day the zone skipped holds no instant (Pacific/Apia left out 2011-12-30)', () => {
    const skipped = dayIn(localMs(2011, 12, 30), 'Pacific/Apia');
    expect(skipped.to - skipped.from).toBe(0);
    expect(dayIn(localMs(2011, 12, 29), 'Pacific/Apia').to).toBe(skipped.from);
  });

  it('a week is 7 wall-clock days from Monday, whatever the clocks did in it', () => {
    const week = periodOf(localMs(2024, 3, 13), 'week');
    expect(week.from).toBe(localMs(2024, 3, 11));
    expect(instantOf(week.to, 'America/New_York') - instantOf(week.from, 'America/New_York')).toBe(7 * DAY_MS);
    const spring = periodOf(localMs(2024, 3, 6), 'week');
    expect(instantOf(spring.to, 'America/New_York') - instantOf(spring.from, 'America/New_York')).toBe(7 * DAY_MS - H);
  });
});

/**
 * The runtime's own zone (no zone named) is read through `Date`, not `Intl`
 * (whose first formatter loads its date-format data). Each zone runs in a
 * Node process of its own with TZ set: what the two give must agree to the
 * millisecond, daylight saving, half-hour zones, skipped days, local mean
 * time before 1912 and years before the common era included.
 */
describe("the runtime's zone, read through Date", () => {
  const zones = ['Europe/Lisbon', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Apia', 'Asia/Kathmandu', 'UTC'];
  const script = `
    import { instantOf, localOf, offsetAt, runtimeTimeZone } from ${JSON.stringify(fileURLToPath(new URL('../../src/time/zone.ts', import.meta.url)))};
    const zone = runtimeTimeZone();
    const instants = [];
    for (let year = 1890; year <= 2040; year += 1) for (let day = 0; day < 365; day += 7) instants.push(Date.UTC(year, 0, 1) + day * 86_400_000 + ((year * 7919 + day * 104729) % 86_400_000));
    instants.push(Date.UTC(-200, 5, 1, 12), Date.UTC(33, 2, 1), Date.UTC(2011, 11, 29, 10), Date.UTC(2024, 2, 31, 0, 59, 59, 999), Date.UTC(2024, 2, 31, 1));
    const differ = [];
    for (const instant of instants) {
      const byDate = offsetAt(instant, undefined);
      const byIntl = offsetAt(instant, zone);
      if (byDate !== byIntl) differ.push([new Date(instant).toISOString(), byDate, byIntl]);
      const local = localOf(instant, zone);
      if (instantOf(local, undefined) !== instantOf(local, zone)) differ.push(['instantOf', local]);
    }
    console.log(JSON.stringify({ zone, checked: instants.length, differ: differ.slice(0, 5) }));
  `;

  it.each(zones)('%s: the same offsets and instants as Intl gives for the zone by name', (zone) => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-tz-'));
    try {
      const file = join(dir, 'check.ts');
      writeFileSync(file, script);
      const out = execFileSync(TSX, [file], { env: { ...process.env, TZ: zone }, encoding: 'utf8' });
      const result = JSON.parse(out.trim().split('\n').pop()!) as { zone: string; checked: number; differ: unknown[] };
      // TZ took effect (ICU may name a zone by an older alias: Asia/Katmandu).
      expect(result.zone === 'UTC').toBe(zone === 'UTC');
      expect(result.checked).toBeGreaterThan(7000);
      expect(result.differ).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
