import * as Comlink from 'comlink';
import * as z from 'zod/mini';
import { isEmbedder } from '../embed/embedder.js';
import type { EngineConfig, ImportSummary, RecallHit } from '../engine.js';
import { ClosedError, ValidationError } from '../errors.js';
import { formatContext, type FormatContextOptions } from '../recall/format-context.js';
import { formatReplay } from '../recall/format-replay.js';
import { sequenceOptionsSchema, type SequenceOptions } from '../schema/sequence-options.js';
import type { EngineApi } from '../rpc/engine-api.js';
import { startEngineWorker } from '../rpc/start-worker.js';
import { pageProvider } from '../rpc/page-provider.js';
import { DEFAULT_USER_ID, idSchema, textSchema, userIdSchema } from '../schema/common.js';
import { episodeInputSchema, episodePatchSchema, type Episode, type EpisodeInput, type EpisodePatch } from '../schema/episode.js';
import { addManyOptionsSchema, addOptionsSchema, factInputSchema, factPatchSchema, type AddManyOptions, type AddOptions, type Fact, type FactInput, type FactPatch } from '../schema/fact.js';
import { memoryOptionsSchema, type MemoryOptions } from '../schema/memory-options.js';
import { parseInput } from '../schema/parse.js';
import {
  episodeListQuerySchema,
  exportOptionsSchema,
  factListQuerySchema,
  recallOptionsSchema,
  type EpisodeListQuery,
  type ExportOptions,
  type FactListQuery,
  type RecallOptions,
} from '../schema/query.js';
import { Emitter } from '../telemetry/emitter.js';
import { Task } from './task-handle.js';
import { cancellable, takeSignal, type CallOptions } from './call-signal.js';
import { LiveQuery } from './live-query.js';
import type { RelevantTask, TaskStats } from '../tasks/task-store.js';
import { taskContextSchema, taskQuerySchema, taskStartSchema, type PatternRecord, type StepRecord, type TaskContext, type TaskQuery, type TaskRecord, type TaskStart } from '../schema/task.js';
import type { ChangeEvent, EngramEvent, EngramEventType, EventListener } from '../telemetry/events.js';
import { describeProvider } from '../llm/descriptor.js';
import type { ObserveResult } from '../extract/observe.js';
import { observeInputSchema, type ObserveInput } from '../schema/observe-input.js';
import type { CloseEpisodeResult } from '../memories/episodes/close-episode.js';
import { closeEpisodeOptionsSchema, type CloseEpisodeOptions } from '../schema/close-episode-options.js';
import { profileFieldsSchema, profileLine, type Profile, type ProfilePatch } from '../schema/profile.js';
import { turnInputSchema, turnInputsSchema, turnListQuerySchema, type Turn, type TurnInput, type TurnListQuery } from '../schema/turn.js';
import type { EventRecord, JobRecord } from '../schema/records.js';
import { noDirectory, type DurableOpener } from './durable-opener.js';
import { refuseContentScript } from './page-origin-guard.js';
import { lazyChunkError } from '../lazy-chunk.js';

const relevantOptionsSchema = z.strictObject({ k: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1000))), userId: z.optional(userIdSchema) });
const pruneOptionsSchema = z.strictObject({ userId: z.optional(userIdSchema) });
/** What is left of a cancellable call's options once its `signal` is taken out (see facade/call-signal.ts). */
const callOptionsRestSchema = z.strictObject({});
const closeOptionsSchema = z.strictObject({ timeoutMs: z.optional(z.number().check(z.int(), z.gte(0), z.lte(600_000))) });
const tasksListSchema = z.strictObject({ userId: z.optional(userIdSchema), limit: z.optional(z.number().check(z.int(), z.gte(1), z.lte(10_000))) });
const liveQuerySchema = z.union([
  z.strictObject({ recall: textSchema, options: z.optional(recallOptionsSchema) }),
  z.strictObject({ facts: factListQuerySchema }),
  z.strictObject({ episodes: episodeListQuerySchema }),
  z.strictObject({ tasks: tasksListSchema }),
  z.strictObject({ turns: turnListQuerySchema }),
]);
/** What `memory.live()` takes. */
export type LiveQuerySpec =
  | { recall: string; options?: RecallOptions }
  | { facts: FactListQuery }
  | { episodes: EpisodeListQuery }
  | { tasks: { userId?: string; limit?: number } }
  | { turns: TurnListQuery };
