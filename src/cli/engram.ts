#!/usr/bin/env node
/**
 * `npx engram`: inspect and repair a durable Node store (createMemory({ directory })).
 *
 *   engram stats  --dir ./memory [--name agent]
 *   engram export --dir ./memory [--name agent] [--out file.jsonl]
 *   engram import <file.jsonl> --dir ./memory [--name agent] [--create]
 *   engram recall "query" --dir ./memory [--name agent] [--user u1] [--k 10] [--model id --model-path folder]
 *   engram repair --dir ./memory [--name agent]
 *
 * stats, export and recall read a snapshot of the store's files (no lock,
 * nothing written), so they work while an app has the store open; import
 * and repair write, so they need the store to themselves. A store that does
 * not exist is an error for every command but `import --create`. stats,
 * export and import never embed (exports carry their vectors); recall embeds
 * the query with the model that wrote the store: the store records its id,
 * and --model / --model-path say where to load it from offline.
 *
 * A user's mistake prints one `engram: …` line saying what to do, and exits
 * 2 (usage) or 1 (failure); --debug adds the stack trace.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createMemory, loadTransformersEmbedder, type Embedder, type Memory } from '../index.node.js';
import { DEFAULT_EMBEDDING_MODEL } from '../embed/default-model.js';
import { EngramError } from '../errors.js';
import { EngramDatabase } from '../store/database.js';
import { openDurableStore } from '../store/durable/durable-store.js';
import { repairStore, type RepairReport } from '../store/durable/repair-store.js';
import { storeFolderName } from '../store/durable/store-name.js';
import { EMBEDDER_META_KEY, type EmbedderStamp } from '../schema/records.js';
import { memoryKinds, type StoredMemory } from '../memories/registry.js';
import { HUB_USAGE, runHubCommand } from './hub.js';
import { locateStore } from './locate-store.js';
import { CliFailure, UsageError } from './cli-errors.js';
import { commandHelp, parseCommandLine, USAGE, type CommandName, type Flags } from './command-line.js';

let flags: Flags = {};

/** Reads the store directly, as a read-only snapshot: counts per user and type, and the embedder stamp. */
async function readStore(dir: string, name: string) {
  const store = await openDurableStore(dir, name, { readOnly: true });
  const db = new EngramDatabase(name, { indexedDB: store.indexedDB, IDBKeyRange: store.IDBKeyRange });
  try {
    await db.open();
    const counts = new Map<string, Record<string, number>>();
    const count = (userId: string, type: string) => {
      const row = counts.get(userId) ?? {};
      row[type] = (row[type] ?? 0) + 1;
      counts.set(userId, row);
    };
    for (const kind of memoryKinds()) {
      await db.table(kind.table).each((record: StoredMemory) => count(record.userId, kind.retired?.(record) ? `${kind.table} (retired)` : kind.table));
    }
    await db.tasks.each((t) => count(t.userId, 'tasks'));
    await db.patterns.each((p) => count(p.userId, 'patterns'));
    await db.profiles.each((p) => count(p.userId, 'profiles'));
    const steps = await db.steps.count();
    const jobs = await db.jobs.count();
    const stamp = (await db.meta.get(EMBEDDER_META_KEY))?.value as EmbedderStamp | undefined;
    return { counts, steps, jobs, stamp, opened: store.opened };
  } finally {
    db.close();
    await store.close();
  }
}

/** An embedder that only declares the store's vector space: enough for export and import, which never embed. */
function declaredOnly(stamp: EmbedderStamp): Embedder {
  return {
    id: stamp.id,
    dimension: stamp.dimension,
    async embed() {
      throw new UsageError(`this command needs the model that wrote the store ("${stamp.id}"): use recall with --model/--model-path`);
    },
  };
}

/**
 * The model for recall: the store's own. engram's bundled model is read from
 * the package (no flag needed); any other is loaded offline from --model-path.
 * Refuses another model (opening with it would re-embed the store).
 */
async function storeModel(stamp: EmbedderStamp): Promise<Embedder> {
  const fromStamp = /^transformers\.js\/(.+)\/([^/]+)$/.exec(stamp.id);
  const model = flags.model ?? fromStamp?.[1];
  if (!model) throw new UsageError(`the store's vectors come from a custom embedder ("${stamp.id}"); recall needs it: pass --model (a transformers.js model) only if it is that one`);
  const modelPath = flags['model-path'];
  if (modelPath === undefined && model !== DEFAULT_EMBEDDING_MODEL) {
    throw new UsageError(`the store was embedded with "${model}", which is not engram's bundled model: pass --model-path <folder> holding ${model}/ (the localModelPath the app used; recall never fetches a model)`);
  }
  const embedder = await loadTransformersEmbedder({
    model,
    localModelPath: modelPath,
    dtype: fromStamp?.[2] as 'q8' | undefined,
  });
  if (embedder.id !== stamp.id) throw new UsageError(`the store was embedded with "${stamp.id}", not "${embedder.id}": recall with the store's model`);
  return embedder;
}

