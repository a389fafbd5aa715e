import Dexie, { type Table } from 'dexie';
import type { Episode } from '../schema/episode.js';
import type { Fact } from '../schema/fact.js';
import type { Turn } from '../schema/turn.js';
import type { EventRecord, IndexLogRow, JobRecord, LegacyVectorRecord, MetaRecord, VectorBlock } from '../schema/records.js';
import type { ProfileRecord } from '../schema/profile.js';
import type { SnapshotRow } from '../index-sync/index-snapshot.js';
import { changeFeedMiddleware, type ChangeFeed } from './change-feed.js';
import { oneWriterMiddleware } from './one-writer.js';
import { writeMarkMiddleware, type WriteMark } from './write-mark.js';
import { packBlocks } from './vector-blocks.js';
import { middlewaresOf } from './factory-middlewares.js';
import { memoryKinds } from '../memories/registry.js';
import type { PatternRecord, StepRecord, TaskRecord } from '../schema/task.js';
import type { SyncOutboxRow, SyncVersion } from '../replication/replica-records.js';

/** The last published schema version. */
const LATEST_VERSION = 7;
/** The names Dexie gives its built-in liveQuery middlewares (dexie's observabilityMiddleware and cacheMiddleware). */
export const DEXIE_OBSERVABILITY = 'Observability';
export const DEXIE_LIVE_QUERY_CACHE = 'Cache';

/**
 * The IndexedDB schema. Each `version()` is a migration: never edit a
 * published version's stores, add a new version instead (Dexie diffs them).
 * A memory kind's table is declared as its registry entry's `indexes`
 * (memories/registry.ts), which a unit test holds equal to the published
 * schema; a kind no published version names gets its table one version up.
 *
 * Index notes:
 * - `[userId+createdAt]` serves per-user, time-ordered listing and eviction.
 * - `*tags`, `*participants`, ... are multi-entry indexes so filters on them
 *   are index lookups, not scans.
 * - Every index costs each put of a record, so facts (the bulk-loaded table)
 *   keep only the ones a query uses; `where('userId')` on facts runs on
 *   `[userId+createdAt]` (a Dexie virtual index).
 */
export class EngramDatabase extends Dexie {
  episodes!: Table<Episode, string>;
  facts!: Table<Fact, string>;
  turns!: Table<Turn, string>;
  vectorBlocks!: Table<VectorBlock, string>;
  jobs!: Table<JobRecord, string>;
  events!: Table<EventRecord, number>;
  profiles!: Table<ProfileRecord, string>;
  meta!: Table<MetaRecord, string>;
  tasks!: Table<TaskRecord, string>;
  steps!: Table<StepRecord, string>;
  patterns!: Table<PatternRecord, string>;
  snapshot!: Table<SnapshotRow, string>;
  /** The memories each write since the last snapshot save wrote (see write-mark.ts): what an open replays onto a lagging snapshot. */
  indexLog!: Table<IndexLogRow, number>;
  /** Sync: local changes the hub does not hold yet, one per record (replication/replica-records.ts). */
  syncOutbox!: Table<SyncOutboxRow, string>;
  /** Sync: each record's latest version clock, tombstones included (replication/replica-records.ts). */
  syncVersions!: Table<SyncVersion, string>;
  /** Which committed write the store is at (see write-mark.ts); the index snapshot is valid only at the same mark. */
  readonly writeMark: WriteMark;
  /** Every committed transaction's rows (see change-feed.ts): how the indexes and the app hear of each write. */
  readonly changes: ChangeFeed;

  constructor(name: string, deps?: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange }) {
    super(name, deps && (deps.indexedDB || deps.IDBKeyRange) ? deps : undefined);
    // The published versions, as they were published; `published` collects the tables they declare.
    const published = new Set<string>();
    const version = (n: number, stores: Record<string, string | null>) => {
      for (const [table, spec] of Object.entries(stores)) if (spec !== null) published.add(table);
      return this.version(n).stores(stores);
    };
    version(1, {
      episodes:
        'id, userId, [userId+createdAt], [userId+endedAt], sessionId, parentId, *tags, *participants, *toolsUsed, *entities, outcomeStatus, state',
      facts: 'id, userId, [userId+createdAt], [userId+category], [userId+status], supersededBy, *tags',
      vectors: 'id, userId',
      jobs: 'id, kind, userId, runAfter',
      events: '++seq, type, userId, at',
      profiles: 'userId',
      meta: 'key',
    });
    // v2: agent task episodes.
    version(2, {
      tasks: 'id, userId, [userId+status], startedAt',
      steps: 'id, taskId, [taskId+index]',
      patterns: 'id, userId, [userId+domain], [userId+language], kind',
    });
    // v3: the persisted index snapshot (a cache; see index-snapshot.ts).
    version(3, { snapshot: 'key' });
    // v4: vectors in blocks, not a row per memory (see vector-blocks.ts); facts lose the indexes no query used.
    version(4, {
      facts: 'id, [userId+createdAt], supersededBy, *tags',
      vectors: null,
      vectorBlocks: 'id, userId, kind, *ids',
    }).upgrade(async (tx) => {
      const rows = (await tx.table('vectors').toArray()) as LegacyVectorRecord[];
      await tx.table('vectorBlocks').bulkAdd(packBlocks(rows));
    });
    // v5: conversation turns (what observe() keeps without an LLM, and turns.add); `[userId+createdAt]` serves listing and retention, `[userId+seq]` a turn's neighbours.
    version(5, { turns: 'id, [userId+createdAt], [userId+seq], sessionId' });
    // v6: the log of writes since the index snapshot (see write-mark.ts), so a snapshot that lags (a tab killed before it was saved) is replayed, not rebuilt.
    version(6, { indexLog: '++seq' });
    // v7: sync's outbox (by record, ordered by sequence) and version clocks (see replication/replica-records.ts).
    version(7, { syncOutbox: 'key, seq', syncVersions: 'key' });
    // A memory kind no published version declares (one registered beyond engram's own: memories/registry.ts) has the table its kind describes.
    const unpublished = memoryKinds().filter((kind) => !published.has(kind.table));
    if (unpublished.length > 0) this.version(LATEST_VERSION + 1).stores(Object.fromEntries(unpublished.map((kind) => [kind.table, kind.indexes])));
    // Dexie's liveQuery machinery, which engram does not use (live() and the cross-tab signal follow the change feed):
    // its Observability middleware builds key range sets over every index of each mutation and, on commit, posts them
    // to a BroadcastChannel and a DOM event; its Cache middleware serves liveQuery's cache. Both are work every write paid.
    this.unuse({ stack: 'dbcore', name: DEXIE_OBSERVABILITY });
    this.unuse({ stack: 'dbcore', name: DEXIE_LIVE_QUERY_CACHE });
    // Every readwrite transaction takes `meta`: one writer at a time (see one-writer.ts).
    this.use(oneWriterMiddleware());
    const { mark, middleware } = writeMarkMiddleware();
    this.writeMark = mark;
    this.use(middleware);
    const feed = changeFeedMiddleware();
    this.changes = feed.feed;
    this.use(feed.middleware);
    for (const extra of middlewaresOf(deps?.indexedDB)) this.use(extra);
  }

  /**
   * A memory kind's table by name, as the database's own property (the
   * object `db.facts` is: Dexie's `table(name)` hands out another one, so
   * code reading every kind through the registry reads what `db.facts` does).
   */
  tableOf<T = unknown>(name: string): Dexie.Table<T, string> {
    return ((this as unknown as Record<string, Dexie.Table<T, string> | undefined>)[name] ?? this.table(name)) as Dexie.Table<T, string>;
  }
}