const importInputSchema = z.union([z.string(), z.instanceof(Blob), z.instanceof(ArrayBuffer), z.instanceof(Uint8Array)]);

/** `facts.addMany`: the stored records, or only their ids with `{ returnRecords: false }`. */
export interface AddManyFacts {
  (inputs: FactInput[], options?: AddManyOptions & { returnRecords?: true }): Promise<Fact[]>;
  (inputs: FactInput[], options: AddManyOptions & { returnRecords: false }): Promise<string[]>;
  (inputs: FactInput[], options?: AddManyOptions): Promise<Fact[] | string[]>;
}

/**
 * A long-term memory. Created by `createMemory()`; every method validates its
 * input, then forwards to the engine (in-process, or in a Web Worker).
 */
export class Memory {
  private closed = false;

  private constructor(
    private readonly engine: EngineApi,
    private readonly emitter: Emitter,
    private readonly shutdown: (options: { timeoutMs?: number }) => Promise<void>,
    private readonly taskBuffering: { flushAt: number; flushIntervalMs: number },
  ) {}

  /** @internal use `createMemory()`; `openDurable` is the build's (see ./durable-opener.ts). */
  static async create(options: MemoryOptions, openDurable: DurableOpener = noDirectory): Promise<Memory> {
    const opts = parseInput(memoryOptionsSchema, options, 'createMemory', { copy: false }) as MemoryOptions;
    refuseContentScript(opts.allowPageOrigin);
    const emitter = new Emitter();
    const config: EngineConfig = {
      name: opts.name,
      lifecycle: opts.lifecycle,
      ranking: opts.ranking,
      indexSnapshot: opts.indexSnapshot,
      extraction: opts.extraction,
      facts: opts.facts,
      capture: opts.capture,
      tasks: opts.tasks,
      turns: opts.turns,
      embedder: isEmbedder(opts.embedder) ? undefined : opts.embedder,
    };
    const customEmbedder = isEmbedder(opts.embedder) ? opts.embedder : undefined;
    const buffering = { flushAt: opts.tasks?.flushAt ?? 50, flushIntervalMs: opts.tasks?.flushIntervalMs ?? 5000 };

    const durable = await openDurable({ ...opts, inProcess: !useWorker(opts.worker) });
    if (!useWorker(opts.worker)) {
      const indexedDB = durable?.indexedDB ?? opts.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
      if (!indexedDB) {
        throw new ValidationError(
          'createMemory: no IndexedDB here. In Node, pass one: `import { indexedDB, IDBKeyRange } from "fake-indexeddb"` and `createMemory({ name, indexedDB, IDBKeyRange })`.',
          [{ path: 'indexedDB', message: 'required outside the browser' }],
        );
      }
      // Loaded only here, so a page in worker mode carries the facade, not the engine.
      const { Engine } = await import('../engine.js').catch((cause: unknown) => {
        throw lazyChunkError('its in-process engine', cause);
      });
      const engine = await Engine.open(config, {
        indexedDB,
        // Dexie needs both; in a page running in-process, the browser's own key range goes with its own factory.
        IDBKeyRange: durable?.IDBKeyRange ?? opts.IDBKeyRange ?? (globalThis as { IDBKeyRange?: typeof IDBKeyRange }).IDBKeyRange,
        embedder: customEmbedder,
        onProgress: opts.onProgress,
        onEvent: (event) => emitter.emit(event),
        clock: opts.clock,
        llm: opts.llm,
        pageFiles: durable?.pageFiles,
      }).catch(async (error: unknown) => {
        await durable?.close();
        throw error;
      });
      const shutdown = async (closeOptions: { timeoutMs?: number }) => {
        await engine.close(closeOptions);
        await durable?.close();
      };
      return new Memory(engine as unknown as EngineApi, emitter, shutdown, buffering);
    }

    if (opts.indexedDB || opts.clock) {
      throw new ValidationError('createMemory: `indexedDB` and `clock` only work in-process; set `worker: false` to use them.', [
        { path: opts.indexedDB ? 'indexedDB' : 'clock', message: 'not available with a worker' },
      ]);
    }
    const { worker, entry } = await startEngineWorker(opts.worker || true, opts.workerStartTimeoutMs);
    // A custom provider runs here, on the page; the worker forwards its aborts (see rpc/page-provider.ts).
    const onPage = opts.llm && !describeProvider(opts.llm) ? pageProvider(opts.llm) : null;
    try {
      const remote = (await entry.open(
        config,
        customEmbedder ? { id: customEmbedder.id, dimension: customEmbedder.dimension } : null,
        customEmbedder ? Comlink.proxy((texts: string[]) => customEmbedder.embed(texts)) : null,
        opts.onProgress ? Comlink.proxy(opts.onProgress) : null,
        Comlink.proxy((event: EngramEvent) => emitter.emit(event)),
        opts.llm ? (describeProvider(opts.llm) ?? null) : null,
        onPage ? Comlink.proxy(onPage) : null,
      )) as unknown as EngineApi;
      return new Memory(
        remote,
        emitter,
        async (closeOptions) => {
          try {
            await remote.close(closeOptions);
          } finally {
            // Whatever the worker did not get to abort before it went away stops here.
            onPage?.abortAll('engram is closing');
            worker.terminate();
          }
        },
        buffering,
      );
    } catch (error) {
      worker.terminate();
      throw error;
    }
  }

