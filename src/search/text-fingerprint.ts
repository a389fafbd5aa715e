/**
 * A 53-bit fingerprint of a text (cyrb53: two 32-bit multiply-xor lanes
 * mixed at the end), exact in a float64. The index keeps one per memory
 * loaded from a snapshot page instead of the text itself (search/doc-table.ts):
 * it only has to tell whether a rewritten record still has the text it
 * was indexed with. A fingerprint is 8 bytes of a Float64Array where a text
 * is a heap string of its whole length. Ten lines of arithmetic, so no dependency.
 */
export function textFingerprint(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The fingerprints of `texts`, in order. */
export function textFingerprints(texts: readonly string[]): Float64Array {
  const out = new Float64Array(texts.length);
  for (let i = 0; i < texts.length; i++) out[i] = textFingerprint(texts[i]!);
  return out;
}
