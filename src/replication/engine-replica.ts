import { embedTexts } from '../embed/embed-texts.js';
import type { EngineContext } from '../engine-context.js';
import { SyncError } from '../errors.js';
import { deleteEpisodeRecord, episodesOf } from '../memories/episodes/episode-queries.js';
import { EPISODES } from '../memories/registry.js';
import type { Episode } from '../schema/episode.js';
import type { Fact } from '../schema/fact.js';
import type { ProfileRecord } from '../schema/profile.js';
import { safeParse } from '../schema/safe-parse.js';
import type { TaskRecord } from '../schema/task.js';
import type { Turn } from '../schema/turn.js';
import type { StoredVector } from '../schema/records.js';
import { indexDocOf } from '../search/index-doc.js';
import { indexedText } from '../search/indexed-text.js';
import { deleteVectors, getVectors, putVectors } from '../store/vector-blocks.js';
import { remoteRowKey } from './capture.js';
import type { Change, PutChange } from './change.js';
import { newDeviceId, type DeviceId } from './device-id.js';
import { mergeFields } from './field-merge.js';
import { compareHlc, createHybridClock, type HlcString } from './hlc.js';
import { incomingWins } from './merge-rules.js';
import type { OpenedBatch } from './open-batch.js';
import { pullStateSchema, type PullState } from './pull-state.js';
import { duplicatesToDelete, overCap } from './reconcile.js';
import { PULL_META_KEY, REPLICA_META_KEY, REPLICA_TABLES, replicaStateSchema, type ReplicaState, type SyncOutboxRow, type SyncVersion } from './replica-records.js';
import { recordKey, SYNCED_KINDS, SYNCED_TABLES, syncedKind, type SyncedKind } from './synced-kinds.js';

type MemoryRecord = Episode | Fact | Turn;
const ALL_TABLES = [...SYNCED_TABLES, 'vectorBlocks', ...REPLICA_TABLES] as const;

/**
 * The engine side of sync: the LocalReplica contract (local-replica.ts)
 * over a memory's store. Local changes are captured by the commit path
 * itself (capture.ts); this reads them out, acknowledges them, and applies
 * other devices' changes through the same commit path, marked remote.
 */
export class EngineReplica {
  /** While a batch is applied: each record's vector to store (null: to delete), by record key, written once at the end. */
  private vectorWrites = new Map<string, StoredVector | null>();
  /** While a batch is applied: the version rows held and set so far, by record key, written once at the end. */
  private versionsHeld = new Map<string, SyncVersion>();
  private readonly versionsWritten = new Set<string>();

  constructor(private readonly ctx: EngineContext) {}

  /** Records a version row to write at the end of the batch (a later change of the same record sees it). */
  private setVersion(version: SyncVersion): void {
    this.versionsHeld.set(version.key, version);
    this.versionsWritten.add(version.key);
  }

  /**
   * Starts capturing, once per store: a new device id, and every record
   * already stored put in the outbox (the hub learns of what was written
   * before sync was started). Later calls return the same device.
   */
  async enable(): Promise<{ device: DeviceId; created: boolean }> {
    const { ctx } = this;
    return ctx.commit('start sync', ALL_TABLES, async () => {
      const existing = await this.state();
      if (existing) return { device: existing.device, created: false };
      const device = newDeviceId();
      const clock = createHybridClock({ device, now: ctx.now });
      let seq = 0;
      for (const kind of SYNCED_KINDS) {
        const records = (await ctx.db.table(kind.table).toArray()) as Record<string, unknown>[];
        const versions: SyncVersion[] = [];
        const outbox: SyncOutboxRow[] = [];
        for (const record of records) {
          const id = String(record[kind.idField]);
          const hlc = clock.tick();
          const key = recordKey(kind.kind, id);
          const version: SyncVersion = { key, kind: kind.kind, id, hlc, deleted: false };
          if (kind.merge === 'fields') {
            const fields = (record as ProfileRecord).fields as Record<string, unknown>;
            version.fields = fields;
            version.clocks = Object.fromEntries(Object.keys(fields).map((field) => [field, hlc]));
          }
          versions.push(version);
          outbox.push({ key, kind: kind.kind, id, seq: ++seq, hlc, op: 'put' });
        }
        await ctx.db.syncVersions.bulkPut(versions);
        await ctx.db.syncOutbox.bulkPut(outbox);
      }
      const state: ReplicaState = { device, seq, acknowledged: 0, clock: clock.last };
      await ctx.db.meta.put({ key: REPLICA_META_KEY, value: state });
      return { device, created: true };
    });
  }

