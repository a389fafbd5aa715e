import { textSchema } from '../schema/common.js';
import { withDefaultUser } from '../schema/default-user.js';
import { recallOptionsSchema } from '../schema/query.js';
import { defineOperation, param } from './operation.js';

/** `recall`'s options, and a live recall's (facade/live-spec.ts). */
export const recallOptions = withDefaultUser(recallOptionsSchema);

/**
 * The memories that matter for a query (recall/recall.ts). It does not wait
 * for the pending access-time write: back-to-back recalls gather theirs into
 * one (recall/access-times.ts).
 */
export const recallMemories = defineOperation({
  method: 'recall',
  name: 'recall',
  input: [param(textSchema, 'query'), param(recallOptions)],
  cancellable: true,
  runs: 'tracked',
});
