import { fileURLToPath } from 'node:url';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createMemory, loadTransformersEmbedder, type Embedder, type MemoryOptions } from '../src/index.js';

export const MODEL = 'minishlab/potion-base-4M-int8';
export const MODEL_PATH = fileURLToPath(new URL('../../shared/models/', import.meta.url));
export const LOCOMO_PATH = fileURLToPath(new URL('../../shared/eval/locomo-dev/retrieval.jsonl', import.meta.url));

let embedder: Promise<Embedder> | undefined;
export function offlineEmbedder(): Promise<Embedder> {
  embedder ??= loadTransformersEmbedder({ model: MODEL, localModelPath: MODEL_PATH });
  return embedder;
}

/** A memory on a fresh in-memory IndexedDB (fake-indexeddb) and the offline model. */
export async function benchMemory(options: Partial<MemoryOptions> = {}) {
  const idb = { indexedDB: new IDBFactory(), IDBKeyRange };
  const memory = await createMemory({ name: 'bench', ...idb, embedder: await offlineEmbedder(), ...options });
  return { memory, idb };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

/** Prints a table with aligned columns. */
export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? formatNumber(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  console.log(`\n${title}`);
  for (const [i, row] of cells.entries()) {
    console.log(row.map((c, j) => String(c).padEnd(widths[j]!)).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toFixed(3);
}