  /** Episodes: "what happened, what we learned". */
  readonly episodes = {
    add: async (input: EpisodeInput): Promise<Episode> => {
      const parsed = parseInput(episodeInputSchema, input, 'episodes.add');
      return (await this.call('add an episode').addEpisode(parsed)).episode;
    },
    get: async (id: string): Promise<Episode> => this.call('get an episode').getEpisode(parseInput(idSchema, id, 'episodes.get: id')),
    list: async (query: EpisodeListQuery = {}): Promise<Episode[]> =>
      this.call('list episodes').listEpisodes(parseInput(episodeListQuerySchema, query, 'episodes.list')),
    update: async (id: string, patch: EpisodePatch): Promise<Episode> =>
      this.call('update an episode').updateEpisode(parseInput(idSchema, id, 'episodes.update: id'), parseInput(episodePatchSchema, patch, 'episodes.update')),
    delete: async (id: string): Promise<void> => this.call('delete an episode').deleteEpisode(parseInput(idSchema, id, 'episodes.delete: id')),
    /** The whole arc the episode belongs to, root first; safe against cycles. */
    chain: async (id: string): Promise<Episode[]> => this.call('read a chain').chain(parseInput(idSchema, id, 'episodes.chain: id')),
    /** Chronological replay: the episodes about `topic` (similarity above `minRelevance`), oldest first. */
    sequence: async (topic: string, options: SequenceOptions = {}): Promise<Episode[]> =>
      this.call('replay a topic').sequence(parseInput(textSchema, topic, 'episodes.sequence: topic'), parseInput(sequenceOptionsSchema, options, 'episodes.sequence')),
    /** The episodes that continue this one, oldest first. */
    children: async (id: string): Promise<Episode[]> => this.call('list children').children(parseInput(idSchema, id, 'episodes.children: id')),
    /**
     * Closes an active episode: its state moves to `summarized` and `endedAt`
     * is set to now (unless the episode already records an end after its
     * start, or `options.endedAt` says otherwise). With an LLM provider, one
     * `episode-metadata` call adds participants, tools, entities, key
     * decisions, outcome and tags to what the app passed (the app's values
     * win; the model only adds). LLM failures never throw: the episode is
     * closed with the app's fields and the result says why (`reason`).
     * Unknown id → NotFoundError; an episode that is not active → ValidationError.
     */
    close: async (id: string, options: CloseEpisodeOptions = {}): Promise<CloseEpisodeResult> =>
      this.call('close an episode').closeEpisode(parseInput(idSchema, id, 'episodes.close: id'), parseInput(closeEpisodeOptionsSchema, options, 'episodes.close')),
  };

