import type { ChangeTable } from '../../telemetry/events.js';
import { memoryKinds, searchFormOf, type StoredMemory } from '../../memories/registry.js';
import { isRecordTable } from '../../store/change-feed.js';
import type { EngramDatabase } from '../../store/database.js';
import { getVectors } from '../../store/vector-blocks.js';
import { applyDeleted, applyTask, applyWritten } from '../apply-changes.js';
import type { MemoryIndex } from '../memory-index.js';

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
/** A table a change message may name: a record table (store/change-feed.ts) the app reads back. */
const isChangeTable = (table: string): table is ChangeTable => table !== 'vectorBlocks' && isRecordTable(table);

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
  /** Refreshes run one after another, so an older read never lands after a newer one. */
  private refreshing: Promise<void> = Promise.resolve();
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

  /** Resolves when every refresh received so far has been applied (tests, and `idle()`). */
  settled(): Promise<void> {
    return this.refreshing;
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
    const targets = this.targets;
    if (!targets) return;
    // A closed database or a failed read: the next open rebuilds from IndexedDB anyway.
    this.refreshing = this.refreshing.then(() => this.refresh(targets, message)).catch(() => undefined);
  }

  private async refresh(targets: RefreshTargets, message: ChangeMessage): Promise<void> {
    if (this.closed) return;
    const { db, dimension, index, taskIndex } = targets;
    // Written or deleted, IndexedDB says what each id is now; the message only says where to look.
    const ids = [...new Set([...message.written, ...message.deleted])];
    const touchedLocally = new Set<string>();
    this.readers.add(touchedLocally);
    let rows;
    try {
      // One read transaction: a consistent view of records and vectors.
      const kinds = memoryKinds();
      rows = await db.transaction('r', [...kinds.map((kind) => db.table(kind.table)), db.tasks, db.vectorBlocks], async () => {
        const memories: (StoredMemory | undefined)[][] = [];
        for (const kind of kinds) memories.push(await db.table(kind.table).bulkGet(ids));
        return { memories, tasks: await db.tasks.bulkGet(ids), vectors: await getVectors(db, ids) };
      });
    } finally {
      this.readers.delete(touchedLocally);
    }
    if (this.closed) return;
    const again: string[] = [];
    ids.forEach((id, i) => {
      // This engine wrote that id while we read: which version is newer is unknown, so read it once more.
      if (touchedLocally.has(id)) return void again.push(id);
      const record = rows.memories.map((kind) => kind[i]).find((found) => found !== undefined);
      const stored = rows.vectors.get(id)?.vector;
      const vector = stored && stored.length === dimension ? stored : undefined;
      if (record && (vector || index.has(id))) applyWritten(index, [{ ...searchFormOf(record), vector }]);
      else applyDeleted(index, [id]);
      const task = rows.tasks[i];
      if (task || taskIndex.has(id)) applyTask(taskIndex, id, task, vector);
    });
    if (again.length) this.enqueue({ written: again, deleted: [], userIds: message.userIds, tables: message.tables });
    targets.onRefreshed(message);
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
