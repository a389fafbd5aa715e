import * as z from 'zod/mini';
import type { Episode } from '../schema/episode.js';
import { timestampSchema } from '../schema/common.js';
import { parseInput } from '../schema/parse.js';
import { localDate, timeZoneSchema } from './format-context.js';
import { lazySchema } from '../schema/lazy-schema.js';

/** What a replay block reads from an episode; episodes built by hand are checked against it. */
const replayableSchema = lazySchema(() => z.array(
  z.looseObject({
    text: z.string(),
    goal: z.optional(z.nullable(z.string())),
    parentId: z.optional(z.nullable(z.string())),
    outcome: z.optional(z.nullable(z.string())),
    startedAt: timestampSchema.check(z.lte(8.64e15)),
    tags: z.array(z.string()),
    outcomeStatus: z.string(),
  }),
));
const replayOptionsSchema = lazySchema(() => z.strictObject({ timeZone: z.optional(timeZoneSchema) }));

/**
 * Renders episodes (typically from `episodes.sequence()`) as replay blocks:
 *
 *   [2026-11-20] Migrate billing to Kubernetes (continues 3f2a9c1e)
 *   Helm chart deployed to staging
 *   Tags: infra, billing | Outcome: ongoing
 *
 * Blocks are separated by a blank line; dates are in `timeZone` (default UTC).
 */
export function formatReplay(episodes: readonly Episode[], options: { timeZone?: string } = {}): string {
  parseInput(replayableSchema, episodes, 'formatReplay: episodes');
  const timeZone = parseInput(replayOptionsSchema, options, 'formatReplay').timeZone ?? 'UTC';
  return episodes
    .map((e) => {
      const title = (e.goal ?? e.text.split('\n')[0] ?? '').trim();
      const continues = e.parentId ? ` (continues ${shortId(e.parentId)})` : '';
      const lines = [`[${localDate(e.startedAt, timeZone)}] ${title}${continues}`];
      if (e.outcome?.trim()) lines.push(e.outcome.trim());
      lines.push(`Tags: ${e.tags.length ? e.tags.join(', ') : '-'} | Outcome: ${e.outcomeStatus}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

/** The first 8 characters of an id: enough to tell episodes of one arc apart in a prompt. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}