  /** Facts: stable things about the user. */
  readonly facts = {
    /**
     * Adds a fact. By default it is merged with a near-identical current fact
     * of the same user and category, as `observe()` merges (the old version
     * stays in `facts.history()`); `{ merge: false }` inserts it as given.
     */
    add: async (input: FactInput, options: AddOptions = {}): Promise<Fact> =>
      this.call('add a fact').addFact(parseInput(factInputSchema, input, 'facts.add'), parseInput(addOptionsSchema, options, 'facts.add: options')),
    /**
     * Adds up to 10,000 facts in one embedding batch and one transaction: all
     * are stored or none. `{ returnRecords: false }` resolves to their ids
     * (input order) instead of the records.
     */
    addMany: (async (inputs: FactInput[], options: AddManyOptions = {}): Promise<Fact[] | string[]> => {
      const parsed = parseInput(z.array(factInputSchema).check(z.maxLength(10_000, 'at most 10,000 facts per call')), inputs, 'facts.addMany');
      return this.call('add facts').addFacts(parsed, parseInput(addManyOptionsSchema, options, 'facts.addMany: options'));
    }) as AddManyFacts,
    get: async (id: string): Promise<Fact> => this.call('get a fact').getFact(parseInput(idSchema, id, 'facts.get: id')),
    list: async (query: FactListQuery = {}): Promise<Fact[]> => this.call('list facts').listFacts(parseInput(factListQuerySchema, query, 'facts.list')),
    update: async (id: string, patch: FactPatch): Promise<Fact> =>
      this.call('update a fact').updateFact(parseInput(idSchema, id, 'facts.update: id'), parseInput(factPatchSchema, patch, 'facts.update')),
    delete: async (id: string): Promise<void> => this.call('delete a fact').deleteFact(parseInput(idSchema, id, 'facts.delete: id')),
    /** Every version of a fact, oldest first; retired versions carry `validUntil` and `supersededBy`. */
    history: async (id: string): Promise<Fact[]> => this.call('read fact history').factHistory(parseInput(idSchema, id, 'facts.history: id')),
  };

  /**
   * Conversation turns: messages kept as they were said, each with its
   * speaker, session and time. `observe()` keeps the exchange as two turns
   * when no LLM is configured (see createMemory's `turns`); `add` and
   * `addMany` bring in a conversation the app already has. Recalled like
   * facts and episodes (`types: ['turn']` for turns alone).
   */
  readonly turns = {
    add: async (input: TurnInput): Promise<Turn> => {
      const parsed = parseInput(turnInputSchema, input, 'turns.add');
      return (await this.call('add a turn').addTurns([parsed], 'turns.add'))[0]!;
    },
    /** Up to 10,000 turns in one embedding batch and one transaction: all are stored or none. */
    addMany: async (inputs: TurnInput[]): Promise<Turn[]> =>
      this.call('add turns').addTurns(parseInput(turnInputsSchema, inputs, 'turns.addMany'), 'turns.addMany'),
    get: async (id: string): Promise<Turn> => this.call('get a turn').getTurn(parseInput(idSchema, id, 'turns.get: id')),
    /** One user's turns by time, newest first (`order: 'asc'` for the order they were said). */
    list: async (query: TurnListQuery = {}): Promise<Turn[]> => this.call('list turns').listTurns(parseInput(turnListQuerySchema, query, 'turns.list')),
    delete: async (id: string): Promise<void> => this.call('delete a turn').deleteTurn(parseInput(idSchema, id, 'turns.delete: id')),
  };

