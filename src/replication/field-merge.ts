import type { FieldClocks } from './change.js';
import { compareHlc, type HlcString } from './hlc.js';

/**
 * Merges finer than whole records, for kinds whose fields change
 * independently. Both are joins (commutative, associative, idempotent), so
 * replicas converge whatever order changes arrive in. Part of a kind's sync
 * rules: the registry says which kind merges how.
 */

/** A record merged field by field: its values, and the clock of each field's last write. A field with a clock and no value was cleared. */
export interface FieldwiseVersion {
  values: Record<string, unknown>;
  clocks: FieldClocks;
}

/**
 * Per-field last writer wins (profiles): each field keeps the value of its
 * own latest write, so edits of different fields on two devices both survive.
 *
 * Example: the phone sets the profile's `city` to "Porto" (clock t1); the
 * laptop, offline, sets `name` to "Ana" (t2) and `city` to "Lisbon" (t0 <
 * t1). After sync: name "Ana" (only the laptop wrote it), city "Porto" (t1
 * is later than t0).
 */
export function mergeFields(a: FieldwiseVersion, b: FieldwiseVersion): FieldwiseVersion {
  const values: Record<string, unknown> = {};
  const clocks: FieldClocks = {};
  const fields = new Set([...Object.keys(a.clocks), ...Object.keys(b.clocks), ...Object.keys(a.values), ...Object.keys(b.values)]);
  for (const field of [...fields].sort()) {
    const fromB = wins(b, a, field);
    const source = fromB ? b : a;
    const clock = source.clocks[field];
    if (clock !== undefined) clocks[field] = clock;
    if (source.values[field] !== undefined) values[field] = source.values[field];
  }
  return { values, clocks };
}

/**
 * Whether `x`'s write of `field` wins over `y`'s: the later clock (a field
 * with no clock was never written on that side and loses to any write);
 * between equal clocks, the larger JSON text, so the answer is the same
 * whichever side asks.
 */
function wins(x: FieldwiseVersion, y: FieldwiseVersion, field: string): boolean {
  const order = compareHlc(x.clocks[field] ?? '', y.clocks[field] ?? '');
  if (order !== 0) return order > 0;
  return (JSON.stringify(x.values[field]) ?? '') > (JSON.stringify(y.values[field]) ?? '');
}

/** A fact's place in its supersession history: whether it was retired, by which fact, when, and the clock of that decision. */
export interface Retirement {
  status: 'current' | 'retired';
  supersededBy: string | null;
  validUntil: number | null;
  hlc: HlcString;
}

/**
 * Retirement wins (facts): a fact retired on either device stays retired,
 * so the history of both sides is kept: the fact that replaced it on one
 * device, and any fact that replaced it on the other, are all kept, and the
 * old fact points at the later replacement. Among two retirements, or two
 * un-retired versions, the later clock wins.
 *
 * Example: on the phone, "works at Acme" is superseded by "works at Globex"
 * (t1); on the laptop, offline, the same fact is superseded by "works at
 * Initech" (t2 > t1). After sync both new facts exist, and "works at Acme"
 * is retired with `supersededBy` the Initech fact (the later decision).
 */
export function mergeRetirement(a: Retirement, b: Retirement): Retirement {
  if (a.status !== b.status) return a.status === 'retired' ? a : b;
  return compareHlc(b.hlc, a.hlc) > 0 ? b : a;
}
