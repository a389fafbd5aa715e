import type { MemoryRecord } from '../schema/memory-record.js';

/**
 * The text a memory is embedded and keyword-indexed by: its words. A turn's
 * speaker is not part of it: the speaker is a field, which recall matches
 * when a query names them (search/named-speakers.ts). With the speaker as a
 * `Name:` prefix, every turn a person said matched a query that named them,
 * and the shortest ("Caroline: Hey!") ranked first.
 */
export function indexedText(record: Pick<MemoryRecord, 'text'>): string {
  return record.text;
}
