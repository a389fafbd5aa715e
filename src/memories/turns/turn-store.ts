import Dexie from 'dexie';
import { vectorsFor } from '../../embed/provided-embeddings.js';
import type { EngineContext } from '../../engine-context.js';
import { ValidationError } from '../../errors.js';
import type { Turn, TurnInput, TurnListQuery } from '../../schema/turn.js';
import type { WithUser } from '../../schema/default-user.js';
import type { CommitScope } from '../../store/commit.js';
import { listRecords } from '../../store/list-records.js';
import { readRecord } from '../../store/read-record.js';
import { TURNS } from '../registry.js';
import { buildTurn } from './build-turn.js';
import { selectTurnEvictions, type TurnPolicy } from './turn-policy.js';

/**
 * Conversation turns, engine side: add (one or many, one commit), read,
 * list and delete. Every write goes through the commit path, and every turn
 * write applies retention (see turn-policy.ts) in the same transaction.
 */
export class TurnStore {
  constructor(
    private readonly ctx: EngineContext,
    readonly policy: TurnPolicy,
  ) {}

  /** `call` names the public method in a ValidationError about an embedding. */
  async add(inputs: WithUser<TurnInput>[], call: 'turns.add' | 'turns.addMany'): Promise<Turn[]> {
    const { ctx } = this;
    const records = inputs.map((input) => buildTurn(input, ctx.now()));
    if (new Set(records.map((r) => r.id)).size !== records.length) {
      throw new ValidationError('Two turns in one call share an id.', [{ path: 'id', message: 'must be unique within the call' }]);
    }
    const items = records.map((record, i) => ({ text: TURNS.indexedText(record), embedding: inputs[i]!.embedding }));
    const vectors = await vectorsFor(ctx, items, { call, path: (i) => (call === 'turns.add' ? 'embedding' : `${i}.embedding`) });
    await ctx.commit('add turns', [TURNS], async (scope) => {
      const chosen = inputs.flatMap((input) => (input.id === undefined ? [] : [input.id]));
      const stored = new Map((await ctx.db.turns.bulkGet(chosen)).flatMap((t) => (t ? [[t.id, t] as const] : [])));
      for (const record of records) {
        const old = stored.get(record.id);
        if (old && old.userId !== record.userId) {
          throw new ValidationError(`Turn "${record.id}" belongs to another user.`, [{ path: 'id', message: 'already used by another user' }]);
        }
      }
      // A turn written again under its id keeps its place in the conversation.
      for (const record of records) {
        const old = stored.get(record.id);
        if (old) record.seq = old.seq;
      }
      const drawn = records.flatMap((record, i) => (inputs[i]!.id === undefined ? [record.id] : []));
      await this.putInTransaction(scope, records, vectors, [...stored.keys()], drawn);
    });
    return records;
  }

  /**
   * Writes turns and their vectors inside the caller's open commit (observe's
   * turn, `add`), which declares TURNS, then applies retention to their users there too.
   * `drawnIds`: the records' ids that buildTurn drew at random (no id was given), which the id-space check skips.
   */
  async putInTransaction(scope: CommitScope, records: readonly Turn[], vectors: readonly Float32Array[], mayExist: readonly string[] = [], drawnIds: readonly string[] = []): Promise<void> {
    const { db } = this.ctx;
    // New turns go after the user's last one, in the order given (one writer at a time: see store/one-writer.ts).
    const existing = new Set(mayExist);
    const next = new Map<string, number>();
    for (const record of records) {
      if (existing.has(record.id)) continue;
      if (!next.has(record.userId)) {
        const last = await db.turns.where('[userId+seq]').between([record.userId, Dexie.minKey], [record.userId, Dexie.maxKey]).last();
        next.set(record.userId, last ? last.seq + 1 : 0);
      }
      record.seq = next.get(record.userId)!;
      next.set(record.userId, record.seq + 1);
    }
    await scope.put(TURNS, records, vectors, { mayExist, drawnIds });
    for (const userId of new Set(records.map((r) => r.userId))) {
      await scope.remove(TURNS, await selectTurnEvictions(db, userId, this.policy, this.ctx.now()));
    }
  }

  get(id: string): Promise<Turn> {
    return readRecord(this.ctx.db, TURNS, id);
  }

  /** One user's turns, by the time they were said (newest first unless `order: 'asc'`). */
  list(query: WithUser<TurnListQuery>): Promise<Turn[]> {
    const predicates: ((t: Turn) => boolean)[] = [];
    if (query.sessionId !== undefined) predicates.push((t) => t.sessionId === query.sessionId);
    if (query.speaker !== undefined) predicates.push((t) => t.speaker === query.speaker);
    return listRecords(this.ctx.db, TURNS, query, predicates);
  }

  async delete(id: string): Promise<void> {
    const { ctx } = this;
    await ctx.commit('delete a turn', [TURNS], async (scope) => {
      await scope.get(TURNS, id);
      await scope.remove(TURNS, [id]);
    });
  }
}
