import { observe } from '../extract/observe.js';
import { withDefaultUser } from '../schema/default-user.js';
import { observeInputSchema } from '../schema/observe-input.js';
import { callOptionsRestSchema } from './call-options.js';
import { defineOperation, param } from './operation.js';

/** One conversation turn through the two-stage pipeline (see extract/observe.ts); cancellable until its write commits. */
export const observeTurn = defineOperation({
  method: 'observe',
  name: 'observe',
  input: [param(withDefaultUser(observeInputSchema)), param(callOptionsRestSchema, 'options')],
  cancellable: true,
  handler: ({ ctx, llm, extraction, queue, closing, turns }, [input], caller) => {
    // The LLM calls stop on either signal; only the caller's turns into an AbortError (a closing engine's does not).
    const signal = caller ? AbortSignal.any([closing.signal, caller]) : closing.signal;
    return observe(ctx, { llm, options: extraction, queue, signal, caller, turns }, input);
  },
});
