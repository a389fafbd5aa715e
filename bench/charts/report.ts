/**
 * Draws the benchmark charts from the committed results: reads
 * bench/results/ (the newest file of each bench), writes docs/charts/*.svg.
 * No network, no browser: run it in the same commit as new results.
 *
 *   npm run bench:report
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCharts } from './render.js';

const results = fileURLToPath(new URL('../results/', import.meta.url));
const out = fileURLToPath(new URL('../../docs/charts/', import.meta.url));
mkdirSync(out, { recursive: true });
for (const chart of renderCharts(results)) {
  writeFileSync(`${out}${chart.file}`, chart.svg);
  console.log(`docs/charts/${chart.file}  ${chart.svg.length.toLocaleString('en-US')} B`);
}
