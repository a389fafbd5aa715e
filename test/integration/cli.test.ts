import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemory } from '../../src/index.node.js';
import { scanJournal } from '../../src/store/durable/journal-file.js';
import { hashEmbedder } from '../support/hash-embedder.mjs';
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
    expect(await engram('import', file, '--dir', other, '--name', 'copy', '--create')).toContain('"facts":3');
    const out = await engram('stats', '--dir', other);
    expect(out.split('\n').find((line) => line.startsWith('u1 '))?.trim().split(/\s+/).slice(0, 4)).toEqual(['u1', '2', '0', '1']);
  });

  it('stats, export and recall read a store another process holds open, and change none of its files', async () => {
    // (No index snapshot saves by the owner, which would write page files of its own meanwhile.)
    const memory = await createMemory({ name: 'agent', directory: dir, embedder: await realEmbedder(), indexSnapshot: false });
    try {
      await memory.facts.add({ id: 'held', userId: 'u3', text: 'Written while the app holds the store' });
      const before = tree(dir);
      expect((await engram('stats', '--dir', dir)).split('\n').find((line) => line.startsWith('u3 '))?.trim().split(/\s+/).slice(0, 2)).toEqual(['u3', '1']);
      expect(await engram('export', '--dir', dir)).toContain('Written while the app holds the store');
      expect(await engram('recall', 'what was written?', '--dir', dir, '--user', 'u3', '--model', MODEL, '--model-path', MODEL_PATH)).toContain('held');
      expect(tree(dir)).toEqual(before);
      // A command that writes needs the store to itself: the owner is named.
      const file = join(root, 'held.jsonl');
      await run(process.execPath, [BIN, 'export', '--dir', dir, '--out', file]);
      const failure = await fails('import', file, '--dir', dir);
      expect(failure.code).toBe(1);
      expect(failure.stderr).toMatch(new RegExp(`^engram: StoreLockedError: The engram store in ".*" is open in process ${process.pid} since .*\n$`));
    } finally {
      await memory.facts.delete('held');
      await memory.close();
    }
  });

  it('the README’s import line works with --create, and a missing store is an error for every other command', async () => {
    const file = join(root, 'readme.jsonl');
    await run(process.execPath, [BIN, 'export', '--dir', dir, '--out', file]);
    const other = join(root, 'other');
    mkdirSync(other);
    expect(await fails('import', file, '--dir', other)).toEqual({ code: 1, stdout: '', stderr: `engram: no engram store in "${other}": to create one, add --name <store> --create\n` });
    expect(await engram('import', file, '--dir', other, '--name', 'agent', '--create')).toContain('"facts":3');
    expect(await engram('stats', '--dir', other)).toContain('store "agent"');
  });

  it('repair writes a new store from every record that verifies and prints what it kept and dropped', async () => {
    const live = join(root, 'to-damage-live');
    const memory = await createMemory({ name: 'agent', directory: live, embedder: hashEmbedder });
    for (let i = 0; i < 4; i++) await memory.facts.add({ id: `j${i}`, userId: 'u1', text: `journal fact ${i}` });
    const damaged = join(root, 'damaged');
    cpSync(live, damaged, { recursive: true });
    await memory.close();
    unlinkSync(join(damaged, 'agent', 'LOCK'));
    const journal = join(damaged, 'agent', 'journal.log');
    const bytes = readFileSync(journal);
    const second = scanJournal(bytes).records[1]!;
    bytes[second.offset + 40] = bytes[second.offset + 40]! ^ 0xff;
    writeFileSync(journal, bytes);
    const before = tree(damaged);

    // The case: a read-only command no longer cuts the journal; it says what is wrong and how to repair it.
    const refused = await fails('stats', '--dir', damaged);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `engram: CorruptionError: The engram store in "${join(damaged, 'agent')}" is damaged: journal.log fails verification at byte ${second.offset}, with valid records after it. Opening it would lose data, so nothing was opened or changed. \`npx engram repair --dir ${damaged} --name agent\` writes a new store from every record that verifies and keeps the damaged files beside it.\n`,
    });
    expect(tree(damaged)).toEqual(before);

    const repaired = await engram('repair', '--dir', damaged);
    expect(repaired.split('\n')).toEqual([
      `repaired store "agent" in ${damaged}`,
      expect.stringMatching(/^kept: 0 image rows and 4 journal records$/),
      `dropped: journal.log bytes ${second.offset}-${second.end}: fails verification`,
      'left out: the index snapshot (a cache; the next open rebuilds the index from the records)',
      `damaged file kept: ${journal}.damaged`,
      '',
    ]);
    expect(readFileSync(`${journal}.damaged`).equals(bytes)).toBe(true);
    const row = (await engram('stats', '--dir', damaged)).split('\n').find((line) => line.startsWith('u1 '));
    expect(row?.trim().split(/\s+/).slice(0, 2)).toEqual(['u1', '3']);
    expect(await engram('repair', '--dir', damaged)).toBe(`store "agent" in ${damaged}: nothing to repair, every record verifies\n`);
  });

  it('every user error is one `engram:` line saying what to do, exit 2 for usage and 1 for failure, no stack trace, no file created', async () => {
    const file = join(root, 'a-file.txt');
    writeFileSync(file, 'not an export\n');
    const exportFile = join(root, 'errors.jsonl');
    await run(process.execPath, [BIN, 'export', '--dir', dir, '--out', exportFile]);
    const empty = join(root, 'empty');
    mkdirSync(empty);
    const stores = `(the stores there: agent)`;
    const cases: [string[], number, string][] = [
      [['frobnicate', '--dir', dir], 2, 'unknown command "frobnicate": the commands are stats, export, import, recall, repair, hub (engram --help)'],
      [['stats', '--bogus'], 2, 'unknown option --bogus (engram stats --help lists the options)'],
      [['--bogus'], 2, 'unknown option --bogus (engram --help lists the options)'],
      [['stats', '--dir'], 2, '--dir needs a value: the folder given to createMemory({ directory }) (engram stats --help)'],
      [['stats', '--dir', '--name', 'agent'], 2, '--dir needs a value: the folder given to createMemory({ directory }) (engram stats --help)'],
      [['stats'], 2, 'stats needs --dir: the folder given to createMemory({ directory }) (engram stats --help)'],
      [['stats', '--dir', dir, '--out', 'x.jsonl'], 2, '--out does not apply to stats (engram stats --help)'],
      [['stats', '--dir', dir, 'extra'], 2, 'unexpected argument "extra" (engram stats --help)'],
      [['recall', '--dir', dir], 2, 'recall needs a query: engram recall "which database?" --dir <folder>'],
      [['recall', 'which', 'database', '--dir', dir], 2, 'unexpected argument "database": quote a query of several words (engram recall --help)'],
      [['recall', 'x', '--dir', dir, '--k', '0'], 2, '--k takes a whole number from 1 to 1000, not "0"'],
      [['import', '--dir', dir], 2, 'import needs a file: engram import <file.jsonl> --dir <folder>'],
      [['import', exportFile, '--dir', empty, '--create'], 2, 'import --create needs --name: the name of the store to create'],
      [['stats', '--dir', dir, '--name', '..'], 2, '--name ".." names a folder relative to the directory: a store name is a name, not a path'],
      [['stats', '--dir', dir, '--name', 'a/b'], 2, '--name "a/b" contains a path separator ("/" or "\\"): a store name is a name, not a path'],
      [['export', '--dir', dir, '--name', 'a\\b'], 2, '--name "a\\b" contains a path separator ("/" or "\\"): a store name is a name, not a path'],
      [['stats', '--dir', join(root, 'nowhere')], 1, `no folder "${join(root, 'nowhere')}": --dir takes the folder given to createMemory({ directory })`],
      [['stats', '--dir', file], 1, `"${file}" is a file, not a folder: --dir takes the folder given to createMemory({ directory })`],
      [['stats', '--dir', empty], 1, `no engram store in "${empty}": --dir takes the folder given to createMemory({ directory })`],
      [['stats', '--dir', dir, '--name', 'ghost'], 1, `no store "ghost" in "${dir}" ${stores}`],
      [['export', '--dir', dir, '--name', 'ghost'], 1, `no store "ghost" in "${dir}" ${stores}`],
      [['recall', 'x', '--dir', dir, '--name', 'ghost'], 1, `no store "ghost" in "${dir}" ${stores}`],
      [['repair', '--dir', dir, '--name', 'ghost'], 1, `no store "ghost" in "${dir}" ${stores}`],
      [['import', exportFile, '--dir', dir, '--name', 'ghost'], 1, `no store "ghost" in "${dir}" ${stores}: add --create to create it`],
      [['import', join(root, 'missing.jsonl'), '--dir', dir], 1, `no file "${join(root, 'missing.jsonl')}" to import: give the path of a file written by engram export`],
      [['import', root, '--dir', dir], 1, `"${root}" is a folder: give the path of a file written by engram export`],
      [['import', file, '--dir', dir], 1, `"${file}" is not an engram export (its first line is not an engram-export header): give a file written by engram export`],
      [['import', file, '--dir', empty, '--name', 'fresh', '--create'], 1, `"${file}" is not an engram export (its first line is not an engram-export header): give a file written by engram export`],
      [['export', '--dir', dir, '--out', join(root, 'no-such-folder', 'x.jsonl')], 1, `no folder "${join(root, 'no-such-folder')}" to write --out "${join(root, 'no-such-folder', 'x.jsonl')}" in: create it first`],
      [['export', '--dir', dir, '--out', root], 1, `--out "${root}" is a folder: give a file path, such as ${join(root, 'memory.jsonl')}`],
    ];
    // An export whose header is right and whose records are not: the import fails after the store was created.
    const broken = join(root, 'broken.jsonl');
    writeFileSync(broken, `${readFileSync(exportFile, 'utf8').split('\n')[0]}\n{"type":"fact","broken":true}\n`);
    const before = tree(root);
    // Four processes at a time (each is a Node start).
    for (let i = 0; i < cases.length; i += 4) {
      const batch = cases.slice(i, i + 4);
      const results = await Promise.all(batch.map(([args]) => fails(...args)));
      batch.forEach(([args, code, message], j) => expect(results[j], args.join(' ')).toEqual({ code, stdout: '', stderr: `engram: ${message}\n` }));
    }
    const importFailure = await fails('import', broken, '--dir', join(root, 'fresh-folder'), '--name', 'fresh', '--create');
    expect(importFailure.code).toBe(1);
    expect(importFailure.stderr).toMatch(/^engram: ImportError: [^\n]+\n$/);
    expect(tree(root)).toEqual(before);
    // --debug adds the stack trace.
    const debug = await fails('stats', '--dir', dir, '--name', 'ghost', '--debug');
    expect(debug.stderr.split('\n')[0]).toBe(`engram: no store "ghost" in "${dir}" ${stores}`);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('--help for the whole CLI and for each command', async () => {
    expect(await engram('--help')).toMatch(/^usage: engram <command> \[options\]\n\n {2}engram stats --dir <folder> \[--name <store>\]\n/);
    for (const command of ['stats', 'export', 'import', 'recall', 'repair']) {
      const help = await engram(command, '--help');
      expect(help.split('\n')[0]).toMatch(new RegExp(`^usage: engram ${command} `));
      expect(help).toContain('  --dir <folder>');
      expect(help).toContain('  --debug');
    }
    expect(await engram('import', '--help')).toContain('--create');
    expect(await engram('repair', '--help')).toContain('<file>.damaged');
  });
});

/** Runs the CLI expecting it to fail: its exit code and both outputs. */
async function fails(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const result = await run(process.execPath, [BIN, ...args]).then(
    () => null,
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
  if (!result) throw new Error(`engram ${args.join(' ')} succeeded`);
  return result;
}

/** Every file and folder under `folder`, with its size and modification time. */
function tree(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      const stats = statSync(path);
      out[relative(folder, path)] = entry.isDirectory() ? 'folder' : `${stats.size} ${stats.mtimeMs}`;
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(folder);
  return out;
}
