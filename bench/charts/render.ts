/**
 * The charts of docs/benchmarks.md and the README, drawn from the committed
 * results in bench/results/ (the newest file of each bench). Pure: files in,
 * SVG strings out; `report.ts` writes them and a unit test checks that the
 * committed charts are what these results draw.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { barChart, lineChart, stackedBars, type Series } from './svg.js';

export interface Chart {
  /** File name under docs/charts/. */
  file: string;
  svg: string;
}

/** The newest results file whose name matches (names carry the date, so they sort by it). */
function newest(dir: string, pattern: RegExp): string {
  const name = readdirSync(dir).filter((file) => pattern.test(file)).sort().at(-1);
  if (!name) throw new Error(`bench:report: no results file matching ${pattern} in ${dir}`);
  return name;
}

const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

interface BrowserRecord {
  dimension: number;
  size: number;
  system: string;
  skipped?: string;
  warm?: { vector: { latency: { p95: number }; recall: number } };
}

/** Vector query p95 against store size, per system, from the last browser run with every peer (128-d). */
export function peersLatency(dir: string): Chart {
  const candidates = readdirSync(dir).filter((file) => /^browser-.*\.json$/.test(file)).sort();
  const runs = candidates
    .map((file) => ({ file, run: JSON.parse(readFileSync(join(dir, file), 'utf8')) as { meta: { systems: string[]; cores: number; chromium: string; date: string }; records: BrowserRecord[] } }))
    .filter(({ run }) => run.meta.systems.includes('orama'));
  const latest = runs.at(-1);
  if (!latest) throw new Error('bench:report: no browser run with the peers in bench/results/');
  const { file, run } = latest;
  const dimension = 128;
  const names: Record<string, string> = { engram: 'engram', orama: 'Orama', 'entity-db': 'EntityDB', hnswlib: 'hnswlib-wasm', voy: 'Voy', 'brute-force': 'brute force (JS)' };
  const series: Series[] = run.meta.systems.map((system) => {
    const records = run.records.filter((r) => r.system === system && r.dimension === dimension && r.warm);
    const lowRecall = records.filter((r) => r.warm!.vector.recall < 0.99);
    const note = lowRecall.length ? ` (recall@10 ${lowRecall.map((r) => r.warm!.vector.recall.toFixed(2)).join(', ')} at ${lowRecall.map((r) => thousands(r.size)).join(', ')})` : '';
    return {
      name: `${names[system] ?? system}${note}`,
      points: records.map((r) => [r.size, r.warm!.vector.latency.p95] as [number, number]),
      emphasis: system === 'engram',
    };
  });
  return {
    file: 'peers-latency.svg',
    svg: lineChart({
      title: `Vector query p95 by store size, ${dimension}-d, top 10 (lower is better)`,
      subtitle: [`npm run bench:browser · Chromium ${run.meta.chromium}, ${run.meta.cores} cores, ${run.meta.date.slice(0, 10)}`, `bench/results/${file}`],
      xLabel: 'memories in the store',
      yLabel: 'p95 latency (ms, log scale)',
      series,
      xTicks: [1_000, 10_000, 100_000],
      yTicks: [0.1, 1, 10, 100, 1_000, 10_000],
      formatX: thousands,
      formatY: (value) => (value < 1 ? String(value) : thousands(value)),
      rule: { y: 10, label: 'target at 100k: 10 ms' },
    }),
  };
}

type StackedRow = { label: string; parts: Array<{ name: string; value: number }> };

interface Reload {
  label: string;
  modelReady: number;
  firstAnswer: number;
}

function readColdReloads(text: string): { reloads: Reload[]; loads: string[] } {
  const reloads: Reload[] = [];
  const loads: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^reload (\d+) \((after [^;]+);.*?model ready (\d+) ms, first recall answered (\d+) ms from navigation.*load ([\d. ]+)$/.exec(line);
    if (!match) continue;
    reloads.push({ label: `reload ${match[1]}, ${match[2]}`, modelReady: Number(match[3]), firstAnswer: Number(match[4]) });
    loads.push(match[5]!.trim().split(' ')[0]!);
  }
  return { reloads, loads };
}

