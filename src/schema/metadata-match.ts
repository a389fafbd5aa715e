/** What a metadata filter (`MetadataFilter`, schema/query.ts) means for one field: the index's filters and the store's listing both ask this. */

/**
 * A scalar wanted value matches by equality; an array of wanted values matches
 * any of them. When the stored value is itself an array, sharing one element
 * is a match (so `{ participants: 'ana' }` finds episodes Ana took part in).
 */
export function valueMatches(actual: unknown, wanted: unknown): boolean {
  const options = Array.isArray(wanted) ? wanted : [wanted];
  if (Array.isArray(actual)) return actual.some((a) => options.some((w) => Object.is(a, w)));
  return options.some((w) => Object.is(actual, w));
}
