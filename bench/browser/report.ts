import type { ColdResult, WarmResult } from './page/main.js';
import { WHY_SLOWER, CLOSING_NOTE } from './findings.js';

export type RunRecord =
  | { dimension: number; size: number; system: string; warm: WarmResult; cold: ColdResult; errors: string[]; skipped?: undefined }
  | { dimension: number; size: number; system: string; skipped: string };

type Measured = Extract<RunRecord, { warm: WarmResult }>;

/** Rows/s of plain IndexedDB code at each dimension (bench/browser/idb-rows.ts): engram's row layout, and `{ id }` rows with no index. */
export type RawIdbRates = Record<number, { engramLayout: number; tinyRows: number }>;

export interface RunMeta {
  date: string;
  /** The durable insert's baseline, measured in the same sitting (absent in runs before 2026-11-26 afternoon). */
  rawIdb?: { rows: number; runs: number; rates: RawIdbRates };
  chromium: string;
  cores: number;
  node: string;
  queries: number;
  minutes: number;
}

/** The recall@10 a peer must reach for its query latency to be compared with engram's (the targets' bar). */
const LATENCY_RECALL_BAR = 0.99;

/**
 * The figures compared between systems; `better` says which direction wins.
 * Latency is compared only among systems that reach LATENCY_RECALL_BAR: an
 * approximate index that answers fast but misses most true neighbours is
 * listed in the table, not counted as faster.
 */
const FIGURES: { key: string; label: string; better: 'higher' | 'lower'; needsRecall?: boolean; of(r: Measured): number | null }[] = [
  { key: 'insert', label: 'durable insert (items/s)', better: 'higher', of: (r) => r.size / (r.warm.insert.durableMs / 1000) },
  { key: 'p50', label: 'vector query p50 (ms)', better: 'lower', needsRecall: true, of: (r) => r.warm.vector.latency.p50 },
  { key: 'p95', label: 'vector query p95 (ms)', better: 'lower', needsRecall: true, of: (r) => r.warm.vector.latency.p95 },
  { key: 'hybrid', label: 'hybrid query p95 (ms)', better: 'lower', needsRecall: true, of: (r) => r.warm.hybrid?.latency.p95 ?? null },
  { key: 'recall', label: 'recall@10', better: 'higher', of: (r) => r.warm.vector.recall },
  { key: 'cold', label: 'cold start, navigation → first answer (ms)', better: 'lower', of: (r) => r.cold.firstAnswerMs },
  { key: 'memory', label: 'memory, page + worker + WebAssembly (MB)', better: 'lower', of: (r) => mb(r.warm.memory.usedBytes.page + r.warm.memory.usedBytes.worker + (r.warm.memory.wasmBytes ?? 0)) },
];

const mb = (bytes: number) => bytes / 1_048_576;

function fmt(n: number | null | undefined, digits?: number): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return 'n/a';
  if (digits !== undefined) return n.toFixed(digits);
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function resultRow(r: RunRecord): string[] {
  const head = [String(r.dimension), r.size.toLocaleString('en-US'), r.system === 'engram' ? '**engram**' : r.system];
  if (r.skipped !== undefined) return [...head, `skipped: ${r.skipped}`, '', '', '', '', '', '', ''];
  const { warm, cold } = r;
  const lt = (x: { count: number; maxMs: number }) => (x.count ? `${x.count} (max ${x.maxMs})` : '0');
  const v = warm.vector.latency;
  return [
    ...head,
    `${fmt(r.size / (warm.insert.durableMs / 1000))} (${fmt(warm.insert.durableMs / 1000)} s)`,
    `${fmt(v.p50)} / ${fmt(v.p95)} / ${fmt(v.p99)}${v.n < 200 ? ` (n=${v.n})` : ''}`,
    fmt(warm.vector.recall, 3),
    warm.hybrid ? `${fmt(warm.hybrid.latency.p50)} / ${fmt(warm.hybrid.latency.p95)}` : 'n/a (no hybrid)',
    `${fmt(cold.firstAnswerMs)} (${fmt(cold.reopenToAnswerMs)})${cold.count !== r.size ? ` ⚠ ${cold.count} of ${r.size} survived` : ''}`,
    `${fmt(mb(warm.memory.usedBytes.page))} + ${fmt(mb(warm.memory.usedBytes.worker))} + ${fmt(mb(warm.memory.wasmBytes ?? 0))}`,
    [warm.insert.longTasks, warm.vector.longTasks, warm.hybrid?.longTasks, cold.longTasks].map((x) => (x ? lt(x) : '–')).join(' / '),
  ];
}

