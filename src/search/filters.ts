import type { MemoryType } from '../schema/common.js';
import { valueMatches } from '../schema/metadata-match.js';
import type { MetadataFilter } from '../schema/query.js';
import { sessionOf, type IndexDoc } from './index-doc.js';
import { matchWindows, type TimeWindows } from './time-windows.js';

export interface DocFilter {
  types?: readonly MemoryType[];
  tags?: readonly string[];
  since?: number;
  until?: number;
  filter?: MetadataFilter;
  includeArchived?: boolean;
  /** Keep only the memories of these sessions (recall's `sessionId` and `sessions`). */
  sessionIds?: ReadonlySet<string>;
  /** Keep only the memories inside one of these windows (recall's `time: 'filter'`). */
  windows?: TimeWindows;
}

/** Builds one predicate from recall's filter options; every given condition must hold. */
export function compileFilter(options: DocFilter): (doc: IndexDoc) => boolean {
  const { types, tags, since, until, filter, includeArchived, sessionIds, windows } = options;
  const tagSet = tags && tags.length > 0 ? new Set(tags) : undefined;
  const entries = filter ? Object.entries(filter) : [];
  return (doc) => {
    if (!includeArchived && doc.archived) return false;
    if (types && !types.includes(doc.kind as MemoryType)) return false;
    if (since !== undefined && doc.createdAt < since) return false;
    if (until !== undefined && doc.createdAt > until) return false;
    if (tagSet && !doc.tags.some((t) => tagSet.has(t))) return false;
    if (sessionIds && !sessionIds.has(sessionOf(doc) as string)) return false;
    if (windows && !matchWindows(windows, doc.createdAt, sessionOf(doc), doc.times)) return false;
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
  const { types, since, until, sessionIds, windows } = options;
  return types === undefined && since === undefined && until === undefined && sessionIds === undefined && windows === undefined && testsOnlyRowSignals(options);
}

/**
 * Whether `options` test nothing a row's signals do not hold (search/row-signals.ts: type, own time, session,
 * archived flag, and a query window's match), so a search can test rows without building their documents.
 */
export function testsOnlyRowSignals(options: DocFilter): boolean {
  const { tags, filter } = options;
  return (tags === undefined || tags.length === 0) && (filter === undefined || Object.keys(filter).length === 0);
}
