/**
 * Structural sharing, as TanStack Query's `replaceEqualDeep`: returns `next`
 * with every part that deep-equals the same part of `previous` replaced by
 * `previous`'s, so an unchanged answer is `previous` itself (a UI compares
 * by identity and skips the render) and a changed list keeps the identity of
 * its unchanged records. Plain objects, arrays and typed arrays are compared
 * by content; anything else (a Date, a Blob, a class instance) only by identity.
 */
export function replaceEqualDeep<T>(previous: unknown, next: T): T {
  if (Object.is(previous, next)) return previous as T;
  if (ArrayBuffer.isView(next) && ArrayBuffer.isView(previous)) return (sameView(previous, next) ? previous : next) as T;
  const bothArrays = Array.isArray(previous) && Array.isArray(next);
  if (!bothArrays && !(isPlainObject(previous) && isPlainObject(next))) return next;
  const before = previous as Record<string, unknown>;
  const after = next as Record<string, unknown>;
  const keys = Object.keys(after);
  const out = (bothArrays ? [] : {}) as Record<string, unknown>;
  let equal = keys.length === Object.keys(before).length;
  for (const key of keys) {
    const value = Object.prototype.hasOwnProperty.call(before, key) ? replaceEqualDeep(before[key], after[key]) : after[key];
    out[key] = value;
    if (value !== before[key] || !Object.prototype.hasOwnProperty.call(before, key)) equal = false;
  }
  return (equal ? previous : out) as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function sameView(a: ArrayBufferView, b: ArrayBufferView): boolean {
  if (a.constructor !== b.constructor || a.byteLength !== b.byteLength) return false;
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
