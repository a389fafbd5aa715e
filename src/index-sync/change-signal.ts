import type { ChangeTable } from '../telemetry/events.js';
import { memoryKindIn, memoryKinds, searchFormOf, TASK_RECORDS, type StoredMemory } from '../memories/registry.js';
import type { TaskRecord } from '../schema/task.js';
import { isRecordTable } from '../store/change-feed.js';
import type { EngramDatabase } from '../store/database.js';
import { getVectors } from '../store/vector-blocks.js';
import { applyDeleted, applyTask, applyWritten } from '../search/apply-changes.js';
import type { MemoryIndex } from '../search/memory-index.js';

/**
 * The cross-tab change signal. Several engines may open one database (one per
 * tab, each in its own worker; or several in one Node process on one
 * fake-indexeddb factory). Each keeps an in-memory index, so after one of
 * them commits a write the others must refresh theirs. Every committed change
 * is broadcast (ids only) on a BroadcastChannel named after the database; a
 * receiving engine re-reads those ids from IndexedDB and updates its index.
 *
 * The message is a hint, never data: IndexedDB stays the source of truth. An
 * engine listens from before it reads its index, and applies what it heard
 * while opening once the index is loaded (a write committed between its
 * read and its listening would be missed otherwise). An engine that missed
 * a message (it was closed, or BroadcastChannel does not exist here) is
 * still correct after a reopen, which rebuilds its index.
 */
export interface ChangeMessage {
  /** Keys of rows that were written (created, replaced or updated): memories, tasks, steps, patterns, profiles. */
  written: string[];
  /** Keys that were deleted (evicted, replaced by dedup, forgotten). */
  deleted: string[];
  /** The users whose data changed. */
  userIds: string[];
  /** The tables that changed. */
  tables: ChangeTable[];
}

/** What the receiving side refreshes: the memory index, and the task index behind `tasks.relevant`. */
export interface RefreshTargets {
  db: EngramDatabase;
  dimension: number;
  index: MemoryIndex;
  taskIndex: MemoryIndex;
  /** Told after each refresh, so the app's `change` listeners hear about other tabs too. */
  onRefreshed: (change: ChangeMessage) => void;
}

const PROTOCOL = 2;
/** Reads of other engines' changes under way at once (see `ChangeSignal.waiting`). */
const MAX_READS = 2;

/** A table a change message may name: a record table (store/change-feed.ts) the app reads back. */
const isChangeTable = (table: string): table is ChangeTable => table !== 'vectorBlocks' && isRecordTable(table);

/**
 * The tables a refresh reads ids from: every memory kind's (memories/registry.ts),
 * behind recall, then the tasks', behind `tasks.relevant`. In this order: an id
 * found in two memory tables is taken from the first, as a read of every table did.
 */
const readTables = (): string[] => [...memoryKinds().map((kind) => kind.table), TASK_RECORDS.table];

interface RefreshRead {
  /** Every id read, memory or task. */
  ids: string[];
  /** What each memory id is now (absent: deleted, or not a memory). */
  memories: Map<string, StoredMemory>;
  /** The ids read from a memory table. */
  memoryIds: Set<string>;
  tasks: Map<string, TaskRecord>;
  taskIds: Set<string>;
  vectors: Awaited<ReturnType<typeof getVectors>>;
  /** Ids this engine committed while the read ran. */
  touchedLocally: Set<string>;
}

/**
 * Custom IndexedDB factories (fake-indexeddb in Node) are separate worlds:
 * two engines share a database only if they share the factory object. Each
 * custom factory gets its own channel scope, so engines on different
 * factories with the same database name do not wake each other needlessly.
 * The environment's own `indexedDB` (browser tabs, workers) has scope "".
 */
const factoryScopes = new WeakMap<object, string>();
function scopeOf(factory: IDBFactory | undefined): string {
  if (!factory || factory === (globalThis as { indexedDB?: IDBFactory }).indexedDB) return '';
  let scope = factoryScopes.get(factory);
  if (!scope) factoryScopes.set(factory, (scope = Math.random().toString(36).slice(2)));
  return scope;
}