  /** Up to `limit` unacknowledged changes in sequence order, each its record's current version (with its vector). */
  async pendingChanges(limit: number): Promise<{ seq: number; change: Change }[]> {
    const { db, embedder } = this.ctx;
    return db.transaction('r', ALL_TABLES.map((name) => db.table(name)), async () => {
      const state = await this.requireState();
      const rows = await db.syncOutbox.orderBy('seq').limit(limit).toArray();
      const out: { seq: number; change: Change }[] = [];
      const withVectors = rows.filter((row) => row.op === 'put' && syncedKind(row.kind)?.vector !== 'none').map((row) => row.id);
      const vectors = await getVectors(db, withVectors);
      // Each kind's records in one read, and the field clocks of the kinds merged per field.
      const records = new Map<string, Record<string, unknown>>();
      for (const kind of SYNCED_KINDS) {
        const wanted = rows.filter((row) => row.op === 'put' && row.kind === kind.kind);
        if (wanted.length === 0) continue;
        const found = (await db.table(kind.table).bulkGet(wanted.map((row) => row.id))) as (Record<string, unknown> | undefined)[];
        wanted.forEach((row, i) => found[i] && records.set(row.key, found[i]!));
      }
      const fieldwise = rows.filter((row) => row.op === 'put' && syncedKind(row.kind)?.merge === 'fields');
      const clocks = new Map((await db.syncVersions.bulkGet(fieldwise.map((row) => row.key))).flatMap((v) => (v?.clocks ? [[v.key, v.clocks] as const] : [])));
      for (const row of rows) {
        const common = { kind: row.kind, id: row.id, hlc: row.hlc, device: state.device };
        if (row.op === 'delete') {
          out.push({ seq: row.seq, change: { ...common, op: 'delete' } });
          continue;
        }
        const kind = syncedKind(row.kind)!;
        const record = records.get(row.key);
        // A put whose record is gone was followed by a delete the outbox row would name: not reachable, but never send nothing as a put.
        if (!record) continue;
        const change: PutChange = { ...common, op: 'put', record };
        const vector = vectors.get(row.id);
        // Only the vector of this record's own kind (a task's description vector, a memory's text vector).
        if (vector && (kind.vector === 'task') === (vector.kind === 'task')) change.vector = { embedder: embedder.id, values: vector.vector.slice() };
        const fieldClocks = clocks.get(row.key);
        if (fieldClocks) change.clocks = fieldClocks;
        out.push({ seq: row.seq, change });
      }
      return out;
    });
  }

  /** How many changes the hub does not hold yet. */
  async pendingCount(): Promise<number> {
    return this.ctx.db.syncOutbox.count();
  }

  /** The hub holds this device's changes up to `seq`: their outbox rows go. */
  async acknowledge(seq: number): Promise<void> {
    await this.ctx.commit('acknowledge synced changes', ['syncOutbox', 'meta'], async () => {
      const state = await this.requireState();
      await this.ctx.db.syncOutbox.where('seq').belowOrEqual(seq).delete();
      if (seq > state.acknowledged) await this.ctx.db.meta.put({ key: REPLICA_META_KEY, value: { ...state, acknowledged: seq } });
    });
  }

  async loadPullState(): Promise<PullState | undefined> {
    const row = await this.ctx.db.meta.get(PULL_META_KEY);
    if (!row) return undefined;
    const parsed = safeParse(pullStateSchema, row.value);
    return parsed.success ? parsed.data : undefined;
  }

