/** The turn operations: conversation messages kept as they were said (engine/handlers/turns.ts runs them). */
import * as z from 'zod/mini';
import { withDefaultUser } from '../schema/default-user.js';
import { MAX_TURNS_PER_CALL, turnInputSchema, turnListQuerySchema } from '../schema/turn.js';
import { byIdOperation, defineOperation, listOperation, param } from './operation.js';

const turnInput = withDefaultUser(turnInputSchema);
/** `turns.list` and a live list of turns (facade/live-spec.ts) take this. */
export const turnListQuery = withDefaultUser(turnListQuerySchema);

/** Adding turns returns only the turns it wrote, so it does not wait for recall's access-time write (`tracked`). */
export const addTurn = defineOperation({ method: 'turns.add', name: 'add a turn', input: [param(turnInput)], runs: 'tracked' });

/** Up to 10,000 turns in one embedding batch and one transaction: all are stored or none. */
export const addTurns = defineOperation({
  method: 'turns.addMany',
  name: 'add turns',
  input: [param(z.array(turnInput).check(z.maxLength(MAX_TURNS_PER_CALL, 'at most 10,000 turns per call')))],
  runs: 'tracked',
});

export const getTurn = byIdOperation('turns.get', 'get a turn');

export const listTurns = listOperation('turns.list', 'list turns', turnListQuery);

export const deleteTurn = byIdOperation('turns.delete', 'delete a turn');

export const TURN_OPERATIONS = [addTurn, addTurns, getTurn, listTurns, deleteTurn] as const;
