import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemory } from '../../src/index.node.js';
import { EngramDatabase } from '../../src/store/database.js';
import { openDurableStore } from '../../src/store/durable/durable-store.js';
import { hashEmbedder } from '../support/hash-embedder.mjs';
import { seededRandom } from '../support/seeded-random.js';

// Needs dist/ (npx tsup): the child runs the built package, as an app would.
const CHILD = fileURLToPath(new URL('../support/durable-child.mjs', import.meta.url));
/**
 * The writer's cycle acknowledges six kinds of line (fact, episode,
 * group-begin, group, task, steps). A kill lands right after the writer
 * acknowledged its Nth line, so while the next write of the cycle is in
 * flight: N runs through every position of the cycle twice (seeded cycle
 * counts), so every kind of write is interrupted, however fast or slow the
 * machine writes. A few more kills land at a seeded delay after the
 * child starts, most of them during its open.
 */
const CYCLE = 6;
const AFTER_LINE_KILLS = 2 * CYCLE;
const DURING_OPEN_KILLS = 4;
const KILLS = AFTER_LINE_KILLS + DURING_OPEN_KILLS;
const SEED = 17;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engram-durable-'));
  dirs.push(dir);
  return dir;
}

/** Runs a writer child and SIGKILLs it once it has acknowledged `afterLines` lines, or `delayMs` after spawn; returns what it acknowledged. */
function writeUntilKilled(dir: string, round: number, kill: { afterLines: number } | { delayMs: number }): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, 'write', dir, String(round)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    if ('delayMs' in kill) setTimeout(() => child.kill('SIGKILL'), kill.delayMs);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // Whole lines after "ready": the writes it acknowledged so far.
      const acknowledged = out.split('\n').slice(0, -1).filter((line) => line !== 'ready').length;
      if ('afterLines' in kill && acknowledged >= kill.afterLines) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited by itself (code ${code}): ${err}`));
      // Only whole lines are acknowledgements: a line cut by the kill was not seen whole.
      else resolve(out.split('\n').slice(0, -1).filter((line) => line !== 'ready'));
    });
  });
}

describe('durable store: kill -9 at random moments', () => {
  it('never loses an acknowledged write and never leaves a partial one', async () => {
    const dir = freshDir();
    const random = seededRandom(SEED);
    const acked = { facts: new Map<string, string>(), episodes: new Set<string>(), groups: [] as string[][], steps: new Map<string, number>(), tasks: new Set<string>() };
    const groupsBegun = new Map<string, number>();
    // The kills in a seeded order: each position of the cycle twice (after 0, 1 or 2 whole cycles), and the delayed ones.
    const kills = [
      ...Array.from({ length: AFTER_LINE_KILLS }, (_, i) => ({ afterLines: 1 + (i % CYCLE) + CYCLE * Math.floor(random() * 3) })),
      ...Array.from({ length: DURING_OPEN_KILLS }, () => ({ delayMs: Math.floor(50 + random() * 600) })),
    ].sort(() => random() - 0.5);
    for (let round = 0; round < KILLS; round++) {
      for (const line of await writeUntilKilled(dir, round, kills[round]!)) {
        const [kind, a, ...rest] = line.split(' ');
        if (kind === 'fact') acked.facts.set(a!, rest.join(' '));
        else if (kind === 'episode') acked.episodes.add(a!);
        else if (kind === 'group-begin') groupsBegun.set(a!, Number(rest[0]));
        else if (kind === 'group') acked.groups.push(a!.split(','));
        else if (kind === 'task') acked.tasks.add(a!);
        else if (kind === 'steps') acked.steps.set(a!, Number(rest[0]));
      }
    }

    // The raw store first (opening a memory would repair a missing vector by re-embedding it, hiding a partial write).
    const store = await openDurableStore(dir, 'agent');
    const db = new EngramDatabase('agent', { indexedDB: store.indexedDB, IDBKeyRange: store.IDBKeyRange });
    await db.open();
    const facts = await db.facts.toArray();
    const episodes = await db.episodes.toArray();
    const tasks = await db.tasks.toArray();
    const steps = await db.steps.toArray();
    const vectorIds = new Set((await db.vectorBlocks.toArray()).flatMap((block) => block.ids));
    db.close();
    await store.close();

    const factIds = new Set(facts.map((f) => f.id));
    const lostIds = [
      ...[...acked.facts.keys(), ...acked.groups.flat()].filter((id) => !factIds.has(id)),
      ...[...acked.episodes].filter((id) => !episodes.some((e) => e.id === id)),
      ...[...acked.tasks].filter((id) => !tasks.some((t) => t.id === id)),
    ];
    const lost = lostIds.length;
    if (lost) console.log('lost', lostIds.map((id) => (acked.facts.has(id) ? 'fact' : acked.episodes.has(id) ? 'episode' : acked.tasks.has(id) ? 'task' : 'group')));
    const withoutVector = [...facts, ...episodes].filter((m) => !vectorIds.has(m.id)).length;
    const stepsOf = new Map<string, number[]>();
    for (const step of steps) stepsOf.set(step.taskId, [...(stepsOf.get(step.taskId) ?? []), step.index]);
    const brokenTasks = [...stepsOf.values()].filter((indexes) => {
      const sorted = [...indexes].sort((x, y) => x - y);
      return sorted.some((index, i) => index !== i + 1) || sorted.length % 3 !== 0;
    }).length;
    const stepsLost = [...acked.steps].filter(([task, n]) => (stepsOf.get(task)?.length ?? 0) < n).length;
    // addMany is one transaction: each group is all there or not at all, acknowledged or not.
    const byGroup = new Map<string, number>();
    for (const f of facts) {
      const group = /grp(\S+)/.exec(f.text)?.[1];
      if (group) byGroup.set(group, (byGroup.get(group) ?? 0) + 1);
    }
    const partialGroups = [...groupsBegun].filter(([tag, n]) => ![0, n].includes(byGroup.get(tag.slice(3)) ?? 0)).length;

    const memory = await createMemory({ name: 'agent', directory: dir, embedder: hashEmbedder });
    let recalled = 0;
    for (const [id, text] of acked.facts) {
      const hits = await memory.recall(text, { k: 5, userId: 'u1', touch: false });
      if (hits.some((hit) => hit.memory.id === id)) recalled++;
    }
    await memory.close();

    const counts = {
      kills: KILLS,
      acknowledged: acked.facts.size + acked.groups.flat().length + acked.episodes.size + acked.tasks.size,
      lost,
      stepsLost,
      partial: withoutVector + brokenTasks + partialGroups,
      factsAcked: acked.facts.size,
      recalled,
    };
    console.log('durable crash test', JSON.stringify(counts));
    // Every kind of write was acknowledged at least once, so each was interrupted too (see CYCLE).
    expect([acked.facts.size, acked.episodes.size, groupsBegun.size, acked.groups.length, acked.tasks.size, acked.steps.size].every((n) => n > 0)).toBe(true);
    expect(counts).toEqual({ ...counts, lost: 0, stepsLost: 0, partial: 0, recalled: acked.facts.size });
  }, 180_000);
});
