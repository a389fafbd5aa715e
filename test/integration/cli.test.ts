import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemory } from '../../src/index.node.js';
import { MODEL, MODEL_PATH, realEmbedder } from '../support/memory.js';

// Needs dist/ (npx tsup): this runs the CLI as `npx engram` runs it, from package.json "bin".
const BIN = fileURLToPath(new URL(`../../${JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).bin.engram}`, import.meta.url));
const run = promisify(execFile);
const engram = async (...args: string[]) => (await run(process.execPath, [BIN, ...args])).stdout;

const root = mkdtempSync(join(tmpdir(), 'engram-cli-'));
const dir = join(root, 'store');
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeAll(async () => {
  const memory = await createMemory({ name: 'agent', directory: dir, embedder: await realEmbedder() });
  await memory.facts.addMany([
    { text: 'Prefers PostgreSQL for relational data', userId: 'u1' },
    { text: 'Lives in Lisbon', userId: 'u1' },
    { text: 'Allergic to peanuts', userId: 'u2' },
  ]);
  await memory.episodes.add({ text: 'Migrated the billing service to PostgreSQL 16', userId: 'u1' });
  await memory.turns.add({ speaker: 'user', text: 'Can you remind me which database we chose?', userId: 'u2' });
  await memory.close();
});

describe('npx engram', () => {
  it('stats prints counts per user and type', async () => {
    const out = await engram('stats', '--dir', dir);
    expect(out).toContain('store "agent"');
    const row = (user: string) => out.split('\n').find((line) => line.startsWith(`${user} `))?.trim().split(/\s+/);
    // user, facts, facts (retired), episodes, turns, tasks, patterns, profiles
    expect(row('u1')?.slice(0, 5)).toEqual(['u1', '2', '0', '1', '0']);
    expect(row('u2')?.slice(0, 5)).toEqual(['u2', '1', '0', '0', '1']);
  });

  it('recall prints the hits with their score parts', async () => {
    const out = await engram('recall', 'which database does the user like?', '--dir', dir, '--user', 'u1', '--k', '2', '--model', MODEL, '--model-path', MODEL_PATH);
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^1\. \[(fact|episode)\] \d\.\d{3} \S+ +.*PostgreSQL/);
    expect(lines[1]).toMatch(/similarity=\d\.\d{3} keyword=\d\.\d{3} relevance=/);
    expect(out).not.toContain('peanuts');
  });

  it('export writes JSON Lines that import loads into another store', async () => {
    const file = join(root, 'export.jsonl');
    await run(process.execPath, [BIN, 'export', '--dir', dir, '--out', file]);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'engram-export' });
    expect((await engram('export', '--dir', dir)).trim().split('\n').length).toBe(lines.length);

    const other = join(root, 'copy');
    expect(await engram('import', file, '--dir', other, '--name', 'copy')).toContain('"facts":3');
    const out = await engram('stats', '--dir', other);
    expect(out.split('\n').find((line) => line.startsWith('u1 '))?.trim().split(/\s+/).slice(0, 4)).toEqual(['u1', '2', '0', '1']);
  });

  it('a store open in another process is refused with the owner named', async () => {
    const memory = await createMemory({ name: 'agent', directory: dir, embedder: await realEmbedder() });
    try {
      const failure = await run(process.execPath, [BIN, 'stats', '--dir', dir]).catch((error: { stderr: string; code: number }) => error);
      expect(failure).toMatchObject({ code: 1 });
      expect((failure as { stderr: string }).stderr).toContain(`StoreLockedError (LOCKED)`);
      expect((failure as { stderr: string }).stderr).toContain(`process ${process.pid}`);
    } finally {
      await memory.close();
    }
  });
});
