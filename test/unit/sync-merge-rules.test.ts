import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeFields, mergeRetirement, type FieldwiseVersion, type Retirement } from '../../src/replication/field-merge.js';
import { formatHlc } from '../../src/replication/hlc.js';
import { DEFAULT_TOMBSTONE_TTL_MS, incomingWins, lastWriter, tombstoneFate, type Version } from '../../src/replication/merge-rules.js';
import { duplicatesToDelete, overCap, type EpisodeFacts } from '../../src/replication/reconcile.js';

const at = (wall: number, device: string, counter = 0) => formatHlc({ wall, counter, device });
const DEVICES = ['laptop', 'phone', 'tablet'];
const hlcArb = fc.record({ wall: fc.integer({ min: 0, max: 20 }), counter: fc.integer({ min: 0, max: 3 }), device: fc.constantFrom(...DEVICES) }).map(formatHlc);

describe('last writer wins', () => {
  it('the worked example: same millisecond and counter, the device id decides', () => {
    const phone = { hlc: at(1000, 'phone'), deleted: false, text: 'lives in Porto' };
    const laptop = { hlc: at(1000, 'laptop'), deleted: false, text: 'lives in Lisbon' };
    expect(lastWriter(phone, laptop).text).toBe('lives in Porto');
    expect(lastWriter(laptop, phone).text).toBe('lives in Porto');
    expect(incomingWins(laptop, phone)).toBe(true);
    expect(incomingWins(phone, laptop)).toBe(false);
    expect(incomingWins(phone, phone)).toBe(false);
    expect(incomingWins(undefined, phone)).toBe(true);
  });

  it('a delete wins over an earlier put, and a later put brings the record back', () => {
    const put1: Version = { hlc: at(1, 'phone'), deleted: false };
    const del: Version = { hlc: at(2, 'laptop'), deleted: true };
    const put3: Version = { hlc: at(3, 'phone'), deleted: false };
    expect(lastWriter(put1, del)).toBe(del);
    expect(lastWriter(del, put3)).toBe(put3);
  });

  it('any order of applying the same versions ends in the same one (a join)', () => {
    fc.assert(
      fc.property(
        fc.array(hlcArb, { minLength: 1, maxLength: 8 }).chain((clocks) => fc.tuple(fc.constant(clocks), fc.shuffledSubarray(clocks, { minLength: clocks.length }))),
        ([clocks, reordered]) => {
          const versions = clocks.map((hlc) => ({ hlc }));
          const shuffled = reordered.map((hlc) => ({ hlc }));
          const applied = (list: typeof versions) => list.reduce((held: { hlc: string } | undefined, v) => (incomingWins(held, v) ? v : held), undefined);
          expect(applied(shuffled)!.hlc).toBe(applied(versions)!.hlc);
          expect(applied(versions)!.hlc).toBe([...clocks].sort().at(-1));
        },
      ),
    );
  });
});

describe('tombstones', () => {
  const day = 86_400_000;
  it('go once every known device has pulled past them', () => {
    expect(tombstoneFate({ cursor: 10n, storedAt: 0 }, { pulled: [10n, 12n], now: day })).toBe('passed');
    expect(tombstoneFate({ cursor: 10n, storedAt: 0 }, { pulled: [9n, 12n], now: day })).toBe('keep');
  });

  it('go after the TTL even if a device has not passed them (that device must rejoin)', () => {
    const storedAt = 1_000_000;
    expect(tombstoneFate({ cursor: 10n, storedAt }, { pulled: [3n], now: storedAt + DEFAULT_TOMBSTONE_TTL_MS })).toBe('keep');
    expect(tombstoneFate({ cursor: 10n, storedAt }, { pulled: [3n], now: storedAt + DEFAULT_TOMBSTONE_TTL_MS + 1 })).toBe('expired');
    expect(tombstoneFate({ cursor: 10n, storedAt }, { pulled: [3n], now: storedAt + 2 * day, ttlMs: day })).toBe('expired');
  });
});

