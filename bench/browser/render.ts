/**
 * Re-renders a results file's Markdown from its JSON (after editing the
 * analysis in findings.ts), without running the benchmark again:
 *
 *   npx tsx bench/browser/render.ts bench/results/browser-2026-11-23-run3.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderReport, type RunMeta, type RunRecord } from './report.js';

const file = process.argv[2];
if (!file?.endsWith('.json')) throw new Error('usage: tsx bench/browser/render.ts bench/results/browser-<date>.json');
const { meta, records } = JSON.parse(readFileSync(file, 'utf8')) as { meta: RunMeta; records: RunRecord[] };
const markdown = renderReport(meta, records);
writeFileSync(file.replace(/\.json$/, '.md'), markdown);
process.stdout.write(markdown);
