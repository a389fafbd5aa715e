import type { EngineContext } from '../engine-context.js';
import type { DocFilter } from '../search/filters.js';
import type { Ranking } from '../search/ranking.js';
import type { TimeWindows } from '../search/time-windows.js';
import type { RecallHit } from './recall.js';
import { readHits } from './read-hits.js';

/**
 * A question that asks for nothing but a time ("What did we discuss on May
 * 8th?", "What did we talk about in our first session?"): the memories in
 * its windows in the order they were said (their own time, then a turn's
 * place in the conversation, `seq`, then id; those in a window only by a
 * time their text gives, after the ones said in it), as `episodes.sequence`
 * replays a topic, not the ten that best match words the question does not
 * have. Each keeps its own score and parts. With windows that rank
 * (`time: 'boost'`), places the window leaves are the best of the rest by
 * score; with `time: 'filter'`, there are no others.
 */
export async function timeSlice(
  ctx: EngineContext,
  userId: string,
  text: { vector: Float32Array; text: string },
  filter: DocFilter,
  ranking: Ranking,
  windows: TimeWindows,
  k: number,
  now: number,
): Promise<RecallHit[]> {
  const members = ctx.index
    .windowMembers(userId, text, { ...filter, ranking, now, windows })
    .sort((a, b) => mentioned(a) - mentioned(b) || a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // The first k, and every one that ties the k-th's time: a turn's `seq` orders those (it is in its record).
  let end = Math.min(k, members.length);
  while (end < members.length && members[end]!.createdAt === members[end - 1]!.createdAt && mentioned(members[end]!) === mentioned(members[end - 1]!)) end++;
  const head = members.slice(0, end);
  const records = await readHits(ctx, head);
  const slice: RecallHit[] = head
    .flatMap((hit, i) => (records[i] ? [{ memory: records[i]!, score: hit.score, parts: hit.parts }] : []))
    .sort((a, b) => mentioned(a) - mentioned(b) || a.memory.createdAt - b.memory.createdAt || seqOf(a) - seqOf(b) || (a.memory.id < b.memory.id ? -1 : a.memory.id > b.memory.id ? 1 : 0))
    .slice(0, k);
  if (slice.length === k || filter.windows || slice.length < head.length) return slice;
  // Fewer than k in the windows: the rest by score, outside them (the index's exact top k of the others).
  const inside = new Set(members.map((m) => m.id));
  const rest = ctx.index.search(userId, text, { ...filter, k: k - slice.length + inside.size, ranking, now }).filter((hit) => !inside.has(hit.id)).slice(0, k - slice.length);
  const restRecords = await readHits(ctx, rest);
  return [...slice, ...rest.flatMap((hit, i) => (restRecords[i] ? [{ memory: restRecords[i]!, score: hit.score, parts: hit.parts }] : []))];
}

/** 1 for a memory in the window only by a time its text gives ("yesterday" said the day after): those follow the ones said then. */
function mentioned(hit: { parts: RecallHit['parts'] }): number {
  return hit.parts.timeWindow?.by === 'mention' ? 1 : 0;
}

function seqOf(hit: RecallHit): number {
  return hit.memory.type === 'turn' ? hit.memory.seq : 0;
}
