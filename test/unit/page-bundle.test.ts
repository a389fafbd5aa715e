import { build, type Metafile } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The page side of engram only validates calls and forwards them to the
 * worker: everything else (Dexie, the search index, the time parser, the
 * stores) must stay in chunks the worker or the in-process connector loads
 * on demand, or every app's first paint pays for it. An app's bundler
 * splits the package along the same static/dynamic import edges esbuild
 * sees here, so the static import graph of the browser entry is the page's
 * JavaScript.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

async function staticGraphOf(entry: string): Promise<Map<string, string | null>> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    outdir: 'out',
    metafile: true,
    logLevel: 'silent',
    external: ['@huggingface/transformers', 'onnxruntime-web'],
  });
  const inputs: Metafile['inputs'] = result.metafile.inputs;
  const parentOf = new Map<string, string | null>();
  const queue: [string, string | null][] = [[entry, null]];
  while (queue.length > 0) {
    const [file, parent] = queue.shift()!;
    if (parentOf.has(file)) continue;
    parentOf.set(file, parent);
    for (const edge of inputs[file]?.imports ?? []) if (edge.kind === 'import-statement' && !edge.external) queue.push([edge.path, file]);
  }
  return parentOf;
}

/** `src/index.ts -> src/facade/memory.ts -> ...`: how a module got into the page. */
function chainTo(graph: Map<string, string | null>, file: string): string {
  const chain: string[] = [];
  for (let at: string | null | undefined = file; at; at = graph.get(at)) chain.unshift(at);
  return chain.join(' -> ');
}

const packageOf = (file: string) => {
  const inside = file.split('node_modules/')[1]!;
  return inside.startsWith('@') ? inside.split('/').slice(0, 2).join('/') : inside.split('/')[0]!;
};

describe('the page bundle', () => {
  it('loads only zod and Comlink statically, and none of the engine', { timeout: 60_000 }, async () => {
    const graph = await staticGraphOf('src/index.ts');
    const files = [...graph.keys()];
    const packages = [...new Set(files.filter((f) => f.includes('node_modules/')).map(packageOf))].sort();
    expect(packages).toEqual(['comlink', 'zod']);
    const engineSide = files.filter((f) => /^src\/(engine|store|search|lifecycle|memories|retention|portability|replication|durable)[./]|^src\/recall\/recall\.ts$/.test(f));
    expect(engineSide.map((f) => chainTo(graph, f))).toEqual([]);
    // The facade itself is on the page: the check above is not vacuous.
    expect(files).toContain('src/facade/memory.ts');
  });
});
