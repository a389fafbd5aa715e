/**
 * CPU time (process.cpuUsage: user + system, not wall clock) per observe()
 * without an LLM (two turns stored, indexed, announced), in Node on
 * fake-indexeddb with the real model: the figure a busy shared machine
 * changes least, for paired A/Bs of the commit path (issue 45). Run it from
 * each worktree in turns:
 *
 *   npx tsx bench/observe-cpu.ts [observes=300]
 *
 * It includes fake-indexeddb's own JavaScript, which a browser does in its
 * storage process instead, so a cut in engram's or Dexie's work shows here
 * diluted, never inflated.
 */
import { loadavg } from 'node:os';
import { DEFAULT_USER_ID } from '../src/index.js';
import { openMemory } from '../test/support/memory.js';

const N = Number(process.argv[2] ?? 300);
const WARM_UP = 20;
const memory = await openMemory();
const say = (i: number) => ({ userId: DEFAULT_USER_ID, sessionId: 's', user: `I planted ${i} tomato seedlings near the shed on day ${i}.`, assistant: `Good luck with the ${i} seedlings.` });
for (let i = 0; i < WARM_UP; i++) await memory.observe(say(i));
const cpu = process.cpuUsage();
const started = performance.now();
for (let i = WARM_UP; i < WARM_UP + N; i++) await memory.observe(say(i));
const used = process.cpuUsage(cpu);
const wall = performance.now() - started;
console.log(`observe() without an LLM, ${N} after ${WARM_UP} warm-ups: CPU ${((used.user + used.system) / 1000 / N).toFixed(3)} ms per observe, wall ${(wall / N).toFixed(3)} ms; load ${loadavg()[0]!.toFixed(1)}`);
await memory.close();
