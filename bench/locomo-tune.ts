/**
 * Ranking variants on the LoCoMo dev turn memory, side by side: hybrid R@5 and
 * R@10 per category and per conversation (for leave-one-conversation-out) for
 * each variant, given as JSON RankingOptions on the command line ('{}' is the
 * default ranking). Research data (CC BY-NC 4.0): read at run time, never shipped.
 *
 *   npm run bench:locomo:tune -- '{}' '{"denseWeight":0.55}' '{"weights":{"recency":0}}'
 *
 * TURN_EXPORT=<file> keeps the embedded turn store in that file and reads it
 * on the next run (about half a minute less per run). NOW=session asks a day
 * after the last session instead of at the wall clock, so recency varies
 * between the turns.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { RankingOptions } from '../src/index.js';
import { buildExport, evaluate, loadConversations } from './locomo.js';
import { printTable } from './support.js';

const conversations = loadConversations();
const cache = process.env.TURN_EXPORT;
let turnExport: string;
if (cache && existsSync(cache)) turnExport = readFileSync(cache, 'utf8');
else {
  turnExport = await buildExport(conversations, false, 'turns');
  if (cache) writeFileSync(cache, turnExport);
}
const variants = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['{}'];
// NOW=session: queried a day after each store's last session (an app asking soon after the conversation), else the wall clock.
const lastSession = Math.max(...conversations.flatMap((c) => c.turns.map((t) => Date.parse(`${t.session_iso_date_time}Z`))));
const now = process.env.NOW === 'session' ? lastSession + 86_400_000 : undefined;
const rows: (string | number)[][] = [];
for (const v of variants) {
  const r = await evaluate(JSON.parse(v) as RankingOptions, turnExport, conversations, now);
  for (const cat of [...[...r.byCategory.keys()].sort(), 'overall']) {
    const b = cat === 'overall' ? r.overall : r.byCategory.get(cat)!;
    rows.push([v, cat, b.n, b.sums[1]! / b.n, b.sums[2]! / b.n]);
  }
  // Per conversation too, for choosing a value by leave-one-conversation-out.
  for (const [id, b] of [...r.byConversation].sort()) rows.push([v, `conversation ${id}`, b.n, b.sums[1]! / b.n, b.sums[2]! / b.n]);
}
printTable(`LoCoMo dev, turn memory, hybrid, now ${now === undefined ? 'wall clock' : 'a day after the last session'} (load ${loadavg()[0]!.toFixed(2)})`, ['ranking', 'category', 'questions', 'R@5', 'R@10'], rows);
