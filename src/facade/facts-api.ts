import * as factOps from '../operations/facts.js';
import type { AddManyOptions, AddOptions, Fact, FactInput, FactPatch } from '../schema/fact.js';
import type { FactListQuery } from '../schema/query.js';
import type { Invoke } from './forward.js';

/** `facts.addMany`: the stored records, or only their ids with `{ returnRecords: false }`. */
export interface AddManyFacts {
  (inputs: FactInput[], options?: AddManyOptions & { returnRecords?: true }): Promise<Fact[]>;
  (inputs: FactInput[], options: AddManyOptions & { returnRecords: false }): Promise<string[]>;
  (inputs: FactInput[], options?: AddManyOptions): Promise<Fact[] | string[]>;
}

/** `memory.facts`: each method validates its input and forwards it to the engine. */
export function factsApi(invoke: Invoke) {
  return {
    /**
     * Adds a fact. By default it is merged with a near-identical current fact
     * of the same user and category, as `observe()` merges (the old version
     * stays in `facts.history()`); `{ merge: false }` inserts it as given.
     */
    add: (input: FactInput, options: AddOptions = {}): Promise<Fact> => invoke(factOps.addFact, input, options),
    /**
     * Adds up to 10,000 facts in one embedding batch and one transaction: all
     * are stored or none. `{ returnRecords: false }` resolves to their ids
     * (input order) instead of the records.
     */
    addMany: ((inputs: FactInput[], options: AddManyOptions = {}): Promise<Fact[] | string[]> => invoke(factOps.addFacts, inputs, options)) as AddManyFacts,
    /** One fact (current or retired); unknown id → NotFoundError. */
    get: (id: string): Promise<Fact> => invoke(factOps.getFact, id),
    /** A user's current facts, filtered by `query` (`includeRetired` for the old versions too). */
    list: (query: FactListQuery = {}): Promise<Fact[]> => invoke(factOps.listFacts, query),
    /** Changes a fact's fields; returns the updated fact. */
    update: (id: string, patch: FactPatch): Promise<Fact> => invoke(factOps.updateFact, id, patch),
    /** Deletes a fact and its vector. */
    delete: (id: string): Promise<void> => invoke(factOps.deleteFact, id),
    /** Every version of a fact, oldest first; retired versions carry `validUntil` and `supersededBy`. */
    history: (id: string): Promise<Fact[]> => invoke(factOps.factHistory, id),
  };
}
