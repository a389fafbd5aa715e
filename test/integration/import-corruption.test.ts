import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ImportError, TASK_LIMITS, type Memory } from '../../src/index.js';
import { fnv1a } from '../../src/text/fnv1a.js';
import { snapshot } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * A corrupted, truncated or tampered export is refused with an ImportError
 * and writes nothing: the receiving store's snapshot is exactly what it was.
 */
const shared = memoryFixture({ closeAfter: 'all' });
const scratchMemories = memoryFixture();
let source: Memory;
let target: Memory;
let file = '';
let targetBefore: string[] = [];

beforeAll(async () => {
  source = await shared.open();
  await source.episodes.add({ id: 'e1', text: 'Moved the garden shed to the north corner', tags: ['garden'] });
  await source.episodes.add({ id: 'e2', text: 'Painted the fence green over the weekend' });
  await source.facts.add({ id: 'f1', text: 'The user grows tomatoes' });
  await source.facts.add({ id: 'f2', userId: 'bob', text: 'Bob plays chess on Sundays' });
  await source.profile.update('default', { name: 'Ana', city: 'Porto' });
  const task = await source.tasks.start({ description: 'Fix the login form', type: 'debugging', context: { complexity: 'simple', domain: 'web', tags: [] } });
  task.log({ tool: 'edit_file', action: 'edit', parameters: {}, result: { kind: 'success', output: 'ok' }, latencyMs: 5 });
  await task.complete({ kind: 'success', verdict: 'fixed', artifacts: [] });
  file = await (await source.export()).text();

  target = await shared.open();
  await target.episodes.add({ id: 'mine', text: 'A memory the target already had about sailing' });
  await target.facts.add({ id: 'f1', text: 'The target user has their own fact f1 about cats' });
  targetBefore = await snapshot(target);
});

/** Imports `data` into the target and checks it is refused with an ImportError and wrote nothing. */
async function refused(data: string | Uint8Array, message?: RegExp): Promise<void> {
  const error = await target.import(data).then(
    () => new Error('the import was accepted'),
    (e: unknown) => e,
  );
  expect(error, String((error as Error)?.message)).toBeInstanceOf(ImportError);
  if (message) expect((error as Error).message).toMatch(message);
  expect(await snapshot(target)).toEqual(targetBefore);
}

/** Re-seals a file after editing its lines (a valid closing line), as a buggy tool or an attacker would. */
function reseal(lines: string[]): string {
  const body = lines.filter((l) => !l.startsWith('{"kind":"end"'));
  return [...body, JSON.stringify({ kind: 'end', lines: body.length, checksum: fnv1a(body.join('\n')) })].join('\n') + '\n';
}
const linesOf = (text: string) => text.trim().split('\n');

