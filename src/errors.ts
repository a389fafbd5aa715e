/**
 * Every failure engram reports is one of these classes. Each carries a stable
 * `code` so callers can branch without `instanceof` (which breaks across
 * realms, e.g. errors rebuilt after crossing the worker boundary).
 */
export type ErrorCode =
  | 'VALIDATION'
  | 'LIMIT'
  | 'NOT_FOUND'
  | 'PROVIDER'
  | 'CLOSED'
  | 'EMBEDDER'
  | 'STORAGE'
  | 'QUOTA'
  | 'IMPORT'
  | 'LOCKED'
  | 'CORRUPTION'
  | 'WORKER_START'
  | 'ABORTED'
  | 'CONTEXT'
  | 'SYNC';

const ERROR_NAMES: Record<ErrorCode, string> = {
  VALIDATION: 'ValidationError',
  LIMIT: 'LimitError',
  NOT_FOUND: 'NotFoundError',
  PROVIDER: 'ProviderError',
  CLOSED: 'ClosedError',
  EMBEDDER: 'EmbedderError',
  STORAGE: 'StorageError',
  QUOTA: 'QuotaError',
  IMPORT: 'ImportError',
  LOCKED: 'StoreLockedError',
  CORRUPTION: 'CorruptionError',
  WORKER_START: 'WorkerStartError',
  ABORTED: 'AbortError',
  CONTEXT: 'ContextError',
  SYNC: 'SyncError',
};

/** One field of an input that failed validation (`ValidationError.issues`). */
export interface ValidationIssue {
  /** Dotted path to the offending field, e.g. `context.tags.2`; empty for the value itself. */
  path: string;
  message: string;
}

/**
 * The base class of every error engram reports. `code` is stable (branch on
 * it where `instanceof` cannot work, e.g. across realms); `details` is plain
 * data, the same on both sides of the worker boundary.
 *
 * @example
 * ```ts
 * try {
 *   await memory.facts.add({ text: '' });
 * } catch (error) {
 *   if (error instanceof EngramError) console.log(error.code, error.message); // VALIDATION facts.add: text: ...
 * }
 * ```
 */
export class EngramError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    // Not `new.target.name`: minifiers rename classes, and the name must survive bundling.
    this.name = ERROR_NAMES[code];
    this.code = code;
    this.details = details;
  }
}

/** An input did not match its schema. `issues` lists every field that was wrong. */
export class ValidationError extends EngramError {
  readonly issues: ValidationIssue[];
  constructor(message: string, issues: ValidationIssue[] = []) {
    super('VALIDATION', message, { issues });
    this.issues = issues;
  }
}

/** An input was well-formed but over a documented size or count limit. */
export class LimitError extends EngramError {
  constructor(message: string, details: { limit: number; actual: number; field: string }) {
    super('LIMIT', message, details);
  }
}

/** No record with that id exists (for that kind). */
export class NotFoundError extends EngramError {
  readonly id: string;
  readonly kind: string;
  constructor(kind: string, id: string) {
    super('NOT_FOUND', `No ${kind} with id "${id}" exists.`, { kind, id });
    this.id = id;
    this.kind = kind;
  }
}

/** The LLM provider failed: HTTP error, timeout, unusable reply, over budget. */
export class ProviderError extends EngramError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('PROVIDER', message, details);
  }
}

/** The memory was closed; create a new one with `createMemory()`. */
export class ClosedError extends EngramError {
  constructor(operation: string) {
    super('CLOSED', `Cannot ${operation}: this memory has been closed.`, { operation });
  }
}

/** The embedding model could not be loaded or failed to embed. */
export class EmbedderError extends EngramError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('EMBEDDER', message, details);
  }
}

/** IndexedDB refused or failed a transaction; nothing from it was written. */
export class StorageError extends EngramError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('STORAGE', message, details);
  }
}

/** The browser's storage quota is exhausted even after eviction; nothing was written. */
export class QuotaError extends EngramError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('QUOTA', message, details);
  }
}

/** An export file was corrupt, truncated or of an unknown version; nothing was imported. */
export class ImportError extends EngramError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('IMPORT', message, details);
  }
}

/**
 * A durable Node store (`createMemory({ directory })`) is open in another
 * process, or already in this one: one process owns a store at a time, so two
 * writers can never interleave their journals.
 */
export class StoreLockedError extends EngramError {
  constructor(message: string, details: { directory: string; pid: number; host: string; since: string }) {
    super('LOCKED', message, details);
  }
}

/**
 * A file of a durable Node store fails verification where the open cannot
 * tell it from data it would lose: a journal record that fails its checksum
 * with valid records after it, or a damaged, foreign or missing `image.v8`
 * that the journal cannot rebuild. Nothing was opened and every file is as it
 * was. `file` is the damaged file's path and `offset` the byte where the
 * damage starts; `npx engram repair` (the command is in `details.repair`)
 * writes a new store from every record that verifies and keeps the damaged
 * files beside it.
 */
export class CorruptionError extends EngramError {
  readonly file: string;
  readonly offset: number;
  constructor(message: string, details: { folder: string; file: string; offset: number; reason: string; repair: string }) {
    super('CORRUPTION', message, details);
    this.file = details.file;
    this.offset = details.offset;
  }
}

/**
 * The engine's Web Worker could not be started: it could not be created, its
 * script failed to load or threw at top level, or it did not answer the
 * start-up handshake in time. `url` is the worker script when engram knows it;
 * `reason` says which of those it was.
 */
