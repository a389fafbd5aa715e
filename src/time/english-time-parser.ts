import { lazyChunkError } from '../lazy-chunk.js';
import type { ParsedTimeQuery, TimeQueryParser } from './query-parser.js';

/**
 * English, recall's default time parser (time/english/parser.ts, on
 * chrono-node), for an app's own parser to fall back to. It loads its
 * module on first use, with `import()`, and answers with promises: the
 * page of an app that never calls it does not carry chrono-node (the
 * engine, in its worker, reads English with the module itself).
 */
export const englishTimeParser: TimeQueryParser = {
  language: 'en',
  /** The session references of `query`, then the dates in the rest, against `now` (local ms). */
  async parse(query: string, now: number): Promise<ParsedTimeQuery> {
    return (await english()).parse(query, now);
  },
  /** Whether `rest` has a word other than the ones that only ask what was said ("discuss", "talk about", "remind me"). */
  async asksForContent(rest: string): Promise<boolean> {
    return (await english()).asksForContent(rest);
  },
};

let loading: Promise<typeof import('./english/parser.js').englishTimeParser> | undefined;
function english() {
  loading ??= import('./english/parser.js').then(
    (module) => module.englishTimeParser,
    (cause: unknown) => {
      loading = undefined;
      throw lazyChunkError('its English time parser', cause);
    },
  );
  return loading;
}
