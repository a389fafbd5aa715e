import { embedTexts } from '../../embed/embed-texts.js';
import type { EngineContext } from '../../engine-context.js';
import { ValidationError } from '../../errors.js';
import { orderSequence, type SequenceOptions } from '../../recall/sequence.js';
import type { WithUser } from '../../schema/default-user.js';
import { episodeIndexText, type Episode, type EpisodePatch } from '../../schema/episode.js';
import type { EpisodeListQuery } from '../../schema/query.js';
import { listRecords } from '../../store/list-records.js';
import { readRecord } from '../../store/read-record.js';
import { toStorageError } from '../../store/transaction-errors.js';
import { EPISODES } from '../registry.js';
import { chainOf } from './chaining.js';
import { deleteEpisodes } from './delete-episodes.js';

const STATE_ORDER: readonly Episode['state'][] = ['active', 'summarized', 'archived'];
/** The structured list fields `list` filters on (each a multi-entry index). */
const STRUCTURED_LISTS = ['participants', 'toolsUsed', 'entities'] as const;
/** Tagged episodes a replay reads at most (it returns `limit` of them, oldest first). */
const MAX_TAGGED = 1000;

/**
 * Episodes, engine side, beyond writing a new one (write-episode.ts) and
 * closing one (close-episode.ts): read, list, update, delete, and the arcs
 * (chain, children) and topic replay built on them.
 */
export class EpisodeStore {
  constructor(private readonly ctx: EngineContext) {}

  get(id: string): Promise<Episode> {
    return readRecord(this.ctx.db, EPISODES, id);
  }

  /** One user's episodes by creation time, filtered on their structured fields (see store/list-records.ts). */
  list(query: WithUser<EpisodeListQuery>): Promise<Episode[]> {
    const predicates: ((e: Episode) => boolean)[] = [];
    if (query.sessionId !== undefined) predicates.push((e) => e.sessionId === query.sessionId);
    if (query.parentId !== undefined) predicates.push((e) => e.parentId === query.parentId);
    for (const key of STRUCTURED_LISTS) {
      const wanted = query[key];
      if (wanted?.length) predicates.push((e) => e[key].some((v) => wanted.includes(v)));
    }
    if (query.outcomeStatus) predicates.push((e) => query.outcomeStatus!.includes(e.outcomeStatus));
    if (query.state) predicates.push((e) => query.state!.includes(e.state));
    // The most selective multi-entry index among the structured filters, if any, is where the listing starts.
    const structured = (['entities', 'participants', 'toolsUsed'] as const).find((key) => query[key]?.length);
    return listRecords(this.ctx.db, EPISODES, query, predicates, structured && { index: structured, values: query[structured]! });
  }

  async update(id: string, patch: EpisodePatch): Promise<Episode> {
    const { ctx } = this;
    const { db } = ctx;
    const current = await this.get(id);
    const merged = { ...current, ...patch } as Episode;
    const textChanged = patch.text !== undefined || patch.goal !== undefined || patch.context !== undefined;
    merged.text = patch.text ?? (textChanged ? episodeIndexText({ goal: merged.goal, context: merged.context }) : current.text);
    if (!merged.text.trim()) {
      throw new ValidationError('An episode needs a non-empty text (or goal).', [{ path: 'text', message: 'would be empty' }]);
    }
    if (merged.parentId === id) throw new ValidationError('An episode cannot be its own parent.', [{ path: 'parentId', message: 'equals the episode id' }]);
    if (STATE_ORDER.indexOf(merged.state) < STATE_ORDER.indexOf(current.state)) {
      throw new ValidationError(`An episode's state only moves forward (active → summarized → archived); it is "${current.state}".`, [
        { path: 'state', message: `cannot go back to "${merged.state}"` },
      ]);
    }
    merged.updatedAt = ctx.now();
    const vector = merged.text !== current.text ? (await embedTexts(ctx, [merged.text]))[0] : undefined;
    await ctx.commit('update an episode', [EPISODES], async (scope) => {
      await scope.get(EPISODES, id);
      if (merged.parentId) {
        const parent = await scope.get(EPISODES, merged.parentId);
        if ((await chainOf((pid) => db.episodes.get(pid), parent)).some((e) => e.id === id)) {
          throw new ValidationError('That parent would make the chain a cycle.', [{ path: 'parentId', message: 'is a descendant of this episode' }]);
        }
      }
      await scope.put(EPISODES, [merged], [vector]);
    });
    return merged;
  }