async function withMemory<T>(dir: string, name: string, embedder: Embedder, options: { readOnly: boolean }, run: (memory: Memory) => Promise<T>): Promise<T> {
  // No index snapshot save for a short inspection, no background work: open, run, close.
  const memory = await createMemory({ name, directory: dir, embedder, readOnly: options.readOnly });
  try {
    return await run(memory);
  } finally {
    await memory.close();
  }
}

async function main(argv: string[]): Promise<void> {
  // `engram hub` has flags of its own (src/cli/hub.ts).
  if (argv[0] === 'hub') return runHubCommand(argv.slice(1));
  const line = parseCommandLine(argv);
  flags = line.flags;
  if (!line.command) {
    console.log(`${USAGE}\n\nA sync hub for development and a single machine:\n  ${HUB_USAGE}`);
    return;
  }
  if (flags.help) {
    console.log(commandHelp(line.command));
    return;
  }
  const dir = flags.dir!;
  const { name, exists } = locateStore(dir, flags.name, line.command, flags.create === true);
  const run = COMMAND_RUNNERS[line.command];
  await run({ dir, name, exists, argument: line.argument });
}

type Runner = (store: { dir: string; name: string; exists: boolean; argument: string | undefined }) => Promise<void>;

const COMMAND_RUNNERS: Record<CommandName, Runner> = {
  async stats({ dir, name }) {
    const { counts, steps, jobs, stamp, opened } = await readStore(dir, name);
    console.log(
      `store "${name}" in ${dir}: embedder ${stamp ? `${stamp.id} (${stamp.dimension}-d)` : 'none yet'}; ${opened.replayed} journal records replayed at open${opened.tornBytes ? `, ${opened.tornBytes} bytes of torn tail left out` : ''}`,
    );
    // Every memory kind's table (and its retired versions, where it keeps them: memories/registry.ts), then the engine's own.
    // The kinds that keep retired versions lead, so the columns stay where the table has always had them (facts first).
    const kinds = [...memoryKinds()].sort((a, b) => Number(Boolean(b.retired)) - Number(Boolean(a.retired)));
    const types = [...kinds.flatMap((kind) => (kind.retired ? [kind.table, `${kind.table} (retired)`] : [kind.table])), 'tasks', 'patterns', 'profiles'];
    const rows = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([user, row]) => [user, ...types.map((t) => String(row[t] ?? 0))]);
    printTable(['user', ...types], rows);
    console.log(`task steps: ${steps}; queued jobs: ${jobs}`);
  },

  async export({ dir, name }) {
    if (flags.out) checkOutFile(flags.out);
    const { stamp } = await readStore(dir, name);
    if (!stamp) throw new CliFailure(`store "${name}" in "${dir}" is empty: there is nothing to export`);
    const text = await withMemory(dir, name, declaredOnly(stamp), { readOnly: true }, async (memory) => (await memory.export()).text());
    if (flags.out) {
      writeFileSync(flags.out, text);
      console.error(`exported ${text.trim().split('\n').length} lines to ${flags.out}`);
    } else process.stdout.write(text);
  },

  async import({ dir, name, exists, argument }) {
    const file = argument!;
    const text = readExportFile(file);
    const fileStamp = embedderOfExport(text, file);
    const stamp = exists ? (await readStore(dir, name)).stamp : undefined;
    // What this command creates (the --dir folder, or the store's folder in it), removed again if the import fails.
    const folder = join(dir, storeFolderName(name));
    const created = !existsSync(dir) ? dir : !existsSync(folder) ? folder : null;
    try {
      const summary = await withMemory(dir, name, declaredOnly(stamp ?? fileStamp), { readOnly: false }, (memory) => memory.import(text));
      console.log(`imported ${JSON.stringify(summary)}`);
    } catch (error) {
      if (created) rmSync(created, { recursive: true, force: true });
      throw error;
    }
  },

  async recall({ dir, name, argument }) {
    const { stamp } = await readStore(dir, name);
    if (!stamp) throw new CliFailure(`store "${name}" in "${dir}" is empty: there is nothing to recall`);
    const embedder = await storeModel(stamp);
    const hits = await withMemory(dir, name, embedder, { readOnly: true }, (memory) =>
      memory.recall(argument!, { userId: flags.user, k: flags.k ? Number(flags.k) : 10, touch: false }),
    );
    if (hits.length === 0) console.log('no hits');
    for (const [i, hit] of hits.entries()) {
      const parts = Object.entries(hit.parts)
        .map(([part, value]) => `${part}=${typeof value === 'number' ? value.toFixed(3) : String(value)}`)
        .join(' ');
      console.log(`${i + 1}. [${hit.memory.type}] ${hit.score.toFixed(3)} ${hit.memory.id}  ${hit.memory.text}\n   ${parts}`);
    }
  },

  async repair({ dir, name }) {
    printRepair(name, dir, await repairStore(dir, name));
  },
};

