import type { MemoryType } from '../schema/common.js';
import type { MetadataFilter } from '../schema/query.js';
import type { IndexDoc } from './index-doc.js';

export interface DocFilter {
  types?: readonly MemoryType[];
  tags?: readonly string[];
  since?: number;
  until?: number;
  filter?: MetadataFilter;
  includeArchived?: boolean;
}

/** Builds one predicate from recall's filter options; every given condition must hold. */
export function compileFilter(options: DocFilter): (doc: IndexDoc) => boolean {
  const { types, tags, since, until, filter, includeArchived } = options;
  const tagSet = tags && tags.length > 0 ? new Set(tags) : undefined;
  const entries = filter ? Object.entries(filter) : [];
  return (doc) => {
    if (!includeArchived && doc.archived) return false;
    if (types && !types.includes(doc.kind as MemoryType)) return false;
    if (since !== undefined && doc.createdAt < since) return false;
    if (until !== undefined && doc.createdAt > until) return false;
    if (tagSet && !doc.tags.some((t) => tagSet.has(t))) return false;
    for (const [key, wanted] of entries) {
      if (!Object.prototype.hasOwnProperty.call(doc.fields, key)) return false;
      if (!valueMatches(doc.fields[key], wanted)) return false;
    }
    return true;
  };
}

/**
 * Whether `options` test nothing but the archived flag (recall's default:
 * archived memories left out), which an index can read without building a
 * document (DocTable.archivedOf).
 */
export function testsOnlyArchived(options: DocFilter): boolean {
  const { types, tags, since, until, filter } = options;
  return types === undefined && (tags === undefined || tags.length === 0) && since === undefined && until === undefined && (filter === undefined || Object.keys(filter).length === 0);
}

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