export class WorkerStartError extends EngramError {
  readonly url: string | undefined;
  readonly reason: WorkerStartReason;
  constructor(message: string, details: { url?: string; reason: WorkerStartReason; cause?: string }) {
    super('WORKER_START', message, details);
    this.url = details.url;
    this.reason = details.reason;
  }
}

/**
 * The caller's `AbortSignal` ended the call before it wrote anything: the
 * store is exactly as it was (a call whose write had already committed when
 * the signal fired resolves normally instead). Named `AbortError`, like the
 * platform's, so `error.name === 'AbortError'` checks keep working.
 */
export class AbortError extends EngramError {
  constructor(operation: string, reason?: string) {
    super('ABORTED', `${operation} was aborted by the caller's signal${reason ? ` (${reason})` : ''}; nothing was written.`, { operation, ...(reason ? { reason } : {}) });
  }
}

/**
 * Where engram runs does not allow what it needs. `context` says which:
 * - 'content-script': a browser extension's content script, where IndexedDB
 *   belongs to the visited page's origin (that website could read the
 *   memories); `allowPageOrigin: true` opts in.
 * - 'service-worker': a service worker, where engram's lazily loaded parts
 *   cannot be imported: bundle engram into it as one file.
 * - 'chunk-load': one of engram's lazily loaded files could not be loaded.
 */
export type ContextErrorContext = 'content-script' | 'service-worker' | 'chunk-load';

/** See `ContextErrorContext`. */
export class ContextError extends EngramError {
  readonly context: ContextErrorContext;
  constructor(message: string, details: { context: ContextErrorContext }) {
    super('CONTEXT', message, details);
    this.context = details.context;
  }
}

/**
 * Why sync refused or failed: see `SyncError`. Refusals of what a hub sent
 * (nothing from the batch is applied):
 * - 'tampered': a row does not open under this key: its ciphertext, nonce or
 *   a routing field bound into its associated data (space, device, sequence,
 *   operation, clock, record hash) was altered.
 * - 'replayed': a row this device already took (its sequence is not above
 *   the last one taken from its device), or a cursor at or before the one asked for.
 * - 'reordered': rows out of order (a device's sequence or the cursor going back).
 * - 'foreign_space': rows sealed for another space.
 * - 'wrong_key': rows sealed under another key: this device's key is not the
 *   space's (or the hub answered with another space's rows).
 * - 'malformed': the hub's answer is not the sync protocol (garbage).
 * - 'clock': a row's clock is further ahead of this device's clock than allowed.
 * Refusals by the hub, and transport failures:
 * - 'expired': this device was away longer than the hub keeps deletions: it
 *   must rejoin with a new device id and rebuild its replica from the hub.
 * - 'unauthorized': the hub refused the credentials (HTTP 401/403).
 * - 'too_large': a request was over the hub's size limit (HTTP 413).
 * - 'hub': the hub refused the request (another 4xx) or kept failing (5xx) after every retry.
 * - 'network': the hub could not be reached after every retry.
 */
export type SyncErrorReason =
  | 'tampered'
  | 'replayed'
  | 'reordered'
  | 'foreign_space'
  | 'wrong_key'
  | 'malformed'
  | 'clock'
  | 'expired'
  | 'unauthorized'
  | 'too_large'
  | 'hub'
  | 'network';

/** See `SyncErrorReason`. `details` name the row (index, device, seq) or the HTTP status when there is one. */
export class SyncError extends EngramError {
  readonly reason: SyncErrorReason;
  constructor(message: string, details: { reason: SyncErrorReason } & Record<string, unknown>) {
    super('SYNC', message, details);
    this.reason = details.reason;
  }
}

/** Why a worker did not start: see `WorkerStartError`. */
export type WorkerStartReason = 'unsupported' | 'create' | 'load' | 'timeout' | 'message';

const byCode: Record<ErrorCode, new (...args: never[]) => EngramError> = {
  VALIDATION: ValidationError,
  LIMIT: LimitError,
  NOT_FOUND: NotFoundError,
  PROVIDER: ProviderError,
  CLOSED: ClosedError,
  EMBEDDER: EmbedderError,
  STORAGE: StorageError,
  QUOTA: QuotaError,
  IMPORT: ImportError,
  LOCKED: StoreLockedError,
  CORRUPTION: CorruptionError,
  WORKER_START: WorkerStartError,
  ABORTED: AbortError,
  CONTEXT: ContextError,
  SYNC: SyncError,
};

/** Plain-data form of an error, for crossing a worker boundary. */
export interface SerializedError {
  name: string;
  code?: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  stack?: string;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof EngramError) {
    return { name: error.name, code: error.code, message: error.message, details: error.details, stack: error.stack };
  }
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error) };
}

/** Rebuilds the typed error on the receiving side, keeping class, code and details. */
export function deserializeError(data: SerializedError): Error {
  const Ctor = data.code ? byCode[data.code] : undefined;
  if (!Ctor) {
    const plain = new Error(data.message);
    plain.name = data.name;
    if (data.stack) plain.stack = data.stack;
    return plain;
  }
  const error = Object.create(Ctor.prototype) as EngramError & Record<string, unknown>;
  Object.assign(error, { name: data.name, message: data.message, code: data.code, details: data.details ?? {} });
  if (data.details) {
    for (const key of ['issues', 'id', 'kind', 'url', 'reason', 'context', 'file', 'offset'] as const) if (key in data.details) error[key] = data.details[key];
  }
  if (data.stack) error.stack = data.stack;
  return error;
}
