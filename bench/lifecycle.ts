/**
 * Write latency of `episodes.add` with the episode lifecycle on: dedup-on-write
 * (cosine ≥ 0.92 replaces) and a count cap equal to the number of episodes
 * already stored, so once full every write also evicts the oldest episode in
 * the same transaction. Measured at each size against a baseline with dedup
 * off and a cap that is never reached, on the same stored data.
 */
import type { Memory } from '../src/index.js';
import { buildEpisode } from '../src/memories/episodes/write-episode.js';
import { EXPORT_FORMAT, EXPORT_VERSION, serializeExport } from '../src/portability/export-format.js';
import { benchMemory, median, percentile } from './support.js';
import { syntheticTexts } from './synthetic.js';

const WARM_UP = 10;
const WRITES = 200;
const USER = 'bench-user';

/**
 * The stored episodes as an export file without vectors: `import` embeds them
 * in batches and writes them in one transaction, far faster than n single adds.
 */
function storedEpisodes(n: number, now: number): string {
  const episodes = syntheticTexts(n, 23).map((text, i) =>
    // One second apart and all in the past, so the cap evicts them oldest first.
    buildEpisode({ id: `stored-${i}`, userId: USER, text, createdAt: now - (n - i) * 1000 }, now),
  );
  return serializeExport({
    header: { format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: now, userId: null, embedder: null },
    memories: new Map([['episode', episodes]]),
    profiles: [],
    tasks: [],
    steps: [],
    patterns: [],
    vectors: new Map(),
  });
}

async function measureWrites(memory: Memory, texts: string[]): Promise<{ latencies: number[]; evicted: number; replaced: number }> {
  let evicted = 0;
  let replaced = 0;
  const offEviction = memory.on('eviction', (e) => (evicted += e.evicted.length));
  const offDedup = memory.on('dedup', () => replaced++);
  const latencies: number[] = [];
  for (const [i, text] of texts.entries()) {
    const started = performance.now();
    await memory.episodes.add({ userId: USER, text });
    if (i >= WARM_UP) latencies.push(performance.now() - started);
  }
  offEviction();
  offDedup();
  return { latencies: latencies.sort((a, b) => a - b), evicted, replaced };
}

/** One row per size: baseline and lifecycle-on p50/p95, the p50 ratio, and what the lifecycle did. */
export async function lifecycleWriteRows(sizes: number[]): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  const writes = syntheticTexts(WARM_UP + WRITES, 71).map((t) => `new: ${t}`);
  for (const n of sizes) {
    const file = storedEpisodes(n, Date.now());
    const results = [];
    for (const lifecycle of [
      { dedupThreshold: 0, maxEpisodes: 10_000_000 },
      { dedupThreshold: 0.92, maxEpisodes: n },
    ]) {
      const { memory } = await benchMemory({ lifecycle });
      await memory.import(file);
      results.push(await measureWrites(memory, writes));
      const left = (await memory.episodes.list({ userId: USER, limit: 1 })).length; // the store still answers
      if (left !== 1) throw new Error('the store lost every episode');
      await memory.close();
    }
    const [baseline, on] = results as [Awaited<ReturnType<typeof measureWrites>>, Awaited<ReturnType<typeof measureWrites>>];
    rows.push([
      n,
      percentile(baseline.latencies, 50),
      percentile(baseline.latencies, 95),
      percentile(on.latencies, 50),
      percentile(on.latencies, 95),
      median(on.latencies) / median(baseline.latencies),
      on.evicted,
      on.replaced,
    ]);
  }
  return rows;
}

export const LIFECYCLE_HEADER = [
  'episodes stored',
  'baseline p50 ms',
  'baseline p95 ms',
  'lifecycle p50 ms',
  'lifecycle p95 ms',
  'p50 ratio',
  `evicted (of ${WARM_UP + WRITES} writes)`,
  'dedup replaced',
];
export const LIFECYCLE_TITLE = `episodes.add latency, ${WRITES} writes after ${WARM_UP} warm-up (embedding included): baseline = dedup off, cap never reached; lifecycle = dedupThreshold 0.92, maxEpisodes = episodes stored (every write evicts one)`;