  async delete(id: string): Promise<void> {
    const { db } = this.ctx;
    await this.ctx.commit('delete an episode', [EPISODES], async (scope) => {
      await scope.get(EPISODES, id);
      await deleteEpisodes(db, scope, [id]);
    });
  }

  /** The arc this episode belongs to: ancestors root-first, the episode, then its descendants by start time. */
  async chain(id: string): Promise<Episode[]> {
    const { db } = this.ctx;
    const start = await this.get(id);
    const ancestors = await chainOf((pid) => db.episodes.get(pid), start);
    const seen = new Set(ancestors.map((e) => e.id));
    const descendants: Episode[] = [];
    let frontier = [start.id];
    while (frontier.length) {
      const next = (await db.episodes.where('parentId').anyOf(frontier).toArray()).filter((e) => !seen.has(e.id));
      next.forEach((e) => seen.add(e.id));
      descendants.push(...next.sort((a, b) => a.startedAt - b.startedAt));
      frontier = next.map((e) => e.id);
    }
    return [...ancestors, ...descendants];
  }

  async children(id: string): Promise<Episode[]> {
    await this.get(id);
    const kids = await this.ctx.db.episodes.where('parentId').equals(id).toArray();
    return kids.sort((a, b) => a.startedAt - b.startedAt);
  }

  /**
   * Chronological replay of a topic (see recall/sequence.ts). An episode
   * tagged with the topic itself ("ci" for the topic "ci") belongs to it
   * whatever its similarity: a short topic embeds poorly and may appear in no
   * episode's text, but its tag says what the episode is about.
   */
  async sequence(topic: string, options: WithUser<SequenceOptions>): Promise<Episode[]> {
    try {
      return await this.replay(topic, options);
    } catch (error) {
      // A read cut off by close (or a failing database) is a typed error, not the IndexedDB library's own.
      throw toStorageError(error, 'replay a topic');
    }
  }

  private async replay(topic: string, options: WithUser<SequenceOptions>): Promise<Episode[]> {
    const { ctx } = this;
    const limit = options.limit ?? 10;
    const [vector] = await embedTexts(ctx, [topic]);
    const { userId } = options;
    const hits = ctx.index.search(userId, { vector: vector!, text: topic }, {
      k: 2 * limit,
      types: ['episode'],
      includeArchived: options.includeArchived,
      ranking: ctx.ranking,
      now: ctx.now(),
    });
    // Tagged with the topic, in any letter case (the tags index is multi-entry); archived ones as recall treats them.
    const taggedEpisodes = (await ctx.db.episodes.where('tags').equalsIgnoreCase(topic.trim()).limit(MAX_TAGGED).toArray()).filter((e) => {
      const doc = ctx.index.doc(e.id);
      return e.userId === userId && doc !== undefined && (options.includeArchived === true || !doc.archived);
    });
    const tagged = new Set(taggedEpisodes.map((e) => e.id));
    const episodes = await ctx.db.episodes.bulkGet(hits.map((h) => h.id));
    const candidates = [
      ...taggedEpisodes.map((episode) => ({ episode, similarity: 1, tagged: true })),
      ...hits.flatMap((hit, i) => {
        const episode = episodes[i];
        return episode && !tagged.has(hit.id) ? [{ episode, similarity: hit.parts.similarity }] : [];
      }),
    ];
    return orderSequence(candidates, limit, options.minRelevance ?? 0.5);
  }
}