export class ChangeSignal {
  private readonly channel: BroadcastChannel | null;
  private targets: RefreshTargets | null = null;
  /** Refreshes are applied one after another, in the order their reads began, so an older read never lands after a newer one. */
  private refreshing: Promise<void> = Promise.resolve();
  /**
   * Messages heard that no read has taken yet. A read begins as soon as a
   * message arrives (a read waits behind every write queued on the database
   * before it, so one that waited for the previous read to end would wait
   * twice), while fewer than MAX_READS are under way; past that, the messages
   * that arrive meanwhile are read together by the next one, so engines that
   * write without pauses never queue more reads than there are writes.
   */
  private waiting: ChangeMessage[] = [];
  private reads = 0;
  /** Ids this engine commits while a refresh is reading: the refresh must not overwrite them with older rows. */
  private readonly readers = new Set<Set<string>>();
  private closed = false;
  /** Messages received before `listen` (while the engine opens), applied once it listens. */
  private readonly early: ChangeMessage[] = [];

  constructor(dbName: string, factory?: IDBFactory) {
    const Channel = (globalThis as { BroadcastChannel?: typeof BroadcastChannel }).BroadcastChannel;
    this.channel = Channel ? new Channel(`engram:${scopeOf(factory)}:${dbName}`) : null;
    if (!this.channel) return;
    // Node: an open channel would keep the process alive; the engine's close() is what ends it.
    (this.channel as { unref?: () => void }).unref?.();
    this.channel.onmessage = (event: MessageEvent) => this.receive(event.data);
  }

  /** Starts applying other engines' changes (once the engine's indexes are built). */
  listen(targets: RefreshTargets): void {
    this.targets = targets;
    // Changes other engines committed while this one opened: its index may have been read before them.
    for (const message of this.early.splice(0)) this.enqueue(message);
  }

  /** Tells the other engines on this database what this one just committed. */
  publish(change: ChangeMessage): void {
    for (const touched of this.readers) for (const id of [...change.written, ...change.deleted]) touched.add(id);
    if (this.closed || !this.channel || (change.written.length === 0 && change.deleted.length === 0)) return;
    try {
      this.channel.postMessage({ v: PROTOCOL, ...change });
    } catch {
      // A hint only: a failed post leaves the others stale until their next open, never wrong on disk.
    }
  }

  /** Resolves when every change heard so far has been read and applied. */
  async settled(): Promise<void> {
    for (;;) {
      const applying = this.refreshing;
      await applying;
      // A read that ended started the next one (messages that waited for it), or a message is about to start one.
      await Promise.resolve();
      if (this.closed || (this.refreshing === applying && this.waiting.length === 0)) return;
    }
  }

  close(): void {
    this.closed = true;
    this.targets = null;
    this.channel?.close();
  }

  private receive(data: unknown): void {
    const message = parseMessage(data);
    if (!message || this.closed) return;
    if (!this.targets) this.early.push(message);
    else this.enqueue(message);
  }

  private enqueue(message: ChangeMessage): void {
    if (!this.targets) return;
    this.waiting.push(message);
    // Messages heard in the same task (those kept while opening) are read together.
    if (this.waiting.length === 1) queueMicrotask(() => this.startRead());
  }

  private startRead(): void {
    const targets = this.targets;
    if (!targets || this.waiting.length === 0 || this.reads >= MAX_READS) return;
    const messages = this.waiting.splice(0);
    this.reads++;
    const read = this.read(targets, messages).finally(() => {
      this.reads--;
      this.startRead();
    });
    // A closed database or a failed read: the next open rebuilds from IndexedDB anyway.
    this.refreshing = this.refreshing.then(() => read.then((rows) => this.apply(targets, messages, rows))).catch(() => undefined);
  }

