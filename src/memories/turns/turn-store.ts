import Dexie from 'dexie';
import { vectorsFor } from '../../embed/provided-embeddings.js';
import type { EngineContext } from '../../engine-context.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { Turn, TurnInput, TurnListQuery } from '../../schema/turn.js';
import { listTurns } from '../../store/list-records.js';
import { toStorageError } from '../../store/transaction-errors.js';
import { deleteVectors, putVectors } from '../../store/vector-blocks.js';
import { indexedText } from '../../search/indexed-text.js';
import { buildTurn } from './build-turn.js';
import { selectTurnEvictions, type TurnPolicy } from './turn-policy.js';

/** The tables a turn write touches (for the caller's commit). */
export const TURN_TABLES = ['turns', 'vectorBlocks'] as const;

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
  async add(inputs: TurnInput[], call: 'turns.add' | 'turns.addMany'): Promise<Turn[]> {
    const { ctx } = this;
    const records = inputs.map((input) => buildTurn(input, ctx.now()));
    if (new Set(records.map((r) => r.id)).size !== records.length) {
      throw new ValidationError('Two turns in one call share an id.', [{ path: 'id', message: 'must be unique within the call' }]);
    }
    const items = records.map((record, i) => ({ text: indexedText(record), embedding: inputs[i]!.embedding }));
    const vectors = await vectorsFor(ctx, items, { call, path: (i) => (call === 'turns.add' ? 'embedding' : `${i}.embedding`) });
    await ctx.commit('add turns', TURN_TABLES, async () => {
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
      await this.putInTransaction(records, vectors, [...stored.keys()]);
    });
    return records;
  }

  /**
   * Writes turns and their vectors inside the caller's open commit (observe's
   * turn, `add`), then applies retention to their users there too.
   */
  async putInTransaction(records: readonly Turn[], vectors: readonly Float32Array[], mayExist: readonly string[] = []): Promise<void> {
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
    await db.turns.bulkPut([...records]);
    await putVectors(
      db,
      records.map((r, i) => ({ id: r.id, userId: r.userId, kind: 'turn' as const, vector: vectors[i]! })),
      { mayExist },
    );
    for (const userId of new Set(records.map((r) => r.userId))) {
      const evicted = await selectTurnEvictions(db, userId, this.policy, this.ctx.now());
      if (evicted.length === 0) continue;
      await db.turns.bulkDelete(evicted);
      await deleteVectors(db, evicted);
    }
  }

  async get(id: string): Promise<Turn> {
    let turn: Turn | undefined;
    try {
      turn = await this.ctx.db.turns.get(id);
    } catch (error) {
      throw toStorageError(error, `read turn "${id}"`);
    }
    if (!turn) throw new NotFoundError('turn', id);
    return turn;
  }

  list(query: TurnListQuery): Promise<Turn[]> {
    return listTurns(this.ctx.db, query);
  }

  async delete(id: string): Promise<void> {
    const { ctx } = this;
    await ctx.commit('delete a turn', TURN_TABLES, async () => {
      if (!(await ctx.db.turns.get(id))) throw new NotFoundError('turn', id);
      await ctx.db.turns.delete(id);
      await deleteVectors(ctx.db, [id]);
    });
  }
}