  /**
   * Applies other devices' changes, all in one commit with the pull state:
   * each record decided by its kind's merge rule against the version this
   * replica holds; rows taken as they came are marked remote (not pushed
   * back); a merge that keeps something the incoming version lacks (a
   * profile field, a fact's retirement) is written as a local change, so the
   * join reaches every device; then the episode invariants (dedup, cap) are
   * re-established for the users whose episodes arrived, as local deletes.
   *
   * Vectors: a change's vector is stored as it came when it was made by this
   * replica's embedder; otherwise the record is embedded here, as an import
   * from another embedder is.
   */
  async applyRemote(batch: OpenedBatch): Promise<{ applied: number; skipped: number }> {
    const { ctx } = this;
    const { db } = ctx;
    const changes = batch.changes.map((change) => this.checked(change));
    const embedded = await this.embedMissing(changes);
    const remote = new Set<string>();
    let applied = 0;
    let skipped = 0;
    await ctx.commit(
      'apply synced changes',
      ALL_TABLES,
      async () => {
        const state = await this.requireState();
        // The batch's clocks are observed first: a clock too far ahead refuses the batch before anything is written.
        const clock = createHybridClock({ device: state.device, last: state.clock, now: ctx.now });
        const latest = changes.reduce<HlcString | undefined>((max, c) => (max === undefined || compareHlc(c.hlc, max) > 0 ? c.hlc : max), undefined);
        if (latest) clock.observe(latest);
        await db.meta.put({ key: REPLICA_META_KEY, value: { ...state, clock: clock.last } });

        const episodeUsers = new Set<string>();
        const keys = changes.map((change) => recordKey(change.kind, change.id));
        const versions = new Map((await db.syncVersions.bulkGet(keys)).flatMap((v) => (v ? [[v.key, v] as const] : [])));
        const heldBefore = new Set(versions.keys());
        this.vectorWrites = new Map();
        this.versionsHeld = versions;
        for (const change of changes) {
          const kind = syncedKind(change.kind);
          if (!kind) {
            skipped++;
            continue;
          }
          const key = recordKey(change.kind, change.id);
          const held = versions.get(key);
          const outcome = kind.merge === 'fields' ? await this.mergeProfile(kind, change, held) : await this.mergeRecord(kind, change, held, embedded);
          if (outcome === 'skipped') {
            skipped++;
            continue;
          }
          applied++;
          const rowKey = remoteRowKey(kind.table, change.id);
          if (outcome === 'taken') {
            remote.add(rowKey);
            await db.syncOutbox.delete(key);
          } else remote.delete(rowKey);
          if (kind.kind === 'episode' && change.op === 'put') episodeUsers.add((change.record as Episode).userId);
        }
        // The batch's vectors in one write per block (a block of one per memory would cost a row each).
        const writes = [...this.vectorWrites];
        await deleteVectors(db, writes.filter(([id, vector]) => vector === null && heldBefore.has(id)).map(([id]) => id.slice(id.indexOf('/') + 1)));
        const puts = writes.flatMap(([key, vector]) => (vector ? [{ key, vector }] : []));
        await putVectors(db, puts.map(({ vector }) => vector), { mayExist: puts.filter(({ key }) => heldBefore.has(key)).map(({ vector }) => vector.id) });
        await db.syncVersions.bulkPut([...versions.values()].filter((v) => this.versionsWritten.has(v.key)));
        this.versionsWritten.clear();
        for (const userId of episodeUsers) {
          for (const id of await this.episodesToRemove(userId)) {
            await deleteEpisodeRecord(db, id);
            await deleteVectors(db, [id]);
            // The removal is this device's decision: captured as a local delete, so it syncs.
            remote.delete(remoteRowKey(EPISODES.table, id));
          }
        }
        await db.meta.put({ key: PULL_META_KEY, value: batch.state });
      },
      { remote },
    );
    return { applied, skipped };
  }

