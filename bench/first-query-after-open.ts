/**
 * The first keyword query after an open at 100,000 memories, measured on its
 * own (issue 45): a fresh queue as index-sync/index-loader.ts leaves it (the
 * snapshot's pages' term lists queued, 2,048 a page, as bulk-load pages; then
 * the writes a killed tab's replay queues), and one query as a recall makes it:
 * the query, then `scoreOf` for each of 200 candidate ids. Nothing is turned
 * around or built first. Medians of fresh queues, load average beside them.
 *
 *   npx tsx bench/first-query-after-open.ts [--size 100000] [--opens 7] [--writes 20]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { KeywordIndex } from '../src/search/keyword-index.js';
import { PendingKeywords } from '../src/search/pending-keywords.js';
import { readTermLists, termListsOf } from '../src/search/term-lists.js';
import { median } from './support.js';
import { syntheticTexts } from './synthetic.js';

const { values: args } = parseArgs({ options: { size: { type: 'string', default: '100000' }, opens: { type: 'string', default: '7' }, writes: { type: 'string', default: '20' } } });
const SIZE = Number(args.size);
const OPENS = Number(args.opens);
const WRITES = Number(args.writes);
/** Documents per snapshot page (index-snapshot.ts). */
const PAGE = 2048;
const CANDIDATES = 200;

const texts = syntheticTexts(SIZE, 11);
const ids = texts.map((_, i) => `m${i}`);
const lists = [] as NonNullable<ReturnType<typeof readTermLists>>[];
for (let start = 0; start < SIZE; start += PAGE) {
  const page = texts.slice(start, start + PAGE);
  lists.push(readTermLists(termListsOf(page), page.length)!);
}
// Where each id was loaded (the DocTable MemoryIndex hands the queue: search/doc-table.ts `loadedAt`), made before
// anything is timed, as the open's load makes it; it also leaves every id's hash computed, as the open's maps do.
const pageIds: string[][] = [];
for (let start = 0; start < SIZE; start += PAGE) pageIds.push(ids.slice(start, start + PAGE));
const loadedAt = new Map<string, { ids: readonly string[]; row: number }>();
pageIds.forEach((page) => page.forEach((id, row) => loadedAt.set(id, { ids: page, row })));
const written = syntheticTexts(WRITES, 77);
const questions = syntheticTexts(OPENS, 99).map((t) => `what about ${t.split(' ').slice(0, 3).join(' ')}?`);

const firstMs: number[] = [];
const matched: number[] = [];
/** Of which the query itself (without the `scoreOf` calls). */
const queryMs: number[] = [];
/** The process's CPU time over the same span (less at the mercy of other processes than the wall clock). */
const cpuMs: number[] = [];
for (let open = 0; open < OPENS; open++) {
  const located = new Map(loadedAt);
  // The locator and the bulk-load flag (unqueued ids); a version without them ignores the extra arguments.
  const queue = new (PendingKeywords as unknown as new (...a: unknown[]) => PendingKeywords)(new KeywordIndex(), (id: string) => located.get(id));
  for (let p = 0; p < lists.length; p++) (queue.add as (...a: unknown[]) => void)(pageIds[p], undefined, 0, pageIds[p]!.length, lists[p], true);
  // Replayed writes: half rewrite a page's memory, half are new.
  for (let w = 0; w < WRITES; w++) {
    const id = w % 2 === 0 ? ids[(w * 4099) % SIZE]! : `new${w}`;
    queue.add([id], [written[w]!]);
    located.delete(id);
  }
  const candidates = Array.from({ length: CANDIDATES }, (_, i) => ids[(i * 7919 + open) % SIZE]!);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = queue.query(questions[open]!, { limit: 50 });
  const queried = performance.now();
  let sum = 0;
  for (const id of candidates) sum += result.scoreOf(id);
  firstMs.push(performance.now() - started);
  queryMs.push(queried - started);
  const used = process.cpuUsage(cpu);
  cpuMs.push((used.user + used.system) / 1000);
  let n = 0;
  result.forEach(0, () => n++);
  matched.push(n);
  if (sum < 0) console.log('unreachable');
}
const load = loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(`first query after an open, ${SIZE} queued + ${WRITES} writes, ${CANDIDATES} scoreOf: median ${median(firstMs).toFixed(1)} ms [${Math.min(...firstMs).toFixed(1)}–${Math.max(...firstMs).toFixed(1)}] of ${OPENS}; matched median ${median(matched)}; load ${load}`);
console.log(`  of which the query (no scoreOf): median ${median(queryMs).toFixed(1)} ms; CPU time of query + scoreOf: median ${median(cpuMs).toFixed(1)} ms [${Math.min(...cpuMs).toFixed(1)}–${Math.max(...cpuMs).toFixed(1)}]`);
console.log(`  each: ${firstMs.map((ms) => ms.toFixed(1)).join(' ')}`);