/** What a user waits for: navigation → model ready → first answer, each reload of the latest real-cold runs (128-d and 384-d). */
export function coldStart(dir: string): Chart {
  const files = [newest(dir, /^real-cold-(?!.*384d).*\.txt$/), newest(dir, /^real-cold-.*384d.*\.txt$/)];
  const rows: StackedRow[] = [];
  const loads: string[] = [];
  for (const [i, file] of files.entries()) {
    const { reloads, loads: runLoads } = readColdReloads(readFileSync(join(dir, file), 'utf8'));
    if (reloads.length === 0) throw new Error(`bench:report: no reloads in ${file}`);
    loads.push(...runLoads);
    const width = i === 0 ? '128-d' : '384-d';
    for (const reload of reloads) {
      rows.push({
        label: `${width}, ${reload.label.replace('after a killed tab', 'tab killed')}`,
        parts: [
          { name: 'navigation → model ready', value: reload.modelReady },
          { name: 'model ready → first answer', value: Math.max(0, reload.firstAnswer - reload.modelReady) },
        ],
      });
    }
  }
  const sortedLoads = loads.map(Number).sort((a, b) => a - b);
  return {
    file: 'cold-start.svg',
    svg: stackedBars({
      title: 'What the user waits for: 100,000 memories, navigation → first recall',
      subtitle: [`npm run bench:real-cold · Chromium, 2 cores, load ${sortedLoads[0]}–${sortedLoads.at(-1)}`, files.map((f) => `bench/results/${f}`).join(', ')],
      unit: 'ms from navigation',
      rows,
      legend: ['navigation → model ready', 'model ready → first answer'],
      max: 1_600,
      ticks: [0, 250, 500, 750, 1_000, 1_250, 1_500],
      format: thousands,
      rule: { value: 1_500, label: 'target 1.5 s' },
    }),
  };
}
/** engram's worker memory at 100k × 384-d against the raw vectors and the floor, from the latest footprint run. */
export function footprint(dir: string): Chart {
  const file = newest(dir, /^footprint-.*\.txt$/);
  const text = readFileSync(join(dir, file), 'utf8');
  const rows: StackedRow[] = [];
  let raw = 0;
  let floor = 0;
  let label = '';
  for (const line of text.split('\n')) {
    const match = /^([\d,]+)\s+(\d+)\s+(default, reopened|default|vector-only)\s+([\d.]+)\s+([\d.]+) \([\d.]+x\)\s+([\d.]+) \([\d.]+x\)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+) \(/.exec(line);
    if (!match) continue;
    raw = Number(match[4]);
    floor = Number(match[5]);
    label = `${match[1]} × ${match[2]}-d`;
    const state = match[3] === 'default' ? 'default, after inserting' : match[3] === 'default, reopened' ? 'default, reopened' : 'vector-only, after inserting';
    rows.push({
      label: state,
      parts: [
        { name: 'vectors (WebAssembly memory)', value: Number(match[6]) },
        { name: 'JS heap', value: Number(match[7]) },
        { name: 'ArrayBuffers', value: Number(match[8]) },
      ],
    });
  }
  if (rows.length === 0) throw new Error(`bench:report: no rows in ${file}`);
  const load = /load average ([\d., ]+)\)/.exec(text)?.[1]?.split(', ').map(Number).sort((a, b) => a - b) ?? [];
  rows.push({ label: 'floor: one f32 matrix', parts: [{ name: 'vectors (WebAssembly memory)', value: floor }] });
  rows.push({ label: 'raw f32 vectors', parts: [{ name: 'raw f32 vectors', value: raw }] });
  const target = Math.round(raw * 1.3 * 10) / 10;
  return {
    file: 'footprint.svg',
    svg: stackedBars({
      title: `engram's worker memory at rest, ${label} (lower is better)`,
      subtitle: [`npm run bench:footprint · Chromium, 2 cores${load.length ? `, load ${load[0]}–${load.at(-1)}` : ''}`, `bench/results/${file}`],
      unit: 'MB',
      rows,
      legend: ['vectors (WebAssembly memory)', 'JS heap', 'ArrayBuffers', 'raw f32 vectors'],
      max: 220,
      ticks: [0, 50, 100, 150, 200],
      format: (value) => String(Math.round(value * 10) / 10),
      rule: { value: target, label: `target: 1.3× raw (${target} MB)` },
    }),
  };
}

/** LoCoMo dev recall@k per mode, from the latest retrieval-quality run. */
export function locomo(dir: string): Chart {
  // Dated runs only: locomo-ideas-*.txt is another bench's results.
  const file = newest(dir, /^locomo-\d{4}-\d{2}-\d{2}.*\.txt$/);
  const text = readFileSync(join(dir, file), 'utf8');
  const sections = text.split(/\n(?=LoCoMo dev )/);
  const overall = (section: string | undefined, mode: string): number[] => {
    const match = new RegExp(`^${mode}\\s+overall\\s+\\d+\\s+([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)`, 'm').exec(section ?? '');
    if (!match) throw new Error(`bench:report: no ${mode} overall row in ${file}`);
    return match.slice(1, 5).map(Number);
  };
  const asText = sections.find((s) => s.startsWith('LoCoMo dev retrieval recall@k'));
  const asTurns = sections.find((s) => s.startsWith('LoCoMo dev recall@k, turn memory'));
  const ks = ['R@1', 'R@5', 'R@10', 'R@20'];
  const group = (label: string, values: number[]) => ({ label, bars: values.map((value, i) => ({ name: ks[i]!, value })) });
  const load = /load average at the end: ([\d.]+)/.exec(text)?.[1];
  return {
    file: 'locomo.svg',
    svg: barChart({
      title: 'LoCoMo dev: recall@k, 997 questions, no LLM (higher is better)',
      subtitle: [`npm run bench:locomo · the bundled 128-d model, Node, 2 cores${load ? `, load ${load}` : ''}`, `bench/results/${file}`],
      unit: 'recall@k',
      groups: [
        group('dense only (turns)', overall(asTurns, 'dense')),
        group('keyword only (turns)', overall(asTurns, 'keyword')),
        group('hybrid, default (turns)', overall(asTurns, 'hybrid')),
        group('hybrid (turns as text)', overall(asText, 'hybrid')),
      ],
      legend: ks,
      max: 1,
      ticks: [0, 0.2, 0.4, 0.6, 0.8, 1],
      format: (value) => value.toFixed(value === 0 || value === 1 ? 0 : 2),
    }),
  };
}

export function renderCharts(dir: string): Chart[] {
  return [peersLatency(dir), coldStart(dir), footprint(dir), locomo(dir)];
}
