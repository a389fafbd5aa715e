/**
 * What one function's calls spent, from a CPU profile (`.cpuprofile`, as
 * bench/browser/worker-open-profile.ts `--out` or `node --cpu-prof` write):
 * the samples with `<function>` on their stack, by function inclusive (each
 * counted once per stack) and by leaf.
 *
 *   npx tsx bench/cpuprofile-share.ts <file.cpuprofile> <function>
 */
import { readFileSync } from 'node:fs';

const [file, root] = process.argv.slice(2);
if (!file || !root) throw new Error('usage: npx tsx bench/cpuprofile-share.ts <file.cpuprofile> <function>');
const profile = JSON.parse(readFileSync(file, 'utf8')) as {
  nodes: { id: number; callFrame: { functionName: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map<string, number>();
const self = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  const chain: string[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) chain.unshift(byId.get(at)!.callFrame.functionName || '(anon)');
  const from = chain.indexOf(root);
  if (from < 0) return;
  total += ms;
  for (const name of new Set(chain.slice(from + 1))) inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
  const leaf = chain[chain.length - 1]!;
  self.set(leaf, (self.get(leaf) ?? 0) + ms);
});
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(' | ');
console.log(`${root} total ${total.toFixed(0)} ms`);
console.log(`inclusive: ${top(inclusive, 25)}`);
console.log(`self: ${top(self, 20)}`);
