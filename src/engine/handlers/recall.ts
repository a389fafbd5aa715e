import { raceCallerAbort } from '../../jobs/call-aborts.js';
import type { recallMemories } from '../../operations/recall.js';
import { recall } from '../../recall/recall.js';
import type { HandlersOf } from './handler.js';

/** Ranks the memories for a query (operations/recall.ts). */
export const RECALL_HANDLERS = {
  recall: ({ ctx, access, calls }, [query, options], caller) => {
    // An aborted recall answers at once, but its work still runs to the end: idle() and close() wait for it.
    const work = calls.track(recall(ctx, access, query, options, caller));
    return raceCallerAbort(caller, 'recall', work);
  },
} satisfies HandlersOf<readonly [typeof recallMemories]>;
