import { raceCallerAbort } from '../../jobs/call-aborts.js';
import type { waitForIdle } from '../../operations/idle.js';
import type { HandlersOf } from './handler.js';

/** Waits until no call is in flight and the background queue is drained (operations/idle.ts). */
export const IDLE_HANDLERS = {
  idle: ({ calls, queue, access }, _args, caller) => {
    // Pending access times are written now, not when their timer fires.
    void access.settle();
    const drained = async () => {
      do {
        while (calls.size > 0) await calls.settled();
        await queue.idle();
      } while (calls.size > 0 || queue.pending > 0);
    };
    return raceCallerAbort(caller, 'idle', drained());
  },
} satisfies HandlersOf<readonly [typeof waitForIdle]>;