  /** A pulled record must be what its kind's schema says, with the id the change names: else the batch is refused whole. */
  private checked(change: Change): Change {
    const kind = syncedKind(change.kind);
    if (!kind || change.op === 'delete') return change;
    const parsed = safeParse(kind.schema, change.record);
    const record = parsed.success ? (parsed.data as Record<string, unknown>) : undefined;
    if (!record || record[kind.idField] !== change.id) {
      const why = parsed.success ? `its ${kind.idField} is not "${change.id}"` : `${parsed.error.issues[0]?.path.join('.') || 'record'}: ${parsed.error.issues[0]?.message}`;
      throw new SyncError(`A synced ${change.kind} from device "${change.device}" is not a valid record (${why}); nothing from this batch was applied. The sending device runs an incompatible version, or is compromised.`, {
        reason: 'malformed',
        device: change.device,
        kind: change.kind,
      });
    }
    // Stored as it came (validated above): the sender's own field order, so both stores hold the same record.
    return change;
  }

  /** Vectors for the puts whose vector did not travel or came from another embedder, computed before the transaction (embedding is not IndexedDB work). */
  private async embedMissing(changes: readonly Change[]): Promise<Map<string, Float32Array>> {
    const { embedder } = this.ctx;
    const texts: string[] = [];
    const ids: string[] = [];
    for (const change of changes) {
      if (change.op !== 'put' || usable(change, embedder)) continue;
      const kind = syncedKind(change.kind);
      if (kind?.vector === 'memory' && indexDocOf(change.record as MemoryRecord)) texts.push(indexedText(change.record as MemoryRecord));
      else if (kind?.vector === 'task' && (change.record as TaskRecord).status === 'completed') texts.push((change.record as TaskRecord).description || ' ');
      else continue;
      ids.push(recordKey(change.kind, change.id));
    }
    const vectors = await embedTexts(this.ctx, texts);
    return new Map(ids.map((id, i) => [id, vectors[i]!]));
  }

  /**
   * Last writer wins for a whole record (facts: a retirement is kept).
   * 'taken': the incoming version as it came; 'merged': a join that differs
   * from it, written as a local change; 'skipped': the held version wins.
   */
  private async mergeRecord(kind: SyncedKind, change: Change, held: SyncVersion | undefined, embedded: Map<string, Float32Array>): Promise<'taken' | 'merged' | 'skipped'> {
    const { db } = this.ctx;
    const table = db.table(kind.table);
    const key = recordKey(change.kind, change.id);
    if (!incomingWins(held, change)) {
      // An older retirement still retires a fact this replica holds as current: the retirement is kept.
      if (kind.merge !== 'retirement' || change.op !== 'put' || held?.deleted) return 'skipped';
      const incoming = change.record as Fact;
      const local = (await table.get(change.id)) as Fact | undefined;
      if (!local || incoming.status !== 'retired' || local.status === 'retired') return 'skipped';
      await table.put({ ...local, status: incoming.status, supersededBy: incoming.supersededBy, validUntil: incoming.validUntil });
      return 'merged';
    }
    if (change.op === 'delete') {
      await table.delete(change.id);
      if (kind.vector !== 'none') this.vectorWrites.set(key, null);
      this.setVersion({ key, kind: change.kind, id: change.id, hlc: change.hlc, deleted: true });
      return 'taken';
    }
    let record = change.record;
    let merged = false;
    if (kind.merge === 'retirement') {
      const local = held && !held.deleted ? ((await table.get(change.id)) as Fact | undefined) : undefined;
      const incoming = record as Fact;
      if (local?.status === 'retired' && incoming.status !== 'retired') {
        record = { ...record, status: local.status, supersededBy: local.supersededBy, validUntil: local.validUntil };
        merged = true;
      }
    }
    await table.put(record);
    this.storeVector(kind, change as PutChange, record, embedded.get(key));
    this.setVersion({ key, kind: change.kind, id: change.id, hlc: change.hlc, deleted: false });
    return merged ? 'merged' : 'taken';
  }