describe('per-field merge (profiles)', () => {
  it('the worked example: edits of different fields both survive, the later edit of the same field wins', () => {
    const phone: FieldwiseVersion = { values: { city: 'Porto' }, clocks: { city: at(20, 'phone') } };
    const laptop: FieldwiseVersion = { values: { name: 'Ana', city: 'Lisbon' }, clocks: { name: at(30, 'laptop'), city: at(10, 'laptop') } };
    const merged = { values: { city: 'Porto', name: 'Ana' }, clocks: { city: at(20, 'phone'), name: at(30, 'laptop') } };
    expect(mergeFields(phone, laptop)).toEqual(merged);
    expect(mergeFields(laptop, phone)).toEqual(merged);
  });

  it('a field cleared later stays cleared', () => {
    const set: FieldwiseVersion = { values: { city: 'Porto' }, clocks: { city: at(1, 'phone') } };
    const cleared: FieldwiseVersion = { values: {}, clocks: { city: at(2, 'laptop') } };
    expect(mergeFields(set, cleared)).toEqual({ values: {}, clocks: { city: at(2, 'laptop') } });
  });

  it('is commutative, associative and idempotent', () => {
    // Few distinct clocks, so that two sides often carry the same clock for a field (a tie the rule must break the same way both ways).
    const fewClocks = fc.record({ wall: fc.integer({ min: 0, max: 2 }), counter: fc.constant(0), device: fc.constantFrom(...DEVICES) }).map(formatHlc);
    const version = fc
      .dictionary(fc.constantFrom('name', 'city', 'tone', 'goals'), fc.tuple(fewClocks, fc.option(fc.string({ maxLength: 3 }), { nil: undefined })))
      .map((fields): FieldwiseVersion => ({
        clocks: Object.fromEntries(Object.entries(fields).map(([f, [c]]) => [f, c])),
        values: Object.fromEntries(Object.entries(fields).filter(([, [, v]]) => v !== undefined).map(([f, [, v]]) => [f, v])),
      }));
    fc.assert(
      fc.property(version, version, version, (a, b, c) => {
        expect(mergeFields(a, b)).toEqual(mergeFields(b, a));
        expect(mergeFields(mergeFields(a, b), c)).toEqual(mergeFields(a, mergeFields(b, c)));
        expect(mergeFields(a, a)).toEqual(mergeFields(a, { values: {}, clocks: {} }));
      }),
    );
  });
});

describe('fact retirement', () => {
  it('the worked example: retired on both sides, the later decision names the replacement', () => {
    const phone: Retirement = { status: 'retired', supersededBy: 'globex', validUntil: 100, hlc: at(100, 'phone') };
    const laptop: Retirement = { status: 'retired', supersededBy: 'initech', validUntil: 200, hlc: at(200, 'laptop') };
    expect(mergeRetirement(phone, laptop).supersededBy).toBe('initech');
    expect(mergeRetirement(laptop, phone).supersededBy).toBe('initech');
  });

  it('a retirement wins over a later edit that left the fact current', () => {
    const retired: Retirement = { status: 'retired', supersededBy: 'globex', validUntil: 100, hlc: at(100, 'phone') };
    const edited: Retirement = { status: 'current', supersededBy: null, validUntil: null, hlc: at(500, 'laptop') };
    expect(mergeRetirement(edited, retired)).toBe(retired);
    expect(mergeRetirement(retired, edited)).toBe(retired);
  });

  it('is commutative and associative', () => {
    const retirement = fc.record({ status: fc.constantFrom('current' as const, 'retired' as const), hlc: hlcArb }).map((r): Retirement => ({ ...r, supersededBy: r.status === 'retired' ? `by-${r.hlc}` : null, validUntil: null }));
    fc.assert(
      fc.property(retirement, retirement, retirement, (a, b, c) => {
        expect(mergeRetirement(a, b)).toEqual(mergeRetirement(b, a));
        expect(mergeRetirement(mergeRetirement(a, b), c)).toEqual(mergeRetirement(a, mergeRetirement(b, c)));
      }),
    );
  });
});

describe('episode invariants after a pull', () => {
  const unit = (...v: number[]) => {
    const norm = Math.hypot(...v);
    return new Float32Array(v.map((x) => x / norm));
  };
  const episode = (id: string, createdAt: number, vector: Float32Array, extra: Partial<EpisodeFacts> = {}): EpisodeFacts => ({ id, createdAt, pinned: false, provenance: 'trusted', vector, ...extra });

  it('the worked example: two devices booked the same flight; the older episode goes, whichever device decides', () => {
    const phone = episode('ep-phone', 9 * 3600_000, unit(1, 0.3, 0));
    const laptop = episode('ep-laptop', 9 * 3600_000 + 5 * 60_000, unit(1, 0.32, 0.01));
    const other = episode('ep-other', 10 * 3600_000, unit(0, 0, 1));
    expect(duplicatesToDelete([phone, laptop, other], 0.92)).toEqual(['ep-phone']);
    expect(duplicatesToDelete([other, laptop, phone], 0.92)).toEqual(['ep-phone']);
    expect(duplicatesToDelete([phone, laptop], 0)).toEqual([]);
  });

  it('an untrusted newer episode does not remove a trusted older one (the write-time provenance gate)', () => {
    const trusted = episode('a', 1, unit(1, 0));
    const untrusted = episode('b', 2, unit(1, 0.01), { provenance: 'untrusted' });
    expect(duplicatesToDelete([trusted, untrusted], 0.92)).toEqual([]);
  });

  it('the cap evicts the same oldest unpinned episodes on every device, ties broken by id', () => {
    const v = unit(1);
    const episodes = [episode('c', 5, v), episode('b', 5, v), episode('a', 9, v), episode('p', 1, v, { pinned: true }), episode('d', 2, v)];
    expect(overCap(episodes, 2)).toEqual(['d', 'b']);
    expect(overCap([...episodes].reverse(), 2)).toEqual(['d', 'b']);
    expect(overCap(episodes, 10)).toEqual([]);
  });
});