/** The export file's text; a missing file, a folder or an unreadable file is the user's to fix. */
function readExportFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CliFailure(`no file "${file}" to import: give the path of a file written by engram export`);
    if (code === 'EISDIR') throw new CliFailure(`"${file}" is a folder: give the path of a file written by engram export`);
    throw new CliFailure(`cannot read "${file}" (${code ?? (error as Error).message})`);
  }
}

/** The export's embedder, from its header line: checked before any store is opened or created. */
function embedderOfExport(text: string, file: string): EmbedderStamp {
  const first = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  const header = parseJsonOrNull(first) as { format?: unknown; embedder?: EmbedderStamp | null } | null;
  if (!header || header.format !== 'engram-export') throw new CliFailure(`"${file}" is not an engram export (its first line is not an engram-export header): give a file written by engram export`);
  if (!header.embedder?.id) throw new CliFailure(`"${file}" was exported without vectors, so the CLI cannot import it: import it from code, with createMemory and your embedder`);
  return header.embedder;
}

function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null; // not JSON: not an export
  }
}

/** --out must name a file in a folder that exists: checked before the store is read. */
function checkOutFile(out: string): void {
  if (isFolder(out)) throw new CliFailure(`--out "${out}" is a folder: give a file path, such as ${join(out, 'memory.jsonl')}`);
  const parent = dirname(out);
  if (!isFolder(parent)) throw new CliFailure(`no folder "${parent}" to write --out "${out}" in: create it first`);
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function printRepair(name: string, dir: string, report: RepairReport): void {
  if (!report.repaired) {
    console.log(`store "${name}" in ${dir}: nothing to repair, every record verifies${report.tornBytes ? ` (the next open cuts a torn tail of ${report.tornBytes} bytes, what a crash mid-write leaves)` : ''}`);
    return;
  }
  const rows = Object.entries(report.kept.imageRows);
  const total = rows.reduce((n, [, count]) => n + count, 0);
  console.log(`repaired store "${name}" in ${dir}`);
  console.log(`kept: ${total} image rows${rows.length ? ` (${rows.map(([table, count]) => `${table} ${count}`).join(', ')})` : ''} and ${report.kept.journalRecords} journal records`);
  for (const range of report.dropped) console.log(`dropped: ${range.file} bytes ${range.offset}-${range.end}: ${range.reason}`);
  const lost = Object.entries(report.lostRows);
  if (lost.length) console.log(`lost: image rows in the dropped bytes (${lost.map(([table, count]) => `${table} ${count}`).join(', ')})`);
  console.log('left out: the index snapshot (a cache; the next open rebuilds the index from the records)');
  for (const path of report.keptAside) console.log(`damaged file kept: ${path}`);
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

/** One line for a user's mistake (exit 2) or a failure (exit 1); the stack only with --debug. */
function reportError(error: unknown, debug: boolean): number {
  const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ');
  const code = error instanceof UsageError ? 2 : 1;
  if (error instanceof UsageError || error instanceof CliFailure) console.error(`engram: ${oneLine(error.message)}`);
  else if (error instanceof EngramError) console.error(`engram: ${error.name}: ${oneLine(error.message)}`);
  else console.error(`engram: unexpected error: ${oneLine((error as Error)?.message ?? String(error))} (run again with --debug for its stack trace)`);
  if (debug) console.error((error as Error)?.stack ?? String(error));
  return code;
}

const argv = process.argv.slice(2);
main(argv).catch((error: unknown) => {
  process.exitCode = reportError(error, argv.includes('--debug'));
});

