import type { Embedder } from './embed/embedder.js';
import type { ResolvedLifecycle } from './schema/options.js';
import type { Ranking } from './search/ranking.js';
import type { MemoryIndex } from './search/memory-index.js';
import type { EngramDatabase } from './store/database.js';
import type { EngramEvent } from './telemetry/events.js';

/** What every engine operation works with. One per open database. */
export interface EngineContext {
  db: EngramDatabase;
  embedder: Embedder;
  index: MemoryIndex;
  lifecycle: ResolvedLifecycle;
  ranking: Ranking;
  now(): number;
  emit(event: EngramEvent): void;
}
