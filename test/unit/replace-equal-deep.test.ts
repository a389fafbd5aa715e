import { describe, expect, it } from 'vitest';
import { replaceEqualDeep } from '../../src/facade/replace-equal-deep.js';

describe('replaceEqualDeep (live queries emit only when their answer changes)', () => {
  it('returns the previous value when the next one deep-equals it', () => {
    const previous = [{ id: 'a', tags: ['x'], vector: new Float32Array([1, 2]), meta: { n: 1 } }];
    const next = [{ id: 'a', tags: ['x'], vector: new Float32Array([1, 2]), meta: { n: 1 } }];
    expect(replaceEqualDeep(previous, next)).toBe(previous);
  });

  it('keeps the unchanged parts of a changed value and takes the changed ones', () => {
    const previous = [{ id: 'a', meta: { n: 1 } }, { id: 'b', meta: { n: 2 } }];
    const next = [{ id: 'a', meta: { n: 1 } }, { id: 'b', meta: { n: 3 } }, { id: 'c', meta: { n: 4 } }];
    const out = replaceEqualDeep(previous, next);
    expect(out).not.toBe(previous);
    expect(out).toEqual(next);
    expect(out[0]).toBe(previous[0]);
    expect(out[1]).not.toBe(previous[1]);
    expect(out[2]).toBe(next[2]);
  });

  it('tells apart a removed key, a typed array of another content or type, and a Date by identity', () => {
    expect(replaceEqualDeep({ a: 1, b: 2 }, { a: 1 })).toEqual({ a: 1 });
    const floats = new Float32Array([1, 2]);
    expect(replaceEqualDeep(floats, new Float32Array([1, 3]))).not.toBe(floats);
    expect(replaceEqualDeep(floats, new Uint8Array(floats.buffer))).not.toBe(floats);
    const date = new Date(0);
    const later = new Date(0);
    expect(replaceEqualDeep(date, later)).toBe(later);
  });
});
