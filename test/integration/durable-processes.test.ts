import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemory, StoreLockedError } from '../../src/index.node.js';
import { hashEmbedder } from '../support/hash-embedder.mjs';

// Needs dist/ (npx tsup): the child runs the built package.
const CHILD = fileURLToPath(new URL('../support/durable-child.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'engram-durable-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdin.end();
    child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`child failed (${code}): ${err}`))));
  });
}

describe('durable store: several processes', () => {
  it('a second process gets StoreLockedError naming the owner; after close it opens and sees every write', async () => {
    const memory = await createMemory({ name: 'agent', directory: dir, embedder: hashEmbedder });
    const mine = await memory.facts.add({ text: 'written by the parent process' }, { merge: false });

    expect(await run(['open', dir])).toBe(`error LOCKED ${process.pid}`);
    // In this process too: one owner per store.
    const again = await createMemory({ name: 'agent', directory: dir, embedder: hashEmbedder }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(StoreLockedError);
    expect((again as StoreLockedError).details.pid).toBe(process.pid);
    expect(await memory.facts.get(mine.id)).toMatchObject({ text: 'written by the parent process' });

    await memory.close();
    const added = /^added (\S+)$/.exec(await run(['add', dir, 'written by the child process']))?.[1];
    expect(added).toBeDefined();

    const reopened = await createMemory({ name: 'agent', directory: dir, embedder: hashEmbedder });
    expect((await reopened.facts.list()).map((f) => f.text).sort()).toEqual(['written by the child process', 'written by the parent process']);
    await reopened.close();
  });
});