/** engram's figure against the best peer's, for one (dimension, size). */
function comparisons(records: Measured[]): { dimension: number; size: number; figure: (typeof FIGURES)[number]; engram: number; peer: string; value: number }[] {
  const out: ReturnType<typeof comparisons> = [];
  const groups = new Map<string, Measured[]>();
  for (const r of records) groups.set(`${r.dimension}:${r.size}`, [...(groups.get(`${r.dimension}:${r.size}`) ?? []), r]);
  for (const group of groups.values()) {
    const engram = group.find((r) => r.system === 'engram');
    if (!engram) continue;
    for (const figure of FIGURES) {
      const mine = figure.of(engram);
      if (mine === null) continue;
      let best: { peer: string; value: number } | undefined;
      for (const r of group) {
        if (r === engram) continue;
        if (figure.needsRecall && (r.warm.vector.recall ?? 0) < LATENCY_RECALL_BAR) continue;
        const value = figure.of(r);
        if (value === null || !Number.isFinite(value)) continue;
        if (!best || (figure.better === 'higher' ? value > best.value : value < best.value)) best = { peer: r.warm.system, value };
      }
      if (best) out.push({ dimension: engram.dimension, size: engram.size, figure, engram: mine, ...best });
    }
  }
  return out;
}

function targets(records: Measured[], raw: RawIdbRates | undefined): string[][] {
  const rows: string[][] = [];
  const largest = Math.max(...records.map((r) => r.size));
  const all = comparisons(records);
  for (const r of records.filter((x) => x.system === 'engram' && x.size === largest)) {
    const ratio = (key: string) => {
      const c = all.find((x) => x.dimension === r.dimension && x.size === r.size && x.figure.key === key);
      return c ? `${fmt(c.engram / c.value)}× ${c.peer} (${fmt(c.value)})` : 'n/a';
    };
    const v = r.warm.vector;
    const phases = [r.warm.insert.longTasks, v.longTasks, r.warm.hybrid?.longTasks, r.cold.longTasks].filter((x) => x !== undefined);
    const longTasks = phases.reduce((sum, x) => sum + x!.count, 0);
    const insertRate = r.size / (r.warm.insert.durableMs / 1000);
    const at = `${r.size.toLocaleString('en-US')} × ${r.dimension}-d`;
    // The floor target: engram's vector p95 within 1.5× the WebAssembly SIMD floor's plus one worker round trip.
    const floor = records.find((x) => x.system === 'wasm-floor' && x.size === r.size && x.dimension === r.dimension);
    const rtt = Number(r.warm.extras.rpcRoundTripMs ?? NaN);
    if (floor) {
      const bar = 1.5 * floor.warm.vector.latency.p95 + rtt;
      rows.push([
        at,
        'query p95 ≤ 1.5 × the WebAssembly SIMD floor + one worker round trip',
        `${fmt(v.latency.p95)} ms ≤ 1.5 × ${fmt(floor.warm.vector.latency.p95)} + ${fmt(rtt)} = ${fmt(bar)} ms?`,
        v.latency.p95 <= bar ? 'met' : '**missed**',
        `${fmt(v.latency.p95 / floor.warm.vector.latency.p95)}× the floor`,
      ]);
    }
    rows.push(
      [at, 'query p95 ≤ 10 ms, recall@10 ≥ 0.99', `${fmt(v.latency.p95)} ms, recall ${fmt(v.recall, 3)}`, v.latency.p95 <= 10 && (v.recall ?? 0) >= 0.99 ? 'met' : '**missed**', ratio('p95')],
      [at, 'cold start to first query ≤ 1.5 s', `${fmt(r.cold.firstAnswerMs)} ms`, r.cold.firstAnswerMs <= 1500 ? 'met' : '**missed**', ratio('cold')],
      [
        at,
        'durable insert ≥ 5,000/s (pre-embedded)',
        `${fmt(insertRate)}/s`,
        insertRate >= 5000 ? 'met' : '**missed**',
        `${ratio('insert')}${raw?.[r.dimension] ? `; ${fmt(insertRate / raw[r.dimension]!.engramLayout)}× plain IndexedDB code writing engram's rows (${fmt(raw[r.dimension]!.engramLayout)})` : ''}`,
      ],
      [at, 'zero main-thread long tasks > 50 ms', `${longTasks}`, longTasks === 0 ? 'met' : '**missed**', '–'],
    );
  }
  return rows;
}

/** The raw IndexedDB baseline of this run, in words (after the insert analysis). */
function rawIdbSentence(raw: RunMeta['rawIdb']): string {
  if (!raw) return ' (This run did not measure the raw IndexedDB baseline.)';
  const at = Object.entries(raw.rates).map(([dimension, r]) => `${fmt(r.engramLayout)}/s at ${dimension}-d (index-free \`{ id }\` rows: ${fmt(r.tinyRows)}/s)`);
  return (
    ` In this run, in the same browser after the systems, plain IndexedDB code in a worker writing engram's rows (a fact row with its 3 indexes, vector blocks of 256 with their \`*ids\` index, the write mark and two log rows per transaction of 1,000; \`bench/browser/idb-rows.ts\`, ${raw.rows.toLocaleString('en-US')} rows, median of ${raw.runs}) ` +
    `managed ${at.join('; ')}: the bound for any design that keeps a row per memory, and engram's ratio to it is in the targets table.`
  );
}

