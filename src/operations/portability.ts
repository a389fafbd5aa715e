/** The portability operations: a versioned JSON Lines export, and its import (engine/handlers/portability.ts runs them). */
import * as z from 'zod/mini';
import { exportOptionsSchema } from '../schema/query.js';
import { defineOperation, param } from './operation.js';

/** An export as text or bytes. A Blob crosses to the worker as it is (structured clone), so the worker reads it. */
const importInputSchema = z.union([z.string(), z.instanceof(Blob), z.instanceof(ArrayBuffer), z.instanceof(Uint8Array) as z.ZodMiniType<Uint8Array, Uint8Array>]);

/** Without a `userId`, every user's memories. */
export const exportMemories = defineOperation({ method: 'export', name: 'export', input: [param(exportOptionsSchema)] });

/** Imports an export: validated whole before anything is written (see portability/import.ts). */
export const importMemories = defineOperation({ method: 'import', name: 'import', input: [param(importInputSchema)] });

export const PORTABILITY_OPERATIONS = [exportMemories, importMemories] as const;