  /** Per-field last writer wins (profiles). */
  private async mergeProfile(kind: SyncedKind, change: Change, held: SyncVersion | undefined): Promise<'taken' | 'merged' | 'skipped'> {
    const { db } = this.ctx;
    const key = recordKey(change.kind, change.id);
    if (change.op === 'delete' || held?.deleted || held === undefined) {
      if (!incomingWins(held, change)) return 'skipped';
      if (change.op === 'delete') {
        await db.profiles.delete(change.id);
        this.setVersion({ key, kind: change.kind, id: change.id, hlc: change.hlc, deleted: true });
        return 'taken';
      }
      const record = change.record as ProfileRecord;
      await db.profiles.put(record);
      this.setVersion({ key, kind: change.kind, id: change.id, hlc: change.hlc, deleted: false, clocks: change.clocks ?? {}, fields: record.fields });
      return 'taken';
    }
    const incoming = change.record as ProfileRecord;
    const local = await db.profiles.get(change.id);
    const joined = mergeFields({ values: local?.fields ?? {}, clocks: held.clocks ?? {} }, { values: incoming.fields, clocks: change.clocks ?? {} });
    const hlc = compareHlc(change.hlc, held.hlc) > 0 ? change.hlc : held.hlc;
    const updatedAt = Math.max(local?.updatedAt ?? 0, incoming.updatedAt);
    const same = sameJson(joined, { values: incoming.fields, clocks: change.clocks ?? {} }) && updatedAt === incoming.updatedAt;
    // Taken as it came (its own field order, so every store holds the same record), or the join, which is then pushed as a local change.
    const record: ProfileRecord = same ? incoming : { userId: change.id, fields: joined.values as ProfileRecord['fields'], updatedAt };
    await db.profiles.put(record);
    this.setVersion({ key, kind: change.kind, id: change.id, hlc, deleted: false, clocks: same ? (change.clocks ?? {}) : joined.clocks, fields: record.fields });
    return same ? 'taken' : 'merged';
  }

  /** A record's vector after a put: as it travelled (same embedder), as embedded here, or none (a retired fact, a task not completed). */
  private storeVector(kind: SyncedKind, change: PutChange, record: Record<string, unknown>, embedded: Float32Array | undefined): void {
    if (kind.vector === 'none') return;
    const vector = usable(change, this.ctx.embedder) ? change.vector!.values : embedded;
    const userId = record.userId as string;
    const key = recordKey(change.kind, change.id);
    this.vectorWrites.set(key, vector ? { id: change.id, userId, kind: kind.vector === 'task' ? 'task' : (record as MemoryRecord).type, vector } : null);
  }

  /** The episodes of `userId` that the dedup and cap rules remove (reconcile.ts), read in the running transaction. */
  private async episodesToRemove(userId: string): Promise<string[]> {
    const { db, lifecycle } = this.ctx;
    const episodes = await episodesOf(db, userId);
    const vectors = await getVectors(db, episodes.map((e) => e.id));
    const facts = episodes.map((e) => ({ id: e.id, createdAt: e.createdAt, pinned: e.pinned, provenance: e.provenance, vector: vectors.get(e.id)?.vector }));
    const duplicates = new Set(duplicatesToDelete(facts, lifecycle.dedupThreshold));
    const rest = facts.filter((e) => !duplicates.has(e.id));
    return [...duplicates, ...overCap(rest, lifecycle.maxEpisodes)];
  }

  private async state(): Promise<ReplicaState | undefined> {
    const row = await this.ctx.db.meta.get(REPLICA_META_KEY);
    if (!row) return undefined;
    const parsed = safeParse(replicaStateSchema, row.value);
    if (!parsed.success) throw new SyncError(`This store's sync state is damaged (${parsed.error.issues[0]?.message}).`, { reason: 'malformed' });
    return parsed.data;
  }

  private async requireState(): Promise<ReplicaState> {
    const state = await this.state();
    if (!state) throw new SyncError('Sync has not been started on this store (memory.sync.start()).', { reason: 'malformed' });
    return state;
  }
}

/** Whether two JSON values are equal, whatever the order of their objects' keys. */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortedKeys(a)) === JSON.stringify(sortedKeys(b));
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]));
}

/** Whether a put's vector can be stored as it came: made by this replica's embedder, of its dimension. */
function usable(change: PutChange, embedder: { id: string; dimension: number }): boolean {
  return change.vector !== undefined && change.vector.embedder === embedder.id && change.vector.values.length === embedder.dimension;
}
