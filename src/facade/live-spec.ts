import * as z from 'zod/mini';
import { episodeListQuery } from '../operations/episodes.js';
import { factListQuery } from '../operations/facts.js';
import { recallOptions } from '../operations/recall.js';
import { taskListQuery } from '../operations/tasks.js';
import { turnListQuery } from '../operations/turns.js';
import { textSchema } from '../schema/common.js';
import type { ChangeEvent } from '../telemetry/events.js';
import { LiveQuery } from './live-query.js';
import type { Memory } from './memory.js';
import { lazySchema } from '../schema/lazy-schema.js';

/** What `memory.live()` takes: one query, with the same options (and defaults) as the method it re-runs. */
export const liveQuerySchema = lazySchema(() => z.union([
  // `prefault`: no options are the empty options, so the default user is filled in as for `recall`.
  z.strictObject({ recall: textSchema, options: z.prefault(recallOptions, {}) }),
  z.strictObject({ facts: factListQuery }),
  z.strictObject({ episodes: episodeListQuery }),
  z.strictObject({ tasks: taskListQuery }),
  z.strictObject({ turns: turnListQuery }),
  /** Sync's status (`memory.sync.status`), re-read on every `sync` event. */
  z.strictObject({ sync: z.strictObject({}) }),
]));

/** The user id the sync-status query listens for: no real user can have it (ids have no control characters). */
const SYNC_STATUS = '\u0000sync';

/** What `memory.live()` takes (the schema's input: the user and other defaults may be left out). */
export type LiveQuerySpec = z.input<typeof liveQuerySchema>;

/**
 * The live query a validated spec asks for: its method re-run on every
 * change to its user (and, for a list, its own tables: a turn does not
 * re-run a list of facts). Recall runs with `touch: false`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- `memory.live()`'s overloads give each kind its type
export function liveQueryOf(memory: Memory, spec: z.output<typeof liveQuerySchema>): LiveQuery<any> {
  const onChange = (listener: (event: ChangeEvent) => void) => memory.on('change', listener);
  if ('recall' in spec) {
    const options = { ...spec.options, touch: false };
    return new LiveQuery(() => memory.recall(spec.recall, options), options.userId, onChange);
  }
  if ('facts' in spec) return new LiveQuery(() => memory.facts.list(spec.facts), spec.facts.userId, onChange, ['facts']);
  if ('episodes' in spec) return new LiveQuery(() => memory.episodes.list(spec.episodes), spec.episodes.userId, onChange, ['episodes']);
  if ('sync' in spec) {
    // Not a user's data: every `sync` event is a change to it (as a change event of no user that this query alone listens for).
    const onSync = (listener: (event: ChangeEvent) => void) => memory.on('sync', () => listener({ type: 'change', written: [], deleted: [], userIds: [SYNC_STATUS], tables: [] }));
    return new LiveQuery(async () => memory.sync.status, SYNC_STATUS, onSync);
  }
  if ('turns' in spec) return new LiveQuery(() => memory.turns.list(spec.turns), spec.turns.userId, onChange, ['turns']);
  return new LiveQuery(() => memory.tasks.list(spec.tasks), spec.tasks.userId, onChange, ['tasks', 'steps']);
}
