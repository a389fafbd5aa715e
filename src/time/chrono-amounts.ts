/**
 * chrono-node 2.10.3 misreads an amount of time after "about" or "around":
 * "about 167 days ago" is 7 days ago, "around 167 days ago" 67 and "about
 * 10 days ago" 0. Its duration reader (`parseDuration` in
 * locales/en/constants) finds the amount anywhere in "about 167 days" but
 * then drops as many characters as it matched from the *start* of the text,
 * so the hedge word's length is cut from the front and the amount is read
 * again from its last digits.
 *
 * `withoutHedges` blanks such a hedge word before an amount (keeping every
 * other character where it was, so a result's `index` still points into
 * the original text): "about 167 days ago" is read as "167 days ago". An
 * approximate time is taken at its amount, which is what the hedge meant.
 */
export function withoutHedges(text: string): string {
  return text.replace(HEDGED_AMOUNT, (match, hedge: string) => ' '.repeat(hedge.length) + match.slice(hedge.length));
}

const HEDGED_AMOUNT = /\b(about|around|approximately|roughly|nearly|almost)(?=\s+(?:\d|a\b|an\b|one\b|two\b|three\b|four\b|five\b|six\b|seven\b|eight\b|nine\b|ten\b|eleven\b|twelve\b|few\b|several\b|couple\b|half\b))/gi;
