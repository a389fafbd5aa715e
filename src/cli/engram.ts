#!/usr/bin/env node
/**
 * `npx engram`: inspect a durable Node store (createMemory({ directory })).
 *
 *   engram stats  --dir ./memory [--name agent]
 *   engram export --dir ./memory [--name agent] [--out file.jsonl]
 *   engram import <file.jsonl> --dir ./memory [--name agent]
 *   engram recall "query" --dir ./memory [--name agent] [--user u1] [--k 10] [--model id --model-path folder]
 *
 * The store must not be open in another process (it is locked). stats,
 * export and import never embed (exports carry their vectors); recall embeds
 * the query with the model that wrote the store: the store records its id,
 * and --model / --model-path say where to load it from offline.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createMemory, loadTransformersEmbedder, type Embedder, type Memory } from '../index.node.js';
import { DEFAULT_EMBEDDING_MODEL } from '../embed/default-model.js';
import { EngramError } from '../errors.js';
import { EngramDatabase } from '../store/database.js';
import { openDurableStore } from '../store/durable/durable-store.js';
import { EMBEDDER_META_KEY, type EmbedderStamp } from '../schema/records.js';
import { HUB_USAGE, runHubCommand } from './hub.js';

const USAGE = `usage:
  engram stats  --dir <folder> [--name <store>]
  engram export --dir <folder> [--name <store>] [--out <file.jsonl>]
  engram import <file.jsonl> --dir <folder> [--name <store>]
  engram recall "<query>" --dir <folder> [--name <store>] [--user <id>] [--k <n>] [--model <id>] [--model-path <folder>]
  ${HUB_USAGE}`;

class UsageError extends Error {}

const { values: flags, positionals } = parseArgs({
  // `engram hub` reads its own flags (src/cli/hub.ts).
  args: process.argv[2] === 'hub' ? ['hub'] : process.argv.slice(2),
  allowPositionals: true,
  options: {
    dir: { type: 'string' },
    name: { type: 'string' },
    out: { type: 'string' },
    user: { type: 'string' },
    k: { type: 'string' },
    model: { type: 'string' },
    'model-path': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

/** The store's name: --name, or the only store in the folder. */
function storeName(dir: string): string {
  if (flags.name) return flags.name;
  let names: string[] = [];
  try {
    names = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => decodeURIComponent(e.name));
  } catch {
    throw new UsageError(`no engram store folder at "${dir}"`);
  }
  if (names.length === 1) return names[0]!;
  throw new UsageError(names.length === 0 ? `no engram store in "${dir}"` : `several stores in "${dir}" (${names.join(', ')}): pass --name`);
}

/** Reads the store directly: counts per user and type, and the embedder stamp. */
async function readStore(dir: string, name: string) {
  const store = await openDurableStore(dir, name);
  const db = new EngramDatabase(name, { indexedDB: store.indexedDB, IDBKeyRange: store.IDBKeyRange });
  try {
    await db.open();
    const counts = new Map<string, Record<string, number>>();
    const count = (userId: string, type: string) => {
      const row = counts.get(userId) ?? {};
      row[type] = (row[type] ?? 0) + 1;
      counts.set(userId, row);
    };
    await db.facts.each((f) => count(f.userId, f.supersededBy ? 'facts (retired)' : 'facts'));
    await db.episodes.each((e) => count(e.userId, 'episodes'));
    await db.turns.each((t) => count(t.userId, 'turns'));
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

async function withMemory<T>(dir: string, name: string, embedder: Embedder, run: (memory: Memory) => Promise<T>): Promise<T> {
  // No index snapshot save for a short inspection, no background work: open, run, close.
  const memory = await createMemory({ name, directory: dir, embedder });
  try {
    return await run(memory);
  } finally {
    await memory.close();
  }
}

async function main(): Promise<void> {
  const [command, argument] = positionals;
  if (command === 'hub') return runHubCommand(process.argv.slice(3));
  if (flags.help || !command) {
    console.log(USAGE);
    return;
  }
  const dir = flags.dir;
  if (!dir) throw new UsageError('--dir is required (the folder given to createMemory({ directory }))');
  const name = storeName(dir);
  const { counts, steps, jobs, stamp, opened } = await readStore(dir, name);

  if (command === 'stats') {
    console.log(`store "${name}" in ${dir}: embedder ${stamp ? `${stamp.id} (${stamp.dimension}-d)` : 'none yet'}; ${opened.replayed} journal records replayed at open${opened.tornBytes ? `, ${opened.tornBytes} bytes of torn tail dropped` : ''}`);
    const types = ['facts', 'facts (retired)', 'episodes', 'turns', 'tasks', 'patterns', 'profiles'];
    const rows = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([user, row]) => [user, ...types.map((t) => String(row[t] ?? 0))]);
    printTable(['user', ...types], rows);
    console.log(`task steps: ${steps}; queued jobs: ${jobs}`);
    return;
  }
  if (!stamp && command !== 'import') throw new UsageError(`store "${name}" is empty`);
  if (command === 'export') {
    const text = await withMemory(dir, name, declaredOnly(stamp!), async (memory) => (await memory.export()).text());
    if (flags.out) {
      writeFileSync(flags.out, text);
      console.error(`exported ${text.trim().split('\n').length} lines to ${flags.out}`);
    } else process.stdout.write(text);
    return;
  }
  if (command === 'import') {
    if (!argument) throw new UsageError('import needs a file: engram import <file.jsonl> --dir <folder>');
    const text = readFileSync(argument, 'utf8');
    const fileStamp = stamp ?? embedderOfExport(text);
    const summary = await withMemory(dir, name, declaredOnly(fileStamp), (memory) => memory.import(text));
    console.log(`imported ${JSON.stringify(summary)}`);
    return;
  }
  if (command === 'recall') {
    if (!argument) throw new UsageError('recall needs a query: engram recall "what database?" --dir <folder>');
    const embedder = await storeModel(stamp!);
    const hits = await withMemory(dir, name, embedder, (memory) =>
      memory.recall(argument, { userId: flags.user, k: flags.k ? Number(flags.k) : 10, touch: false }),
    );
    if (hits.length === 0) console.log('no hits');
    for (const [i, hit] of hits.entries()) {
      const parts = Object.entries(hit.parts)
        .map(([part, value]) => `${part}=${typeof value === 'number' ? value.toFixed(3) : String(value)}`)
        .join(' ');
      console.log(`${i + 1}. [${hit.memory.type}] ${hit.score.toFixed(3)} ${hit.memory.id}  ${hit.memory.text}\n   ${parts}`);
    }
    return;
  }
  throw new UsageError(`unknown command "${command}"`);
}

/** An empty store takes the export's embedder (its header names it). */
function embedderOfExport(text: string): EmbedderStamp {
  const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { embedder?: EmbedderStamp };
  if (!header.embedder?.id) throw new UsageError('the file is not an engram export (no embedder in its first line)');
  return header.embedder;
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) console.error(`engram: ${error.message}\n${USAGE}`);
  else if (error instanceof EngramError) console.error(`engram: ${error.name} (${error.code}): ${error.message}`);
  else console.error(error);
  process.exitCode = 1;
});
