import type { PORTABILITY_OPERATIONS } from '../../operations/portability.js';
import { exportData } from '../../portability/export.js';
import { importData } from '../../portability/import.js';
import type { HandlersOf } from './handler.js';

/** What the export and import operations do (operations/portability.ts declares them). */
export const PORTABILITY_HANDLERS = {
  export: async ({ ctx }, [options]) => new Blob([await exportData(ctx, options)], { type: 'application/x-ndjson' }),
  import: async ({ ctx }, [input]) => {
    const text = typeof input === 'string' ? input : input instanceof Blob ? await input.text() : new TextDecoder().decode(input);
    return importData(ctx, text);
  },
} satisfies HandlersOf<typeof PORTABILITY_OPERATIONS>;
