/**
 * formatContext's cost in Node at 1×: its first call in a process (the
 * runtime's first Intl.DateTimeFormat loads its date-format data), then
 * the median of 200 warm calls over 10 hits in a named zone.
 *
 *   npx tsx bench/format-context.ts
 */
import { loadavg } from 'node:os';
import { formatContext } from '../src/recall/format-context.js';
import { buildFact } from '../src/memories/facts/build-fact.js';
import { median } from './support.js';

const at = Date.UTC(2026, 10, 22, 23, 30);
const hits = Array.from({ length: 10 }, (_, i) => ({ memory: buildFact({ userId: 'default', text: `Fact number ${i} about things`, createdAt: at - i * 86_400_000 }, at) }));
let started = performance.now();
formatContext(hits, { now: at });
const first = performance.now() - started;
for (let i = 0; i < 50; i++) formatContext(hits, { now: at, timeZone: 'Europe/Lisbon' });
const times: number[] = [];
for (let i = 0; i < 200; i++) {
  started = performance.now();
  formatContext(hits, { now: at, timeZone: 'Europe/Lisbon' });
  times.push(performance.now() - started);
}
console.log(`formatContext, 10 lines: first call ${first.toFixed(1)} ms, warm median ${median(times).toFixed(3)} ms; load ${loadavg()[0]!.toFixed(1)}`);
