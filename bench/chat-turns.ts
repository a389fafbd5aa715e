import { readFileSync } from 'node:fs';
import { LOCOMO_PATH } from './support.js';

/**
 * Consecutive turns of real chat for write benchmarks: the LoCoMo dev
 * conversations' turns (../shared/eval, research licence: benchmarks only,
 * never shipped), from a place the seed picks. Synthetic texts from a fixed
 * vocabulary (synthetic.ts) hold no time words, so a write never reaches the
 * relative-time reader (time/time-mentions.ts); about a fifth of these turns
 * do ("last week", "yesterday", "this weekend"), as chat does.
 */
export function chatTurns(count: number, seed: number): string[] {
  const all = (turns ??= readFileSync(LOCOMO_PATH, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .flatMap((line) => (JSON.parse(line) as { turns: { text: string }[] }).turns.map((turn) => turn.text)));
  if (count > all.length) throw new RangeError(`asked for ${count} turns; the conversations hold ${all.length}`);
  const start = (seed * 7919) % (all.length - count + 1);
  return all.slice(start, start + count);
}

let turns: string[] | undefined;