export function renderReport(meta: RunMeta, records: RunRecord[]): string {
  const measured = records.filter((r): r is Measured => r.skipped === undefined);
  const slower = comparisons(measured).filter((c) => (c.figure.better === 'higher' ? c.value > c.engram * 1.0001 : c.value < c.engram * 0.9999));
  const byFigure = new Map<string, typeof slower>();
  for (const c of slower) byFigure.set(c.figure.key, [...(byFigure.get(c.figure.key) ?? []), c]);

  const parts = [
    `# engram browser benchmark — ${meta.date.slice(0, 10)}`,
    '',
    `Chromium ${meta.chromium} (headless, persistent profile: IndexedDB on disk), ${meta.cores} cores, Node ${meta.node}; ${meta.minutes.toFixed(1)} min. ` +
      `Every system gets the same random unit vectors and texts, in the same browser session; up to ${meta.queries} queries per phase (n shown when a time budget cut a slow peer short), top-10. ` +
      'engram runs through its public API in its Web Worker; the peers run on the main thread. Peers without storage of their own persist a snapshot to IndexedDB ' +
      '(Orama `save()` as JSON, Voy `serialize()`, the two floors their padded Float32Array); hnswlib uses its IDBFS `syncFS`; entity-db writes IndexedDB itself. ' +
      'The floors are the best simple exact search (bench/floor/f32-floor.ts): one f32 matrix scanned by a WebAssembly SIMD kernel (`wasm-floor`) or by a tuned JS loop (`brute force`), the k best kept behind a threshold.',
    '',
    'Columns: durable insert = items/s until the data survives a reload (total seconds); vector query latency p50 / p95 / p99 in ms; recall@10 against exact search in double precision; ' +
      'hybrid (vector + keyword) p50 / p95 in ms where the system has it; cold start = reload, reopen, first answered query, ms from the start of navigation (reopen → answer in brackets); ' +
      'memory added by the system, page + worker + WebAssembly MB (`performance.measureUserAgentSpecificMemory` for the JS heaps, which leaves WebAssembly memory out, plus each system\'s WebAssembly.Memory sizes: engram\'s `info().vectorBytes`); durability: every system\'s IndexedDB writes use Chromium\'s default (engram passes none, the peers\' snapshot store `durability: \'default\'`); each query phase answers 5 warm-up queries untimed, then times the rest; main-thread long tasks over 50 ms during insert / vector queries / hybrid queries / cold start, count (longest ms).',
    '',
    table(
      ['dim', 'memories', 'system', 'durable insert/s', 'vector p50 / p95 / p99 ms', 'recall@10', 'hybrid p50 / p95 ms', 'cold start ms', 'memory MB', 'long tasks'],
      records.map(resultRow),
    ),
    '',
    `## engram against the targets (largest size measured; ratio = engram ÷ the best peer on that figure; query latency only against peers with recall@10 ≥ ${LATENCY_RECALL_BAR})`,
    '',
    table(['at', 'target', 'engram', 'verdict', 'ratio to best peer'], targets(measured, meta.rawIdb?.rates)),
    '',
    '## Where engram is slower than a peer, and why',
    '',
    `(Query latency against peers with recall@10 ≥ ${LATENCY_RECALL_BAR} only.)`,
    '',
  ];
  if (slower.length === 0) parts.push('Nowhere in this run.', '');
  for (const [key, list] of byFigure) {
    parts.push(`**${list[0]!.figure.label}**: ` + list.map((c) => `${c.size.toLocaleString('en-US')} × ${c.dimension}-d: engram ${fmt(c.engram)} vs ${c.peer} ${fmt(c.value)}`).join('; ') + '.');
    parts.push('', `Why: ${WHY_SLOWER[key] ?? 'not analysed yet.'}${key === 'insert' ? rawIdbSentence(meta.rawIdb) : ''}`, '');
  }
  const errors = measured.filter((r) => r.errors.length);
  if (errors.length) {
    parts.push('## Page errors seen', '');
    for (const r of errors) parts.push(`- ${r.system} at ${r.size} × ${r.dimension}-d: ${r.errors.slice(0, 3).join(' | ')}`);
    parts.push('');
  }
  parts.push('## Closing note', '', CLOSING_NOTE, '');
  return parts.join('\n');
}
