import * as turnOps from '../operations/turns.js';
import type { Turn, TurnInput, TurnListQuery } from '../schema/turn.js';
import type { Invoke } from './forward.js';

/** `memory.turns`: each method validates its input and forwards it to the engine. */
export function turnsApi(invoke: Invoke) {
  return {
    /** Stores one turn, after the user's stored turns of its session. */
    add: (input: TurnInput): Promise<Turn> => invoke(turnOps.addTurn, input),
    /** Up to 10,000 turns in one embedding batch and one transaction: all are stored or none. */
    addMany: (inputs: TurnInput[]): Promise<Turn[]> => invoke(turnOps.addTurns, inputs),
    /** One turn; unknown id → NotFoundError. */
    get: (id: string): Promise<Turn> => invoke(turnOps.getTurn, id),
    /** One user's turns by time, newest first (`order: 'asc'` for the order they were said). */
    list: (query: TurnListQuery = {}): Promise<Turn[]> => invoke(turnOps.listTurns, query),
    /** Deletes a turn and its vector. */
    delete: (id: string): Promise<void> => invoke(turnOps.deleteTurn, id),
  };
}
