import { closeSync, copyFileSync, existsSync, fdatasyncSync, linkSync, lstatSync, openSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { syncDirectory } from './store-image.js';

/**
 * Keeps a damaged file of a store beside it, as `<file>.damaged` (or
 * `.damaged-2`, ... when that is taken), before the store replaces it.
 * `move: true` renames it there; otherwise the original stays in place and
 * the copy is a hard link to the same bytes (a copy where the file system
 * has no links), so a crash before the original is replaced leaves both. A
 * folder in a file's place is always moved. Returns the path it is kept at.
 */
export function keepBeside(path: string, options: { move?: boolean } = {}): string {
  let aside = `${path}.damaged`;
  for (let n = 2; existsSync(aside); n++) aside = `${path}.damaged-${n}`;
  if (options.move || lstatSync(path).isDirectory()) renameSync(path, aside);
  else {
    try {
      linkSync(path, aside);
    } catch {
      copyFileSync(path, aside);
      const fd = openSync(aside, 'r+');
      try {
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }
  syncDirectory(dirname(path));
  return aside;
}
