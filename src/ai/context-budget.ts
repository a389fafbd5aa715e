import type { RecallHit } from '../engine.js';

/**
 * Approximate tokens of a text: one per 4 characters, rounded up. Real
 * tokenizers give about 4 characters a token for English prose, fewer for
 * other scripts, so a budget in these units is a guide, not a hard cap on
 * the model's count; engram ships no tokenizer (each model has its own).
 */
export function approximateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The longest prefix of `hits` (best first) whose rendered block fits in
 * `maxTokens` approximate tokens, rendered; '' when not even one hit fits
 * or there are no hits. Dropping from the end keeps the most relevant.
 */
export function fitContext(hits: readonly RecallHit[], maxTokens: number, render: (hits: readonly RecallHit[]) => string): string {
  let best = '';
  for (let n = 1; n <= hits.length; n++) {
    const block = render(hits.slice(0, n));
    if (approximateTokens(block) > maxTokens) break;
    best = block;
  }
  return best;
}
