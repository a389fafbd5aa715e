import { raceCallerAbort } from '../jobs/call-aborts.js';
import { callOptionsRestSchema } from './call-options.js';
import { defineOperation, param } from './operation.js';

/**
 * Resolves when no call is in flight and the background queue is drained;
 * an aborted wait rejects, the work goes on. Untracked: it waits for the
 * tracked calls, so tracking it would make it wait for itself.
 */
export const waitForIdle = defineOperation({
  method: 'idle',
  name: 'wait for idle',
  input: [param(callOptionsRestSchema)],
  cancellable: true,
  runs: 'untracked',
  handler: ({ calls, queue, access }, _args, caller) => {
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
});
