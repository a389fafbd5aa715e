/** The fact operations: stable things about the user (engine/handlers/facts.ts runs them). */
import * as z from 'zod/mini';
import { withDefaultUser } from '../schema/default-user.js';
import { builtSchema, lazySchema } from '../schema/lazy-schema.js';
import { addManyOptionsSchema, addOptionsSchema, factInputSchema, factPatchSchema } from '../schema/fact.js';
import { factListQuerySchema } from '../schema/query.js';
import { byIdOperation, defineOperation, listOperation, param, updateOperation } from './operation.js';

const factInput = withDefaultUser(factInputSchema);
/** `facts.list` and a live list of facts (facade/live-spec.ts) take this. */
export const factListQuery = withDefaultUser(factListQuerySchema);

/**
 * One fact, merged with a near-identical current one unless `merge: false`
 * (see memories/facts/add-fact-merging.ts). It does not wait for the
 * pending access-time write (`tracked`, recall/access-times.ts): the one
 * stored record it reads, a fact it merges into, gets its pending access
 * from memory.
 */
export const addFact = defineOperation({
  method: 'facts.add',
  name: 'add a fact',
  input: [param(factInput), param(lazySchema(() => z.safeExtend(builtSchema(addOptionsSchema), { merge: z._default(z.boolean(), true) })), 'options')],
  runs: 'tracked',
});

/** Many facts at once: one embedding batch and one commit (all or nothing) unless `merge: true`; ids instead of records with `returnRecords: false`. */
export const addFacts = defineOperation({
  method: 'facts.addMany',
  name: 'add facts',
  input: [
    param(lazySchema(() => z.array(factInput).check(z.maxLength(10_000, 'at most 10,000 facts per call')))),
    param(lazySchema(() => z.safeExtend(builtSchema(addManyOptionsSchema), { merge: z._default(z.boolean(), false) })), 'options'),
  ],
});

export const getFact = byIdOperation('facts.get', 'get a fact');

export const listFacts = listOperation('facts.list', 'list facts', factListQuery);

export const updateFact = updateOperation('facts.update', 'update a fact', factPatchSchema);

export const deleteFact = byIdOperation('facts.delete', 'delete a fact');

/** Every version of a fact, oldest first. */
export const factHistory = byIdOperation('facts.history', 'read fact history');

export const FACT_OPERATIONS = [addFact, addFacts, getFact, listFacts, updateFact, deleteFact, factHistory] as const;
