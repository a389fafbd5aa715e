/**
 * Counts the lines of src/ that spell the list of memory kinds: lines naming
 * two or more of facts/episodes/turns (as a string literal, a `db.` property
 * or an object key), outside the registry and the database schema. Prints
 * each line, then the totals. `npx tsx scripts/count-kind-lists.ts [root]`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = process.argv[2] ?? '.';
const SKIP = new Set(['src/memories/registry.ts', 'src/store/database.ts']);
const NAME = /['"](facts|episodes|turns|fact|episode|turn)['"]|db\.(facts|episodes|turns)\b|\b(facts|episodes|turns)\s*:/g;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

const hits: string[] = [];
for (const path of files(join(root, 'src'))) {
  const rel = relative(root, path);
  if (SKIP.has(rel)) continue;
  readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
    if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
    const kinds = new Set([...line.matchAll(NAME)].map((m) => (m[1] ?? m[2] ?? m[3])!.replace(/s$/, '')));
    if (kinds.size >= 2) hits.push(`${rel}:${i + 1}: ${line.trim().slice(0, 110)}`);
  });
}
for (const hit of hits) console.log(hit);
console.log(`${hits.length} lines in ${new Set(hits.map((hit) => hit.split(':')[0])).size} files`);
