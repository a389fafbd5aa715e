import type { Embedder } from '../schema/embedder.js';
import { loadTransformersEmbedder } from '../embed/transformers-embedder.js';
import type { EngineContext } from '../engine-context.js';
import { ValidationError } from '../errors.js';
import { resolveExtraction, type ResolvedExtraction } from '../extract/resolve-extraction.js';
import { EPISODE_JOB, episodeJobHandler } from '../extract/stage2.js';
import { FactStore } from '../memories/facts/fact-store.js';
import { CallAborts } from '../jobs/call-aborts.js';
import { CallTracker } from '../jobs/call-tracker.js';
import { JobQueue } from '../jobs/queue.js';
import { EpisodeStore } from '../memories/episodes/episode-store.js';
import { resolveLifecycle } from '../memories/episodes/resolve-lifecycle.js';
import { AccessTimes } from '../recall/access-times.js';
import { warmTimeMentions } from '../time/warm-time-mentions.js';
import { buildKeywordsInBackground } from '../index-sync/keyword-warmup.js';
import { keywordBuilder } from '../index-sync/index-loader.js';
import { MemoryIndex } from '../search/memory-index.js';
import { ChangeSignal } from '../index-sync/change-signal.js';
import { readSnapshot } from '../index-sync/index-snapshot.js';
import { rebuildIndex } from '../index-sync/rebuild-index.js';
import { SnapshotWriter } from '../index-sync/snapshot-writer.js';
import { resolveRanking } from '../search/ranking.js';
import { announcer } from '../index-sync/announce.js';
import { captureLocalWrites } from '../replication/capture.js';
import { EngineReplica } from '../replication/engine-replica.js';
import { REPLICA_TABLES } from '../replication/replica-records.js';
import { SYNCED_TABLES } from '../replication/synced-kinds.js';
import { createCommit } from '../store/commit.js';
import { EngramDatabase } from '../store/database.js';
import { toStorageError } from '../store/transaction-errors.js';
import { PATTERN_JOB, patternJobHandler, TaskStore } from '../tasks/task-store.js';
import type { EngramEvent } from '../telemetry/events.js';
import { resolveTurnPolicy } from '../memories/turns/turn-policy.js';
import { TurnStore } from '../memories/turns/turn-store.js';
import type { EngineConfig, EngineHooks, EngineParts } from './parts.js';
import { englishTimeParser } from '../time/english/parser.js';

/**
 * The builders `Engine.open` calls, in the order each needs the one before:
 * the store, the embedder, the context every operation works with, the
 * background work, the search indexes, the announcing of committed writes,
 * and last the stores the operations dispatch to.
 */

/** A pause in calls this long lets the open's leftover work run: the deferred keyword postings, the time reader's first read. */
const WARMUP_QUIET_MS = 50;

export interface OpenedStore {
  db: EngramDatabase;
  /** Other engines on this database (tabs) hear of every committed change, and this one of theirs. */
  signal: ChangeSignal;
  /** The persisted index snapshot, being read while the model starts (none when snapshots are off). */
  storedSnapshot: ReturnType<typeof readSnapshot> | undefined;
}

/** Opens the database and the cross-tab signal, and starts reading the index snapshot. */
export async function openStore(config: EngineConfig, hooks: EngineHooks): Promise<OpenedStore> {
  const db = new EngramDatabase(config.name, { indexedDB: hooks.indexedDB, IDBKeyRange: hooks.IDBKeyRange });
  // Without a snapshot nothing replays the write log, and nothing would empty it.
  db.writeMark.logging = config.indexSnapshot !== false;
  try {
    await db.open();
  } catch (error) {
    throw toStorageError(error, `open database "${config.name}"`);
  }
  const signal = new ChangeSignal(config.name, hooks.indexedDB);
  // The snapshot's rows are read while the model starts (IndexedDB reads them off this thread meanwhile); the
  // signal above already hears other engines' writes, so none committed after this read is missed.
  const storedSnapshot = config.indexSnapshot === false ? undefined : readSnapshot(db);
  storedSnapshot?.catch(() => undefined); // (an open that fails before using it)
  return { db, signal, storedSnapshot };
}

/** Undoes `openStore` (an open that failed later, or a close). */
export function closeStore({ db, signal }: Pick<OpenedStore, 'db' | 'signal'>): void {
  db.changes.stop();
  signal.close();
  db.close();
}

/** The app's embedder, or the configured model loaded; its dimension checked. */
export async function loadEmbedder(config: EngineConfig, hooks: EngineHooks): Promise<Embedder> {
  const embedder = hooks.embedder ?? (await loadTransformersEmbedder(config.embedder, hooks.onProgress));
  if (!Number.isInteger(embedder.dimension) || embedder.dimension < 1) {
    throw new ValidationError(`The embedder "${embedder.id}" declares an invalid dimension (${embedder.dimension}).`, [
      { path: 'embedder.dimension', message: 'must be a positive integer' },
    ]);
  }
  return embedder;
}

/** The app's event listener, shielded: a listener's bug must not break a write that already committed. */
export function eventSink(hooks: EngineHooks): (event: EngramEvent) => void {
  return (event) => {
    try {
      hooks.onEvent?.(event);
    } catch {
      // Swallowed: the write it reports has committed either way.
    }
  };
}

