import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_FILE, JOURNAL_FILE } from '../store/durable/store-files.js';
import { storeFolderName } from '../store/durable/store-name.js';
import { CliFailure, UsageError } from './cli-errors.js';

/**
 * Which store of `dir` a command works on: `--name`, or the only store there.
 * Looks without creating anything: `exists` is false for a name with no
 * store yet (or no folder yet), which only `import --create` goes on with.
 */
export function locateStore(dir: string, name: string | undefined, command: string, create: boolean): { name: string; exists: boolean } {
  let isFolder: boolean;
  try {
    isFolder = statSync(dir).isDirectory();
  } catch {
    // import --create makes the folder too, as createMemory({ directory }) does.
    if (create && name !== undefined) return { name, exists: false };
    throw new CliFailure(`no folder "${dir}": --dir takes the folder given to createMemory({ directory })`);
  }
  if (!isFolder) throw new CliFailure(`"${dir}" is a file, not a folder: --dir takes the folder given to createMemory({ directory })`);
  const stores = storesIn(dir);
  if (name !== undefined) {
    if (stores.includes(name)) return { name, exists: true };
    if (create) return { name, exists: false };
    const there = stores.length ? ` (the stores there: ${stores.join(', ')})` : '';
    throw new CliFailure(`no store "${name}" in "${dir}"${there}${command === 'import' ? ': add --create to create it' : ''}`);
  }
  if (stores.length === 1) return { name: stores[0]!, exists: true };
  if (stores.length === 0) throw new CliFailure(`no engram store in "${dir}"${command === 'import' ? ': to create one, add --name <store> --create' : ': --dir takes the folder given to createMemory({ directory })'}`);
  throw new UsageError(`"${dir}" holds several stores (${stores.join(', ')}): pass --name`);
}

/** The names of the stores in `dir`: its folders that hold an image or a journal. */
function storesIn(dir: string): string[] {
  const names: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    let name: string;
    try {
      name = decodeURIComponent(entry.name);
    } catch {
      continue; // not a name engram encoded
    }
    if (storeFolderName(name) !== entry.name) continue;
    const folder = join(dir, entry.name);
    if (existsSync(join(folder, IMAGE_FILE)) || existsSync(join(folder, JOURNAL_FILE))) names.push(name);
  }
  return names.sort();
}
