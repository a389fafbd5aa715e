/**
 * Where a worker's CPU time went, from a V8 CPU profile (the DevTools
 * protocol's `Profiler.stop`): per function, its self time (samples in it)
 * and its total time (samples in it or in what it called), largest self time
 * first. A function is named by its name and its place in the script; in an
 * unminified esbuild bundle the module it came from is the nearest
 * `// src/...` comment above it, which `moduleOf` reads.
 */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionCost {
  name: string;
  where: string;
  selfMs: number;
  totalMs: number;
}

/** V8's pseudo-frames: not code of the script. */
const PSEUDO = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

export function functionCosts(profile: CpuProfile, moduleOf: (url: string, line: number) => string | undefined): { busyMs: number; gcMs: number; functions: FunctionCost[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const name = functionName || '(anonymous)';
    if (PSEUDO.has(name)) return name;
    const file = url.split('/').pop() ?? url;
    return `${name}\u0000${moduleOf(url, lineNumber) ?? file}:${lineNumber + 1}`;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busyMs = 0;
  let gcMs = 0;
  profile.samples.forEach((id, i) => {
    // A sample stands for the time until the next one.
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const key = keyOf(id);
    if (key === '(idle)' || key === '(program)' || key === '(root)') return;
    busyMs += ms;
    if (key === '(garbage collector)') gcMs += ms;
    self.set(key, (self.get(key) ?? 0) + ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = keyOf(at);
      if (PSEUDO.has(k) || seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + ms);
    }
  });
  const functions = [...self]
    .filter(([key]) => !PSEUDO.has(key))
    .map(([key, selfMs]) => {
      const [name, where] = key.split('\u0000') as [string, string];
      return { name, where, selfMs, totalMs: total.get(key) ?? selfMs };
    })
    .sort((a, b) => b.selfMs - a.selfMs);
  return { busyMs, gcMs, functions };
}

/** For an unminified esbuild bundle's text: the module each line came from (esbuild heads each module with `// path`). */
export function bundleModules(bundle: string): (line: number) => string | undefined {
  const heads: { line: number; path: string }[] = [];
  bundle.split('\n').forEach((text, line) => {
    const head = /^\/\/ ((?:\.\.\/)*(?:src|workers|main\/node_modules|node_modules)\/\S+)$/.exec(text);
    if (head) heads.push({ line, path: head[1]!.replace(/^(\.\.\/)*main\//, '') });
  });
  return (line) => {
    let found: string | undefined;
    for (const head of heads) {
      if (head.line > line) break;
      found = head.path;
    }
    return found;
  };
}
