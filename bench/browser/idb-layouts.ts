/**
 * Raw IndexedDB in Chromium, no engram: how fast fact-shaped rows go in under
 * each storage layout, in a worker, 1,000 rows per transaction. This is the
 * measurement behind storing vectors in blocks (src/store/vector-blocks.ts)
 * and dropping the fact indexes no query used (src/store/database.ts v4):
 * Chromium charges mostly per request, so the number of rows per memory
 * matters more than their size.
 *
 *   npm run bench:idb               20,000 rows per layout, 128-d and 384-d, median of 3
 *   BENCH_ROWS=50000 BENCH_RUNS=5 npm run bench:idb
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';
import { printTable } from '../support.js';
import { BATCH, LAYOUTS, measureLayout } from './idb-rows.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

async function main(): Promise<void> {
  // A persistent profile: IndexedDB on disk, as in a real browser.
  const profile = mkdtempSync(join(tmpdir(), 'engram-idb-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
  try {
    const rows: (string | number)[][] = [];
    for (const [layout, what] of LAYOUTS) {
      const row: (string | number)[] = [layout, what];
      for (const dim of [128, 384]) row.push(Math.round(await measureLayout(context, layout, dim, ROWS, RUNS)));
      rows.push(row);
    }
    printTable(
      `Raw IndexedDB in Chromium ${context.browser()?.version() ?? ''}: fact-shaped rows/s, ${ROWS.toLocaleString('en-US')} per layout in ${BATCH.toLocaleString('en-US')}-row transactions, in a worker, median of ${RUNS}`,
      ['layout', 'what is written per memory', '128-d rows/s', '384-d rows/s'],
      rows,
    );
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

await main();
