/**
 * A deterministic bag-of-words embedder (each word hashed to one of 64 axes),
 * for child processes that are killed and restarted many times: loading the
 * real model in each would dominate the crash test. Texts sharing words are
 * close; a text's own vector is identical to itself, so recalling a fact by
 * its own text must find it.
 */
export const hashEmbedder = {
  id: 'hash-bow-64',
  dimension: 64,
  async embed(texts) {
    return texts.map((text) => {
      const v = new Float32Array(64);
      for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        let h = 2166136261;
        for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
        // FNV's low bits barely mix: finish with murmur3's avalanche before taking the bucket.
        h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
        h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
        v[((h ^ (h >>> 16)) >>> 0) % 64] += 1;
      }
      let norm = 0;
      for (const x of v) norm += x * x;
      norm = Math.sqrt(norm) || 1;
      for (let i = 0; i < 64; i++) v[i] /= norm;
      return v;
    });
  },
};
