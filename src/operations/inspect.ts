/** The inspection operations: what runs in the background, what was recorded, and the engine's own figures (engine/handlers/inspect.ts runs them). */
import * as z from 'zod/mini';
import { defineOperation, param } from './operation.js';

/** Background work waiting or running, and the recorded events (newest first). */
export const readActivity = defineOperation({
  method: 'activity',
  name: 'read activity',
  input: [param(z.strictObject({ limit: z._default(z.number().check(z.int(), z.gte(1), z.lte(10_000)), 100) }))],
});

/** Embedder identity, index size and memory, and how this open loaded the index. Untracked: it only reads counters. */
export const readInfo = defineOperation({ method: 'info', name: 'read info', input: [], runs: 'untracked' });

export const INSPECT_OPERATIONS = [readActivity, readInfo] as const;