/** What every operation works with: the store and its commit path, the embedder, the index, the settings, the clock. */
export function buildContext(config: EngineConfig, hooks: EngineHooks, db: EngramDatabase, embedder: Embedder, emit: (event: EngramEvent) => void): EngineContext {
  const now = hooks.clock ?? Date.now;
  // Sync's outbox is written in the transaction of every commit over a synced kind (replication/capture.ts).
  const syncCapture = { tables: REPLICA_TABLES, when: SYNCED_TABLES, run: (tx: Parameters<typeof captureLocalWrites>[0], written: Parameters<typeof captureLocalWrites>[1], options: { remote?: ReadonlySet<string> }) => captureLocalWrites(tx, written, options.remote, now) };
  return {
    db,
    commit: createCommit(db, emit, syncCapture),
    embedder,
    index: new MemoryIndex(embedder.dimension),
    lifecycle: resolveLifecycle(config.lifecycle),
    ranking: resolveRanking(config.ranking),
    timeZone: config.timeZone,
    timeParser: hooks.timeParser ?? englishTimeParser,
    now,
    emit,
  };
}

export interface Work {
  extraction: ResolvedExtraction;
  calls: CallTracker;
  closing: AbortController;
  queue: JobQueue;
  /** Shared by the task store and the pattern job (`tasks.stats().patternQueue`). */
  counters: { processed: number; extractedInline: number };
}

/** Calls in flight, the durable job queue with its handlers, and the signal that stops both at close. */
export function buildWork(config: EngineConfig, hooks: EngineHooks, ctx: EngineContext): Work {
  const extraction = resolveExtraction(config.extraction, config.facts, config.capture);
  const counters = { processed: 0, extractedInline: 0 };
  const queue = new JobQueue({
    db: ctx.db,
    commit: ctx.commit,
    now: ctx.now,
    maxAttempts: extraction.maxAttempts,
    backoffMs: extraction.retryBackoffMs,
    handlers: {
      [EPISODE_JOB]: episodeJobHandler(ctx, { llm: hooks.llm, options: extraction }),
      [PATTERN_JOB]: patternJobHandler(ctx, counters),
    },
  });
  return { extraction, calls: new CallTracker(), closing: new AbortController(), queue, counters };
}

export interface LoadedIndexes {
  snapshots: SnapshotWriter | null;
  tasks: TaskStore;
  taskIndex: MemoryIndex;
  openedFrom: 'snapshot' | 'records';
  replayed: number;
}

/** Fills the memory index (from the snapshot, or rebuilt from the records) and the task index, and starts the snapshot writer. */
export async function loadIndexes(config: EngineConfig, hooks: EngineHooks, ctx: EngineContext, work: Work, stored: OpenedStore['storedSnapshot']): Promise<LoadedIndexes> {
  const { calls, queue } = work;
  // The snapshot is saved only while no call or job runs, so it never captures half a write.
  const snapshots =
    config.indexSnapshot === false
      ? null
      : new SnapshotWriter(ctx, {
          isQuiet: (forMs = 0) => calls.quietFor(forMs) && queue.active === 0,
          delayMs: config.indexSnapshot?.saveDelayMs,
          files: hooks.pageFiles,
        });
  const snapshot = snapshots && stored ? { pages: snapshots.pages, stored } : undefined;
  const { sameSpace, fromSnapshot, replayed } = await rebuildIndex(ctx, hooks.onProgress, snapshot, hooks.pageFiles);
  snapshots?.start();
  const taskIndex = new MemoryIndex(ctx.embedder.dimension);
  const tasks = new TaskStore(ctx, taskIndex, config.tasks ?? {}, queue, work.counters);
  await tasks.rebuild(sameSpace);
  return { snapshots, tasks, taskIndex, openedFrom: fromSnapshot ? 'snapshot' : 'records', replayed };
}

/** From here on every committed write reaches both indexes, the app and the other tabs; and theirs reach this engine. */
export function startAnnouncing(ctx: EngineContext, signal: ChangeSignal, taskIndex: MemoryIndex, emit: (event: EngramEvent) => void): void {
  ctx.db.changes.start(
    announcer({
      index: ctx.index,
      taskIndex,
      emit: (change) => emit(change),
      publish: (change) => signal.publish(change),
    }),
  );
  signal.listen({
    db: ctx.db,
    dimension: ctx.embedder.dimension,
    index: ctx.index,
    taskIndex,
    onRefreshed: (change) => emit({ type: 'change', ...change }),
  });
}

/** The stores the operations dispatch to, with the parts built before them. */
export function assembleParts(config: EngineConfig, hooks: EngineHooks, ctx: EngineContext, work: Work, indexes: LoadedIndexes, signal: ChangeSignal): EngineParts {
  const { calls } = work;
  return {
    ctx,
    calls,
    llm: hooks.llm,
    extraction: work.extraction,
    facts: new FactStore(ctx),
    turns: new TurnStore(ctx, resolveTurnPolicy(config.turns)),
    episodes: new EpisodeStore(ctx),
    tasks: indexes.tasks,
    queue: work.queue,
    access: new AccessTimes(ctx, (job) => calls.track(job), (ms) => calls.callsPausedFor(ms)),
    signal,
    snapshots: indexes.snapshots,
    openedFrom: indexes.openedFrom,
    replayed: indexes.replayed,
    stopWarmups: startWarmups(ctx, calls),
    closing: work.closing,
    aborts: new CallAborts(),
    replica: () => new EngineReplica(ctx),
  };
}

/**
 * The work an open leaves for pauses between calls. Queries read unbuilt
 * postings as they are: building them waits while calls keep coming. The
 * time reader's first read does too.
 */
function startWarmups(ctx: EngineContext, calls: Work['calls']): () => void {
  const quiet = () => calls.quietFor(WARMUP_QUIET_MS);
  const stops = [buildKeywordsInBackground(keywordBuilder(ctx.index), quiet), warmTimeMentions(quiet)];
  return () => stops.forEach((stop) => stop());
}
