/** The fact operations: stable things about the user (facts/, and extract/ for merging). */
import * as z from 'zod/mini';
import type { EngineParts } from '../engine/parts.js';
import { addFactMerging } from '../extract/add-fact-merging.js';
import { withDefaultUser, type WithUser } from '../schema/default-user.js';
import { addManyOptionsSchema, addOptionsSchema, factInputSchema, factPatchSchema, type Fact, type FactInput } from '../schema/fact.js';
import { factListQuerySchema } from '../schema/query.js';
import { byIdOperation, defineOperation, listOperation, param, updateOperation } from './operation.js';

const factInput = withDefaultUser(factInputSchema);
/** `facts.list` and a live list of facts (facade/live-spec.ts) take this. */
export const factListQuery = withDefaultUser(factListQuerySchema);

/** One fact, merged with a near-identical current one unless `merge: false` (see extract/add-fact-merging.ts). */
export const addFact = defineOperation({
  method: 'facts.add',
  name: 'add a fact',
  input: [param(factInput), param(z.safeExtend(addOptionsSchema, { merge: z._default(z.boolean(), true) }), 'options')],
  handler: async (parts, [input, options]) => (await addFactsNow(parts, [input], 'facts.add', options.merge))[0]!,
});

/** Many facts at once: one embedding batch and one commit (all or nothing) unless `merge: true`; ids instead of records with `returnRecords: false`. */
export const addFacts = defineOperation({
  method: 'facts.addMany',
  name: 'add facts',
  input: [
    param(z.array(factInput).check(z.maxLength(10_000, 'at most 10,000 facts per call'))),
    param(z.safeExtend(addManyOptionsSchema, { merge: z._default(z.boolean(), false) }), 'options'),
  ],
  handler: async (parts, [inputs, options]): Promise<Fact[] | string[]> => {
    const records = await addFactsNow(parts, inputs, 'facts.addMany', options.merge);
    return options.returnRecords === false ? records.map((r) => r.id) : records;
  },
});

export const getFact = byIdOperation('facts.get', 'get a fact', ({ facts }, id) => facts.get(id));

export const listFacts = listOperation('facts.list', 'list facts', factListQuery, ({ facts }, query) => facts.list(query));

export const updateFact = updateOperation('facts.update', 'update a fact', factPatchSchema, ({ facts }, id, patch) => facts.update(id, patch));

export const deleteFact = byIdOperation('facts.delete', 'delete a fact', ({ facts }, id) => facts.delete(id));

/** Every version of a fact, oldest first. */
export const factHistory = byIdOperation('facts.history', 'read fact history', ({ facts }, id) => facts.history(id));

export const FACT_OPERATIONS = [addFact, addFacts, getFact, listFacts, updateFact, deleteFact, factHistory] as const;

/** Adds facts raw in one commit, or (`merge`) each merged like an extracted fact where it is the same as a stored one. */
async function addFactsNow(parts: EngineParts, inputs: WithUser<FactInput>[], call: 'facts.add' | 'facts.addMany', merge: boolean): Promise<Fact[]> {
  const { ctx, llm, extraction, facts, closing } = parts;
  if (!merge) return facts.add(inputs, call);
  const out: Fact[] = [];
  for (const input of inputs) {
    // An id the app chose means "write it under this id": never merged away.
    const result = input.id === undefined ? await addFactMerging(ctx, { llm, options: extraction, signal: closing.signal }, input) : null;
    if (result?.merged) out.push(result.merged);
    else out.push(...(await facts.add([result ? { ...input, embedding: result.vector } : input], call)));
  }
  return out;
}
