import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderCharts } from '../../bench/charts/render.js';

const results = fileURLToPath(new URL('../../bench/results/', import.meta.url));
const charts = fileURLToPath(new URL('../../docs/charts/', import.meta.url));

describe('the benchmark charts', () => {
  it('are what `npm run bench:report` draws from the committed results (regenerate them with new results)', () => {
    const drawn = renderCharts(results);
    expect(drawn.map((chart) => chart.file).sort()).toEqual(['cold-start.svg', 'footprint.svg', 'locomo.svg', 'peers-latency.svg']);
    for (const chart of drawn) {
      expect(readFileSync(`${charts}${chart.file}`, 'utf8'), `docs/charts/${chart.file} is stale: run npm run bench:report`).toBe(chart.svg);
    }
  });

  it('draw the figures of the results files, not fixed numbers', () => {
    const byFile = new Map(renderCharts(results).map((chart) => [chart.file, chart.svg]));
    // engram's 128-d p95 at 100k in run3 (5.74 ms) and hnswlib's recall there (0.286) come from the JSON.
    expect(byFile.get('peers-latency.svg')).toContain('hnswlib-wasm (recall@10 0.73, 0.29 at 10,000, 100,000)');
    // The latest real-cold runs' first answers, in ms from navigation.
    expect(byFile.get('cold-start.svg')).toContain('>989<');
    expect(byFile.get('cold-start.svg')).toContain('>967<');
    // The footprint run's parts (156.1 + 21.6 + 20.2 MB right after inserting) and the 1.3 × raw target.
    expect(byFile.get('footprint.svg')).toContain('default, after inserting, vectors (WebAssembly memory): 156.1');
    expect(byFile.get('footprint.svg')).toContain('>197.9<');
    expect(byFile.get('footprint.svg')).toContain('target: 1.3× raw (199.7 MB)');
    // LoCoMo hybrid R@10 over turns (0.798 in locomo-2026-11-28.txt).
    expect(byFile.get('locomo.svg')).toContain('hybrid, default (turns), R@10: 0.80');
  });
});