  /** Agent task episodes: record steps, get a reward, a reflection and patterns back. */
  readonly tasks = {
    start: async (input: TaskStart): Promise<Task> => {
      const record = await this.call('start a task').startTask(parseInput(taskStartSchema, input, 'tasks.start'));
      return new Task(this.engine, record, this.taskBuffering);
    },
    /** A task with its steps; unknown id → NotFoundError carrying the id. */
    get: async (id: string): Promise<TaskRecord & { steps: StepRecord[] }> => this.call('get a task').getTask(parseInput(idSchema, id, 'tasks.get: id')),
    list: async (options: { userId?: string; limit?: number } = {}): Promise<TaskRecord[]> => {
      const o = parseInput(tasksListSchema, options, 'tasks.list');
      return this.call('list tasks').listTasks(o.userId ?? DEFAULT_USER_ID, o.limit);
    },
    /** Completed tasks most useful for a new one (description, context match and reward; see tasks/context-match.ts). */
    relevant: async (query: TaskQuery, options: { k?: number; userId?: string } = {}): Promise<RelevantTask[]> => {
      const q = parseInput(taskQuerySchema, query, 'tasks.relevant');
      const o = parseInput(relevantOptionsSchema, options, 'tasks.relevant');
      return this.call('find relevant tasks').relevantTasks(q, { k: o.k ?? 5, userId: o.userId ?? DEFAULT_USER_ID });
    },
    stats: async (options: { userId?: string } = {}): Promise<TaskStats> =>
      this.call('read task stats').taskStats(parseInput(z.strictObject({ userId: z.optional(userIdSchema) }), options, 'tasks.stats').userId),
  };

  /** Reusable patterns extracted from completed tasks. */
  readonly patterns = {
    /** Patterns whose domain or language matches, most confident first. */
    relevant: async (context: Partial<TaskContext>, options: { k?: number; userId?: string } = {}): Promise<PatternRecord[]> => {
      const c = parseInput(z.partial(taskContextSchema), context, 'patterns.relevant');
      const o = parseInput(relevantOptionsSchema, options, 'patterns.relevant');
      return this.call('find relevant patterns').relevantPatterns(c, { k: o.k ?? 5, userId: o.userId ?? DEFAULT_USER_ID });
    },
  };

  /** The compact structured profile of a user. */
  readonly profile = {
    get: async (userId: string = DEFAULT_USER_ID): Promise<Profile> => this.call('read a profile').getProfile(parseInput(userIdSchema, userId, 'profile.get: userId')),
    update: async (userId: string, patch: ProfilePatch): Promise<Profile> =>
      this.call('update a profile').updateProfile(parseInput(userIdSchema, userId, 'profile.update: userId'), parseInput(profileFieldsSchema, patch, 'profile.update')),
  };

  /** One compact profile line for prompts (empty when nothing is known); pass it to `formatContext`. */
  async profileLine(userId: string = DEFAULT_USER_ID): Promise<string> {
    return profileLine(await this.profile.get(userId));
  }

  /**
   * After each conversation turn: one LLM call extracts facts and decides
   * whether the exchange deserves an episode; the episode is then written in
   * the background (see \`idle()\`). Never throws for LLM failures: they come
   * back as \`reason\`. With \`signal\`, an abort before the turn's write
   * rejects with an \`AbortError\` and writes nothing (the LLM call is aborted
   * too); an abort after the write has committed changes nothing.
   */
  async observe(input: ObserveInput, options: CallOptions = {}): Promise<ObserveResult> {
    const { signal, rest } = takeSignal(options, 'observe');
    parseInput(callOptionsRestSchema, rest, 'observe: options');
    const parsed = parseInput(observeInputSchema, input, 'observe');
    const engine = this.call('observe');
    return cancellable(engine, signal, 'observe', (callId) => engine.observe(parsed, callId));
  }

