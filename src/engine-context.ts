import type { Embedder } from './schema/embedder.js';
import type { TimeQueryParser } from './time/query-parser.js';
import type { ResolvedLifecycle } from './memories/episodes/resolve-lifecycle.js';
import type { Ranking } from './search/ranking.js';
import type { MemoryIndex } from './search/memory-index.js';
import type { Commit, WriteEvent } from './store/commit.js';
import type { EngramDatabase } from './store/database.js';

/** What every engine operation works with. One per open database. */
export interface EngineContext {
  db: EngramDatabase;
  /** The one way to write (see store/commit.ts): a transaction whose rows the indexes and listeners then hear of. */
  commit: Commit;
  embedder: Embedder;
  index: MemoryIndex;
  lifecycle: ResolvedLifecycle;
  ranking: Ranking;
  /**
   * The app's time zone (createMemory's `timeZone`), in which recall reads a
   * query's times; undefined: the runtime's own, read through `Date`
   * (time/zone.ts), so an open names it only when something asks its name.
   */
  timeZone: string | undefined;
  /** Reads the times and sessions a query names (createMemory's `timeParser`, else English): time/query-parser.ts. */
  timeParser: TimeQueryParser;
  now(): number;
  /** Emits a typed event that is not about a write (`change` is announced by the commit path alone). */
  emit(event: WriteEvent): void;
}
