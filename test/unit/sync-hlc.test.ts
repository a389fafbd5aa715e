import { describe, expect, it } from 'vitest';
import { SyncError, ValidationError } from '../../src/errors.js';
import { compareHlc, createHybridClock, formatHlc, hlcDevice, parseHlc } from '../../src/replication/hlc.js';

/** A physical clock the test moves by hand. */
function manualClock(start: number) {
  let t = start;
  return { now: () => t, set: (v: number) => void (t = v) };
}

describe('hybrid logical clock', () => {
  it('serialises and parses back, and string order is (wall, counter, device) order', () => {
    const a = formatHlc({ wall: 1_700_000_000_000, counter: 0, device: 'dev-A' });
    expect(a).toBe(`${(1_700_000_000_000).toString(16).padStart(12, '0')}0000-dev-A`);
    expect(parseHlc(a)).toEqual({ wall: 1_700_000_000_000, counter: 0, device: 'dev-A' });
    expect(hlcDevice(a)).toBe('dev-A');
    const sorted = [
      { wall: 2, counter: 0, device: 'a' },
      { wall: 1, counter: 65535, device: 'z' },
      { wall: 1, counter: 1, device: 'b' },
      { wall: 1, counter: 1, device: 'a' },
      { wall: 1, counter: 1, device: 'B' },
      { wall: 0xfff, counter: 0, device: 'a' },
    ].map(formatHlc);
    const byString = [...sorted].sort(compareHlc).map(parseHlc);
    const byParts = sorted.map(parseHlc).sort((x, y) => x.wall - y.wall || x.counter - y.counter || (x.device < y.device ? -1 : x.device > y.device ? 1 : 0));
    expect(byString).toEqual(byParts);
    expect(compareHlc(sorted[0]!, sorted[0]!)).toBe(0);
  });

  it('ticks follow the wall clock, and count within one millisecond', () => {
    const time = manualClock(1000);
    const clock = createHybridClock({ device: 'A', now: time.now });
    const first = clock.tick();
    const second = clock.tick();
    expect(parseHlc(first)).toEqual({ wall: 1000, counter: 0, device: 'A' });
    expect(parseHlc(second)).toEqual({ wall: 1000, counter: 1, device: 'A' });
    time.set(1005);
    expect(parseHlc(clock.tick())).toEqual({ wall: 1005, counter: 0, device: 'A' });
  });

  it('stays monotonic when the wall clock goes backwards', () => {
    const time = manualClock(50_000);
    const clock = createHybridClock({ device: 'A', now: time.now });
    const before = clock.tick();
    time.set(10_000); // the system clock was set back 40 s
    const after = [clock.tick(), clock.tick()];
    expect(compareHlc(after[0]!, before)).toBe(1);
    expect(compareHlc(after[1]!, after[0]!)).toBe(1);
    expect(parseHlc(after[1]!)).toEqual({ wall: 50_000, counter: 2, device: 'A' });
  });

  it('a counter overflow moves the logical wall time on instead of wrapping', () => {
    const clock = createHybridClock({ device: 'A', now: () => 7, last: formatHlc({ wall: 7, counter: 65535, device: 'A' }) });
    const next = clock.tick();
    expect(parseHlc(next)).toEqual({ wall: 8, counter: 0, device: 'A' });
  });

  it('after observing a remote clock, the next tick is later than it, even when the remote runs ahead', () => {
    const time = manualClock(1000);
    const a = createHybridClock({ device: 'A', now: time.now });
    const remote = formatHlc({ wall: 5000, counter: 3, device: 'B' });
    a.observe(remote);
    const next = a.tick();
    expect(compareHlc(next, remote)).toBe(1);
    expect(parseHlc(next)).toEqual({ wall: 5000, counter: 5, device: 'A' });
    // Observing an older clock changes nothing but the counter.
    a.observe(formatHlc({ wall: 10, counter: 0, device: 'B' }));
    expect(compareHlc(a.tick(), next)).toBe(1);
  });

  it('resumes after a restart from the persisted clock even if the wall clock is now behind it', () => {
    const first = createHybridClock({ device: 'A', now: () => 9000 });
    first.tick();
    const persisted = first.last;
    const restarted = createHybridClock({ device: 'A', now: () => 100, last: persisted });
    expect(compareHlc(restarted.tick(), persisted)).toBe(1);
  });

  it('refuses a remote clock too far ahead with a typed error, and is left unchanged', () => {
    const clock = createHybridClock({ device: 'A', now: () => 1_000_000, maxDriftMs: 60_000 });
    const before = clock.tick();
    const far = formatHlc({ wall: 1_000_000 + 60_001, counter: 0, device: 'B' });
    const error = (() => {
      try {
        clock.observe(far);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SyncError);
    expect((error as SyncError).reason).toBe('clock');
    expect((error as SyncError).details).toMatchObject({ device: 'B', aheadMs: 60_001 });
    expect(parseHlc(clock.last)).toEqual(parseHlc(before));
    // Exactly at the bound is accepted.
    clock.observe(formatHlc({ wall: 1_060_000, counter: 0, device: 'B' }));
    expect(parseHlc(clock.last).wall).toBe(1_060_000);
  });

  it('refuses a device id outside the safe alphabet with a ValidationError', () => {
    expect(() => createHybridClock({ device: 'has space' })).toThrow(ValidationError);
    expect(() => createHybridClock({ device: 'A', last: 'yesterday' })).toThrow(ValidationError);
  });
});
