/**
 * Keyword search: engram's typed-array BM25+ index against MiniSearch (the
 * library it first used) on the same synthetic texts. Prints build time and
 * per-query latency; this is the measurement behind writing our own. Also
 * engram's index as an open leaves it (search/pending-keywords.ts): every
 * document queued as snapshot pages' term lists (2,048 a page), turned around,
 * not built, which queries read in place until a pause lets the build run.
 *
 *   npm run bench:keyword
 */
import MiniSearch from 'minisearch';
import { KeywordIndex } from '../src/search/keyword-index.js';
import { PendingKeywords } from '../src/search/pending-keywords.js';
import { readTermLists, termListsOf } from '../src/search/term-lists.js';
import { tokenize } from '../src/text/tokenize.js';
import { median, printTable } from './support.js';
import { syntheticTexts } from './synthetic.js';

const rows: (string | number)[][] = [];
/** Each query's time in ms. */
function timed(queries: string[], query: (q: string) => unknown): number[] {
  return queries.map((q) => {
    const started = performance.now();
    query(q);
    return performance.now() - started;
  });
}
/** Documents per snapshot page (index-snapshot.ts). */
const PAGE = 2048;
for (const n of [10_000, 100_000]) {
  const texts = syntheticTexts(n, 11);
  const queries = syntheticTexts(100, 99).map((q) => q.split(' ').slice(0, 5).join(' '));

  let started = performance.now();
  const ours = new KeywordIndex();
  ours.upsertMany(texts.map((text, i) => ({ id: `m${i}`, text })));
  const oursBuild = performance.now() - started;
  const oursQuery = timed(queries, (q) => ours.query(q, { limit: 50 }));

  started = performance.now();
  const mini = new MiniSearch<{ id: string; text: string }>({
    fields: ['text'],
    tokenize: (t) => tokenize(t),
    processTerm: (t) => t,
  });
  mini.addAll(texts.map((text, i) => ({ id: `m${i}`, text })));
  const miniBuild = performance.now() - started;
  const miniQuery = timed(queries, (q) => mini.search(q, { combineWith: 'OR' }).slice(0, 50));
  // As after an open: the pages' term lists queued and turned around, nothing built (the build time is the queueing).
  started = performance.now();
  const queued = new PendingKeywords(new KeywordIndex());
  const ids = texts.map((_, i) => `m${i}`);
  for (let start = 0; start < n; start += PAGE) {
    const page = texts.slice(start, start + PAGE);
    queued.add(ids.slice(start, start + PAGE), undefined, 0, page.length, readTermLists(termListsOf(page), page.length)!);
  }
  while (queued.turnAround(Infinity));
  const queuedBuild = performance.now() - started;
  const queuedQuery = timed(queries, (q) => queued.query(q, { limit: 50 }));
  rows.push([n, 'engram BM25+', oursBuild, median(oursQuery)]);
  rows.push([n, 'engram BM25+, queued as after an open', queuedBuild, median(queuedQuery)]);
  rows.push([n, 'MiniSearch', miniBuild, median(miniQuery)]);
}
printTable('Keyword index (same tokenizer; top 50 of an OR query of 5 terms)', ['memories', 'index', 'build ms', 'query p50 ms'], rows);
