import { callOptionsRestSchema } from './call-options.js';
import { defineOperation, param } from './operation.js';

/**
 * Resolves when no call is in flight and the background queue is drained;
 * an aborted wait rejects, the work goes on (engine/handlers/idle.ts).
 * Untracked: it waits for the tracked calls, so tracking it would make it
 * wait for itself.
 */
export const waitForIdle = defineOperation({ method: 'idle', name: 'wait for idle', input: [param(callOptionsRestSchema)], cancellable: true, runs: 'untracked' });
