/**
 * Opening after a writer died before saving its index snapshot (a tab
 * killed, a process killed) against a clean open: fake-indexeddb, the
 * offline model, N facts (BENCH_REPLAY_SIZE, default 100,000) of user u1.
 * Each round, an engine that never saves (and is never closed before the
 * timed open) writes LATE facts one by one (BENCH_REPLAY_WRITES, default
 * 100), then a new engine opens and answers a default-ranking recall:
 *
 * - replay: the write log leads from the snapshot's mark to the store's, so
 *   the open loads the snapshot and replays those writes;
 * - records: the same, with the log emptied first (what every open after a
 *   killed writer did before the log, and still does after a write the log
 *   does not hold): the open reads every record;
 * - clean: no writes after the snapshot.
 *
 * The rounds alternate the three, three times each; the timed engine's
 * close saves the snapshot, so every round starts from a current one.
 * Prints each round and the medians, with the load average.
 *
 *   npm run bench:replay
 */
import { loadavg } from 'node:os';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createMemory, type Memory } from '../src/index.js';
import { EngramDatabase } from '../src/store/database.js';
import { median, offlineEmbedder, printTable } from './support.js';
import { syntheticTexts } from './synthetic.js';

const N = Number(process.env.BENCH_REPLAY_SIZE ?? 100_000);
const LATE = Number(process.env.BENCH_REPLAY_WRITES ?? 100);
const ROUNDS = 3;
const VARIANTS = ['clean', 'replay', 'records'] as const;

const embedder = await offlineEmbedder();
const indexedDB = new IDBFactory();
const base = { name: 'replay', indexedDB, IDBKeyRange, embedder };
const texts = syntheticTexts(N + ROUNDS * 2 * LATE, 3);
const first = await createMemory(base);
for (let i = 0; i < N; i += 5000) await first.facts.addMany(texts.slice(i, i + 5000).map((text) => ({ userId: 'u1', text })));
await first.close();

const times = new Map<string, number[]>(VARIANTS.map((v) => [v, []]));
let next = N;
for (let round = 0; round < ROUNDS * VARIANTS.length; round++) {
  const variant = VARIANTS[round % VARIANTS.length]!;
  let dying: Memory | undefined;
  if (variant !== 'clean') {
    dying = await createMemory({ ...base, indexSnapshot: { saveDelayMs: 3_600_000 } });
    for (let i = 0; i < LATE; i++) await dying.facts.add({ userId: 'u1', text: texts[next++]! });
  }
  if (variant === 'records') {
    const raw = new EngramDatabase(base.name, { indexedDB, IDBKeyRange });
    await raw.indexLog.clear();
    raw.close();
  }
  const started = performance.now();
  const m = await createMemory(base);
  await m.recall('what about the garden', { userId: 'u1', k: 10, touch: false });
  const ms = performance.now() - started;
  const { openedFrom, indexed } = await m.info();
  times.get(variant)!.push(ms);
  console.log(`${variant}: open -> first answer ${ms.toFixed(0)} ms (opened from ${openedFrom}, ${indexed} indexed, load ${loadavg()[0]!.toFixed(2)})`);
  await m.close();
  await dying?.close();
}
printTable(
  `Open -> first default-ranking answer at ${N.toLocaleString('en')} memories, after ${LATE} writes the snapshot missed (medians of ${ROUNDS})`,
  ['open', 'ms'],
  VARIANTS.map((v) => [v === 'clean' ? 'clean (no writes missed)' : v === 'replay' ? 'snapshot + replay of the log' : 'every record (no log)', median(times.get(v)!)]),
);
