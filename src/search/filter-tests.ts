import type { DocTable } from './doc-table.js';
import { compileFilter, testsOnlyArchived, testsOnlyRowSignals, type DocFilter } from './filters.js';
import { KINDS_BY_CODE } from './row-signals.js';
import type { UserIndex } from './user-index.js';

/**
 * Recall's filter as a test of ids. A filter of what rows' signals hold
 * (the default one, archived memories left out; types, times, sessions,
 * windows) tests the row without building the document: a query tests a
 * hundred or so rows that it does not return, and building their
 * documents (each kept for good) would spend worker CPU and memory on
 * every recall for rows it does not return. `acceptRow` is that test of `user`'s rows, when the caller has it.
 */
export function acceptIdFor(docs: DocTable, options: DocFilter, user?: UserIndex, acceptRow?: (row: number) => boolean): (id: string) => boolean {
  if (testsOnlyArchived(options)) return options.includeArchived ? () => true : (id) => docs.archivedOf(id) === false;
  if (user && acceptRow && testsOnlyRowSignals(options)) {
    return (id) => {
      const row = user.vectors.row(id);
      return row !== undefined && acceptRow(row);
    };
  }
  const test = compileFilter(options);
  return (id) => test(docs.get(id)!);
}

/**
 * `accept` as a test of `user`'s rows: a filter of what the rows' signals hold reads them
 * (a vector search tests hundreds of rows), with `marks` the rows' window matches (row-windows.ts's `windowMarks`).
 */
export function acceptRowFor(user: UserIndex, docs: DocTable, options: DocFilter, marks: Uint16Array | undefined): (row: number) => boolean {
  if (!testsOnlyRowSignals(options)) {
    const test = compileFilter(options);
    return (row) => test(docs.get(user.vectors.idAt(row))!);
  }
  const { includeArchived, types, since, until, sessionIds, windows } = options;
  const { archived, kind, createdAt, session } = user.signals;
  const kinds = types ? KINDS_BY_CODE.map((name) => (types as readonly string[]).includes(name)) : undefined;
  const sessions = sessionIds ? user.signals.sessionNames.map((name, code) => code > 0 && sessionIds.has(name)) : undefined;
  const inWindow = windows ? marks : undefined;
  if (!kinds && since === undefined && until === undefined && !sessions && !inWindow) return includeArchived ? () => true : (row) => archived[row] === 0;
  return (row) =>
    (includeArchived || archived[row] === 0) &&
    (!kinds || kinds[kind[row]!] === true) &&
    (since === undefined || createdAt[row]! >= since) &&
    (until === undefined || createdAt[row]! <= until) &&
    (!sessions || sessions[session[row]!] === true) &&
    (!inWindow || inWindow[row] !== 0);
}