  /**
   * What IndexedDB holds now for every id the messages name, and which of
   * them this engine wrote meanwhile. Each id is looked up only in the tables
   * its message names (a change of steps, patterns or profiles alone needs no
   * read), and the lookups go out together: a read waits behind the writes
   * queued before it, and each request it makes (a round trip to the
   * browser's IndexedDB) keeps it, and them, waiting longer.
   */
  private async read(targets: RefreshTargets, messages: ChangeMessage[]): Promise<RefreshRead> {
    const { db } = targets;
    const readable = readTables();
    const wanted = new Map<string, Set<string>>();
    for (const message of messages) {
      for (const table of message.tables) {
        if (!readable.includes(table)) continue;
        const ids = wanted.get(table) ?? new Set<string>();
        wanted.set(table, ids);
        // Written or deleted, IndexedDB says what each id is now; the messages only say where to look.
        for (const id of [...message.written, ...message.deleted]) ids.add(id);
      }
    }
    const tables = readable.filter((table) => wanted.has(table));
    const lists = tables.map((table) => [...wanted.get(table)!]);
    const ids = [...new Set(lists.flat())];
    const touchedLocally = new Set<string>();
    const read: RefreshRead = { ids, memories: new Map(), memoryIds: new Set(), tasks: new Map(), taskIds: new Set(), vectors: new Map(), touchedLocally };
    if (ids.length === 0) return read;
    this.readers.add(touchedLocally);
    try {
      // One read transaction: a consistent view of records and vectors.
      const [found, vectors] = await db.transaction('r', [...tables.map((table) => db.table(table)), db.vectorBlocks], () =>
        Promise.all([Promise.all(tables.map((table, t) => db.table(table).bulkGet(lists[t]!) as Promise<(StoredMemory | TaskRecord | undefined)[]>)), getVectors(db, ids)]),
      );
      read.vectors = vectors;
      tables.forEach((table, t) => {
        lists[t]!.forEach((id, i) => {
          const row = found[t]![i];
          if (!memoryKindIn(table)) {
            read.taskIds.add(id);
            if (row) read.tasks.set(id, row as TaskRecord);
          } else {
            read.memoryIds.add(id);
            if (row && !read.memories.has(id)) read.memories.set(id, row as StoredMemory);
          }
        });
      });
      return read;
    } finally {
      this.readers.delete(touchedLocally);
    }
  }

  private apply(targets: RefreshTargets, messages: ChangeMessage[], read: RefreshRead): void {
    const { dimension, index, taskIndex } = targets;
    if (this.closed) return;
    const again: string[] = [];
    for (const id of read.ids) {
      // This engine wrote that id while we read: which version is newer is unknown, so read it once more.
      if (read.touchedLocally.has(id)) {
        again.push(id);
        continue;
      }
      const stored = read.vectors.get(id)?.vector;
      const vector = stored && stored.length === dimension ? stored : undefined;
      if (read.memoryIds.has(id)) {
        const record = read.memories.get(id);
        if (record && (vector || index.has(id))) applyWritten(index, [{ ...searchFormOf(record), vector }]);
        else applyDeleted(index, [id]);
      }
      if (read.taskIds.has(id)) {
        const task = read.tasks.get(id);
        if (task || taskIndex.has(id)) applyTask(taskIndex, id, task, vector);
      }
    }
    if (again.length) {
      const userIds = [...new Set(messages.flatMap((message) => message.userIds))];
      const tables = [...new Set(messages.flatMap((message) => message.tables))];
      this.enqueue({ written: again, deleted: [], userIds, tables });
    }
    // One event per committed change of the other engine, as its own listeners heard it.
    for (const message of messages) targets.onRefreshed(message);
  }
}

function parseMessage(data: unknown): ChangeMessage | null {
  if (typeof data !== 'object' || data === null) return null;
  const { v, written, deleted, userIds, tables } = data as Record<string, unknown>;
  const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((id) => typeof id === 'string');
  if (v !== PROTOCOL || !strings(written) || !strings(deleted) || !strings(userIds) || !strings(tables)) return null;
  if (!tables.every(isChangeTable)) return null;
  return { written, deleted, userIds, tables: tables as ChangeTable[] };
}
