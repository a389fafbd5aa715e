import { embedTexts } from '../../embed/embed-texts.js';
import { vectorsFor } from '../../embed/provided-embeddings.js';
import type { EngineContext } from '../../engine-context.js';
import { ValidationError } from '../../errors.js';
import type { Fact, FactInput, FactPatch } from '../../schema/fact.js';
import type { FactListQuery } from '../../schema/query.js';
import type { WithUser } from '../../schema/default-user.js';
import { listRecords } from '../../store/list-records.js';
import { readRecord } from '../../store/read-record.js';
import { FACTS } from '../registry.js';
import { buildFact } from './build-fact.js';

/**
 * Facts, engine side: add (one or many, one commit), read, list, update,
 * delete and history. Every write goes through the commit path, which keeps
 * the index in step and announces the change.
 */
export class FactStore {
  constructor(private readonly ctx: EngineContext) {}

  /** `call` names the public method in a ValidationError about an embedding. */
  async add(inputs: WithUser<FactInput>[], call: 'facts.add' | 'facts.addMany'): Promise<Fact[]> {
    const { ctx } = this;
    const now = ctx.now();
    const records = inputs.map((input) => buildFact(input, now));
    const ids = new Set(records.map((r) => r.id));
    if (ids.size !== records.length) {
      throw new ValidationError('Two facts in one call share an id.', [{ path: 'id', message: 'must be unique within the call' }]);
    }
    const vectors = await vectorsFor(ctx, inputs, { call, path: (i) => (call === 'facts.add' ? 'embedding' : `${i}.embedding`) });
    await ctx.commit('add facts', [FACTS], async (scope) => {
      // Only an id the app chose can already exist: generated ones are new random UUIDs.
      const stored = await this.storedFacts(inputs.flatMap((input) => (input.id === undefined ? [] : [input.id])));
      records.forEach((record, i) => {
        const old = stored.get(record.id);
        if (!old) return;
        if (old.userId !== record.userId) {
          throw new ValidationError(`Fact "${record.id}" belongs to another user.`, [{ path: 'id', message: 'already used by another user' }]);
        }
        record.createdAt = inputs[i]!.createdAt ?? old.createdAt;
        record.validFrom = old.validFrom;
      });
      // Only facts already stored can have a vector to replace: new ids cost no lookup.
      await scope.put(FACTS, records, vectors, { mayExist: [...stored.keys()] });
    });
    return records;
  }

  get(id: string): Promise<Fact> {
    return readRecord(this.ctx.db, FACTS, id);
  }

  /** One user's current facts (and retired ones with `includeRetired`), by creation time (see store/list-records.ts). */
  list(query: WithUser<FactListQuery>): Promise<Fact[]> {
    const predicates: ((f: Fact) => boolean)[] = [];
    if (!query.includeRetired) predicates.push((f) => f.status === 'current');
    if (query.category) predicates.push((f) => query.category!.includes(f.category));
    return listRecords(this.ctx.db, FACTS, query, predicates);
  }

  async update(id: string, patch: FactPatch): Promise<Fact> {
    const { ctx } = this;
    const current = await this.get(id);
    const merged: Fact = { ...current, ...patch, updatedAt: ctx.now() };
    const vector = merged.text !== current.text ? (await embedTexts(ctx, [merged.text]))[0] : undefined;
    await ctx.commit('update a fact', [FACTS], async (scope) => {
      await scope.get(FACTS, id);
      await scope.put(FACTS, [merged], [vector]);
    });
    return merged;
  }

  async delete(id: string): Promise<void> {
    const { ctx } = this;
    await ctx.commit('delete a fact', [FACTS], async (scope) => {
      await scope.get(FACTS, id);
      await scope.remove(FACTS, [id]);
    });
  }

  /** Every version of a fact, oldest first: retired versions with `validUntil` and `supersededBy`, then the current one. */
  async history(id: string): Promise<Fact[]> {
    const { db } = this.ctx;
    const start = await this.get(id);
    const seen = new Map<string, Fact>([[start.id, start]]);
    // Forward: what replaced it; backward: what it replaced.
    let current: Fact | undefined = start;
    while (current?.supersededBy && !seen.has(current.supersededBy)) {
      current = await db.facts.get(current.supersededBy);
      if (current) seen.set(current.id, current);
    }
    let frontier = [...seen.keys()];
    while (frontier.length) {
      const older = (await db.facts.where('supersededBy').anyOf(frontier).toArray()).filter((f) => !seen.has(f.id));
      older.forEach((f) => seen.set(f.id, f));
      frontier = older.map((f) => f.id);
    }
    return [...seen.values()].sort((a, b) => a.validFrom - b.validFrom || (a.validUntil ?? Infinity) - (b.validUntil ?? Infinity));
  }

  /**
   * The stored facts among `ids`, inside the caller's transaction. One get
   * per id is one IndexedDB request each (a round trip apiece), so the keys
   * between the smallest and the largest id are read first in one request:
   * unless that range holds many more keys than the batch, it tells which
   * ids exist, and only those are read.
   */
  private async storedFacts(ids: string[]): Promise<Map<string, Fact>> {
    if (ids.length === 0) return new Map();
    const { facts } = this.ctx.db;
    const wanted = new Set(ids);
    // IndexedDB orders string keys by UTF-16 code units, as Array.prototype.sort does.
    const sorted = [...wanted].sort();
    const limit = 4 * sorted.length + 1000;
    const inRange = (await facts.where(':id').between(sorted[0]!, sorted[sorted.length - 1]!, true, true).limit(limit).primaryKeys()) as string[];
    const present = inRange.length < limit ? inRange.filter((key) => wanted.has(key)) : sorted;
    const found = present.length ? await facts.bulkGet(present) : [];
    return new Map(found.flatMap((fact) => (fact ? [[fact.id, fact] as const] : [])));
  }
}