  /** Queued background jobs and the most recent recorded events, for inspection. */
  async activity(options: { limit?: number } = {}): Promise<{ jobs: JobRecord[]; events: EventRecord[] }> {
    const opts = parseInput(z.strictObject({ limit: z.optional(z.number().check(z.int(), z.gte(1), z.lte(10_000))) }), options, 'activity');
    return this.call('read activity').activity(opts);
  }

  /** The memories that matter for `query`, best first, each with its score and the parts of the score. */
  async recall(query: string, options: RecallOptions & CallOptions = {}): Promise<RecallHit[]> {
    const text = parseInput(textSchema, query, 'recall: query');
    const { signal, rest } = takeSignal(options, 'recall');
    const parsed = parseInput(recallOptionsSchema, rest, 'recall');
    const engine = this.call('recall');
    return cancellable(engine, signal, 'recall', (callId) => engine.recall(text, parsed, callId));
  }

  /** Renders hits as compact prompt lines (synchronous; no engine call). */
  formatContext(hits: readonly RecallHit[], options: FormatContextOptions = {}): string {
    return formatContext(hits, options);
  }

  /** Renders episodes as chronological replay blocks (synchronous). */
  formatReplay(episodes: readonly Episode[], options: { timeZone?: string } = {}): string {
    return formatReplay(episodes, options);
  }

  /** Applies TTL and the count cap now; returns the evicted ids. */
  async prune(options: { userId?: string } = {}): Promise<{ evicted: string[] }> {
    return this.call('prune').prune(parseInput(pruneOptionsSchema, options, 'prune'));
  }

  /** Deletes everything stored for one user (episodes, facts, turns, tasks, profile, queued jobs). */
  async forget(options: { userId: string }): Promise<{ episodes: number; facts: number; turns: number }> {
    const { userId } = parseInput(z.strictObject({ userId: userIdSchema }), options, 'forget');
    return this.call('forget a user').forgetUser(userId);
  }

  /**
   * Asks the browser to keep this origin's storage under pressure
   * (`navigator.storage.persist()`); resolves to whether it is persisted.
   * False where the Storage API does not exist (Node).
   */
  async persist(): Promise<boolean> {
    const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
    if (!storage?.persist) return false;
    return (await storage.persisted?.()) || storage.persist();
  }

  /** Bytes used and available to this origin (`navigator.storage.estimate()`), or null outside browsers. */
  async storageEstimate(): Promise<{ usage: number; quota: number; persisted: boolean } | null> {
    const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
    if (!storage?.estimate) return null;
    const { usage = 0, quota = 0 } = await storage.estimate();
    return { usage, quota, persisted: (await storage.persisted?.()) ?? false };
  }

  /** A versioned JSON Lines export (see `src/portability/export-format.ts`), as a Blob. */
  async export(options: ExportOptions = {}): Promise<Blob> {
    const text = await this.call('export').exportData(parseInput(exportOptionsSchema, options, 'export'));
    return new Blob([text], { type: 'application/x-ndjson' });
  }

  /** Imports an export; the whole file is validated before anything is written. */
  async import(data: Blob | string | ArrayBuffer | Uint8Array): Promise<ImportSummary> {
    const input = parseInput(importInputSchema, data, 'import');
    const text =
      typeof input === 'string' ? input : input instanceof Blob ? await input.text() : new TextDecoder().decode(input);
    return this.call('import').importData(text);
  }