describe('corrupted exports are refused with ImportError and write nothing', () => {
  it('the intact file imports (control)', async () => {
    const scratch = await scratchMemories.open();
    const summary = await scratch.import(file);
    expect(summary).toMatchObject({ episodes: 2, facts: 2, profiles: 1, tasks: 1 });
    // Same records (key order inside a line may differ).
    expect((await snapshot(scratch)).map((l) => JSON.parse(l))).toEqual((await snapshot(source)).map((l) => JSON.parse(l)));
    await scratch.close();
  });

  it('truncated at 300 random points', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: file.length - 2 }), async (at) => refused(file.slice(0, at))),
      { seed: 91, numRuns: 300 },
    );
  });

  it('a flipped bit at 300 random places (as bytes)', async () => {
    const bytes = new TextEncoder().encode(file);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: bytes.length - 2 }), fc.integer({ min: 0, max: 7 }), async (at, bit) => {
        const copy = bytes.slice();
        copy[at]! ^= 1 << bit;
        await refused(copy);
      }),
      { seed: 92, numRuns: 300 },
    );
  });

  it('lines dropped, duplicated or swapped', async () => {
    const lines = linesOf(file);
    await refused(lines.filter((_, i) => i !== 2).join('\n'), /checksum|line count/);
    await refused([...lines.slice(0, 2), lines[1]!, ...lines.slice(2)].join('\n'), /checksum|line count/);
    await refused([lines[0], lines[2], lines[1], ...lines.slice(3)].join('\n'), /checksum/);
    await refused([...lines, lines[lines.length - 1]].join('\n'));
  });

  it('empty, not JSON, not an export, another format', async () => {
    await refused('', /empty or truncated/);
    await refused('\n\n\n', /empty or truncated/);
    await refused('{"format":"engram-export"\n{"kind":"end"', /JSON/);
    await refused(reseal(['{"format":"other-tool","version":1,"exportedAt":1,"userId":null,"embedder":null}']), /header/);
    await refused(new Uint8Array([0xff, 0xfe, 0x00, 0x01, 0x02]));
  });

  it('a version engram does not know (older or newer)', async () => {
    const lines = linesOf(file);
    for (const version of [0, 2, 99, '1', null]) {
      const header = { ...JSON.parse(lines[0]!), version };
      await refused(reseal([JSON.stringify(header), ...lines.slice(1)]), /header/);
    }
  });

  it('even re-sealed: duplicate ids, invalid records, bad vectors', async () => {
    const lines = linesOf(file);
    const episodeLine = lines.find((l) => l.startsWith('{"kind":"episode"'))!;
    const factLine = lines.find((l) => l.startsWith('{"kind":"fact"'))!;
    const vectorLine = lines.find((l) => l.startsWith('{"kind":"vector"'))!;
    const edit = (line: string, change: (o: Record<string, any>) => void) => {
      const o = JSON.parse(line);
      change(o);
      return JSON.stringify(o);
    };
    // The same episode twice, and a fact reusing an episode's id.
    await refused(reseal([...lines, episodeLine]), /same id/);
    await refused(reseal([...lines, edit(factLine, (o) => (o.record.id = JSON.parse(episodeLine).record.id))]), /same id/);
    // Records that break their schema.
    await refused(reseal([...lines, edit(episodeLine, (o) => { o.record.id = 'new'; o.record.text = ''; })]), /Line \d+/);
    await refused(reseal([...lines, edit(factLine, (o) => { o.record.id = 'new'; o.record.importance = 7; })]), /importance/);
    await refused(reseal([...lines, edit(factLine, (o) => { o.record.id = 'new'; o.record.userId = 'a\u0000b'; })]), /userId/);
    await refused(reseal([...lines, '{"kind":"mystery","record":{}}']), /Line \d+/);
    // Vectors: wrong dimension, not base64, not whole floats, NaN.
    const dimension = JSON.parse(lines[0]!).embedder.dimension as number;
    const floats = (values: number[]) => Buffer.from(new Float32Array(values).buffer).toString('base64');
    const withVector = (vector: string) => reseal(lines.map((l) => (l === vectorLine ? edit(l, (o) => (o.vector = vector)) : l)));
    await refused(withVector(floats(new Array(dimension - 1).fill(0.1))), /dimensions/);
    await refused(withVector(floats(new Array(dimension * 2).fill(0.1))), /dimensions/);
    await refused(withVector('A'), /base64/);
    await refused(withVector('AAAAAA=='), /float32|dimensions/);
    await refused(withVector(floats([NaN, ...new Array(dimension - 1).fill(0)])), /non-finite/);
  });

  it('even re-sealed: task, step, pattern and profile lines that break their record schema (issue 20: they used to be written, then broke tasks.stats() and the next open)', async () => {
    const lines = linesOf(file);
    const lineOf = (kind: string) => lines.find((l) => l.startsWith(`{"kind":"${kind}"`))!;
    const edit = (line: string, change: (record: Record<string, any>) => void) => {
      const o = JSON.parse(line);
      change(o.record);
      return JSON.stringify(o);
    };
    // Each replaces the original line, so only the schema can refuse it (no duplicate id).
    const swapped = (kind: string, change: (record: Record<string, any>) => void) => {
      const original = lineOf(kind);
      return reseal(lines.map((l) => (l === original ? edit(l, change) : l)));
    };
    await refused(swapped('task', (t) => delete t.context), /Line \d+.*context/);
    await refused(swapped('task', (t) => (t.context.tags = 'notarray')), /context\.tags/);
    await refused(swapped('task', (t) => (t.outcome = null)), /outcome/);
    await refused(swapped('task', (t) => (t.reward = { total: 'high' })), /reward/);
    await refused(swapped('task', (t) => (t.type = 'juggling')), /type/);
    await refused(swapped('task', (t) => (t.surprise = true)), /Line \d+/);
    await refused(swapped('step', (s) => (s.result = { kind: 'success' })), /result/);
    await refused(swapped('step', (s) => (s.index = 2)), /id must be/);
    await refused(swapped('step', (s) => (s.latencyMs = -1)), /latencyMs/);
    await refused(swapped('pattern', (p) => (p.kind = 'unknown-kind')), /kind/);
    await refused(swapped('pattern', (p) => (p.evidenceTaskIds = 'x')), /evidenceTaskIds/);
    await refused(swapped('profile', (p) => (p.fields.timeZone = 'Mars/Olympus')), /timeZone/);
    await refused(swapped('profile', (p) => (p.fields.goals = [1, 2])), /goals/);
    // And the target's task queries still work.
    expect(await target.tasks.stats()).toMatchObject({ total: 0, completed: 0 });
    expect(await target.tasks.relevant({ description: 'Fix the login form' })).toEqual([]);
  });

  it('even re-sealed: tasks and steps over the limits the API enforces (TASK_LIMITS)', async () => {
    const lines = linesOf(file);
    const swapped = (kind: string, change: (record: Record<string, any>) => void) => {
      const original = lines.find((l) => l.startsWith(`{"kind":"${kind}"`))!;
      const o = JSON.parse(original);
      change(o.record);
      return reseal(lines.map((l) => (l === original ? JSON.stringify(o) : l)));
    };
    await refused(swapped('task', (t) => (t.description = 'd'.repeat(TASK_LIMITS.descriptionBytes + 1))), /Line \d+: description is 10,001 bytes/);
    await refused(swapped('task', (t) => (t.outcome.verdict = 'v'.repeat(TASK_LIMITS.outcomeTextBytes + 1))), /Line \d+: outcome verdict/);
    await refused(swapped('step', (s) => (s.result.output = 'o'.repeat(TASK_LIMITS.stepOutputBytes + 1))), /Line \d+: step output/);
    await refused(swapped('step', (s) => (s.parameters = { fileContent: 'p'.repeat(TASK_LIMITS.largeParameterBytes + 1) })), /parameter "fileContent"/);
    await refused(
      swapped('step', (s) => {
        s.index = TASK_LIMITS.stepsPerTask + 1;
        s.id = `${s.taskId}#${s.index}`;
      }),
      /Line \d+: step number is 1,001 steps/,
    );
    // At the limits they import (control).
    const scratch = await scratchMemories.open();
    await scratch.import(
      swapped('task', (t) => {
        t.description = 'd'.repeat(TASK_LIMITS.descriptionBytes);
        t.outcome.verdict = 'v'.repeat(TASK_LIMITS.outcomeTextBytes);
      }),
    );
    expect((await scratch.tasks.get(JSON.parse(lines.find((l) => l.startsWith('{"kind":"task"'))!).record.id)).outcome).toMatchObject({ verdict: 'v'.repeat(TASK_LIMITS.outcomeTextBytes) });
    await scratch.close();
  });

  it('the target is still fully usable afterwards', async () => {
    expect((await target.recall('sailing')).map((h) => h.memory.id)).toContain('mine');
    expect((await target.facts.get('f1')).text).toMatch(/cats/);
  });
});
