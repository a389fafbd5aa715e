import { withDefaultUser } from '../schema/default-user.js';
import { observeInputSchema } from '../schema/observe-input.js';
import { callOptionsRestSchema } from './call-options.js';
import { defineOperation, param } from './operation.js';

/**
 * One conversation turn through the two-stage pipeline (see extract/observe.ts); cancellable until its write commits.
 * It returns counts, not stored records, so it does not wait for recall's access-time write (`tracked`).
 */
export const observeTurn = defineOperation({
  method: 'observe',
  name: 'observe',
  input: [param(withDefaultUser(observeInputSchema)), param(callOptionsRestSchema, 'options')],
  cancellable: true,
  runs: 'tracked',
});