  /**
   * A query that stays current (see `LiveQuery`): it re-runs whenever a
   * committed change touches its user, in this tab or another. One of
   * `{ recall: text, options }`, `{ facts: query }`, `{ episodes: query }`,
   * `{ turns: query }`, `{ tasks: { userId, limit } }`. Recall runs with `touch: false` (a UI
   * watching memories does not make them more recent).
   */
  live(query: { recall: string; options?: RecallOptions }): LiveQuery<RecallHit[]>;
  live(query: { facts: FactListQuery }): LiveQuery<Fact[]>;
  live(query: { episodes: EpisodeListQuery }): LiveQuery<Episode[]>;
  live(query: { tasks: { userId?: string; limit?: number } }): LiveQuery<TaskRecord[]>;
  live(query: { turns: TurnListQuery }): LiveQuery<Turn[]>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  live(query: LiveQuerySpec): LiveQuery<any> {
    const spec = parseInput(liveQuerySchema, query, 'live');
    this.call('watch a query');
    const onChange = (listener: (event: ChangeEvent) => void) => this.on('change', listener);
    if ('recall' in spec) {
      const options = { ...spec.options, touch: false };
      return new LiveQuery(() => this.recall(spec.recall, options), options.userId ?? DEFAULT_USER_ID, onChange);
    }
    // Each list re-runs only for a change to its own table (a turn does not re-run a list of facts).
    if ('facts' in spec) return new LiveQuery(() => this.facts.list(spec.facts), spec.facts.userId ?? DEFAULT_USER_ID, onChange, ['facts']);
    if ('episodes' in spec) return new LiveQuery(() => this.episodes.list(spec.episodes), spec.episodes.userId ?? DEFAULT_USER_ID, onChange, ['episodes']);
    if ('turns' in spec) return new LiveQuery(() => this.turns.list(spec.turns), spec.turns.userId ?? DEFAULT_USER_ID, onChange, ['turns']);
    return new LiveQuery(() => this.tasks.list(spec.tasks), spec.tasks.userId ?? DEFAULT_USER_ID, onChange, ['tasks', 'steps']);
  }

  on<T extends EngramEventType>(type: T, listener: EventListener<T>): () => void {
    return this.emitter.on(type, listener);
  }

  /** Resolves when every call and background job in flight has finished; with \`signal\`, an abort ends the wait (AbortError), not the work. */
  async idle(options: CallOptions = {}): Promise<void> {
    const { signal, rest } = takeSignal(options, 'idle');
    parseInput(callOptionsRestSchema, rest, 'idle');
    const engine = this.call('wait for idle');
    return cancellable(engine, signal, 'idle', (callId) => engine.idle(callId));
  }

  /** Stops taking work, waits for in-flight work (up to `timeoutMs`), closes the database. Idempotent. */
  async close(options: { timeoutMs?: number } = {}): Promise<void> {
    const parsed = parseInput(closeOptionsSchema, options, 'close');
    if (this.closed) return;
    this.closed = true;
    await this.shutdown(parsed);
    this.emitter.clear();
  }

  /**
   * Diagnostics: the embedder, how many memories are indexed, the bytes
   * their vectors hold in memory (`vectorBytes`: the WebAssembly memory the
   * search scans, spare rows and scratch included; about 1.02x the raw f32
   * vectors at 100k), whether this open loaded the index snapshot or read
   * every record, and how many memories it re-read from the write log onto
   * the snapshot (writes the snapshot missed: a tab or process killed before
   * its save).
   */
  async info(): Promise<{ name: string; embedder: { id: string; dimension: number }; indexed: number; vectorBytes: number; openedFrom: 'snapshot' | 'records'; replayed: number }> {
    return this.call('read info').info();
  }

  private call(operation: string): EngineApi {
    if (this.closed) throw new ClosedError(operation);
    return this.engine;
  }
}

function useWorker(option: MemoryOptions['worker']): boolean {
  if (option === undefined) return typeof window !== 'undefined' && typeof Worker !== 'undefined';
  return option !== false;
}

/**
 * Opens (or creates) a memory. See `MemoryOptions` for every option and its
 * default. (engram's Node build adds `directory`: ./create-memory-node.ts.)
 */
export function createMemory(options: MemoryOptions): Promise<Memory> {
  return Memory.create(options);
}
