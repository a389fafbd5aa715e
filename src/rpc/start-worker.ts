import * as Comlink from 'comlink';
import { WorkerStartError, type WorkerStartReason } from '../errors.js';
import { installErrorTransfer } from './error-transfer.js';
import { WORKER_PING_REPLY, type WorkerEntry } from './worker-protocol.js';

/** How the app asked for the worker: engram's own (`true`), a script URL, a Worker, or a factory. */
export type WorkerOption = true | string | URL | Worker | (() => Worker);

/** Long enough for a slow phone to fetch and parse the worker script; the model loads later, outside this wait. */
export const DEFAULT_WORKER_START_TIMEOUT_MS = 30_000;

export interface StartedWorker {
  worker: Worker;
  entry: Comlink.Remote<WorkerEntry>;
}

/**
 * Creates the engine's worker and waits for its handshake (`ping()`), so
 * start-up always settles: a script that 404s, fails to parse, throws at top
 * level or never answers becomes a `WorkerStartError` instead of a promise
 * that hangs. The wait covers only the script's load; opening the database and
 * the model come after, in `open()`.
 */
export async function startEngineWorker(option: WorkerOption, timeoutMs = DEFAULT_WORKER_START_TIMEOUT_MS): Promise<StartedWorker> {
  installErrorTransfer();
  const url = typeof option === 'string' || option instanceof URL ? new URL(option, globalThis.location?.href).href : undefined;
  const worker = createWorker(option, url);
  const entry = Comlink.wrap<WorkerEntry>(worker);
  const name = url ? `(${url}) ` : option === true ? "(engram's engine.worker.js, emitted by your bundler) " : '';
  const fail = (reason: WorkerStartReason, what: string) => new WorkerStartError(`createMemory: the engine worker ${name}${what}`, { url, reason, cause: what });

  let cleanup = () => {};
  const failed = new Promise<never>((_, reject) => {
    const onError = (event: Event) => {
      // Chromium gives a message for a script that throws or fails to parse, and none for a 404 or a failed import.
      const message = (event as ErrorEvent).message;
      event.preventDefault();
      reject(
        fail(
          'load',
          message
            ? `failed while loading: ${message}. Check the worker script in the browser console.`
            : 'could not be loaded (a 404, a wrong MIME type, or one of its imports failed). Open the URL in the browser, and see the README section "Browser set-up" for your bundler.',
        ),
      );
    };
    const onMessageError = () => reject(fail('message', 'sent a message that could not be read (messageerror).'));
    const timer = setTimeout(
      () => reject(fail('timeout', `did not answer within ${timeoutMs} ms. Is the URL engram's engine.worker.js? Raise \`workerStartTimeoutMs\` on slow devices.`)),
      timeoutMs,
    );
    worker.addEventListener('error', onError);
    worker.addEventListener('messageerror', onMessageError);
    cleanup = () => {
      clearTimeout(timer);
      worker.removeEventListener('error', onError);
      worker.removeEventListener('messageerror', onMessageError);
    };
  });

  try {
    const reply = await Promise.race([entry.ping(), failed]);
    if (reply !== WORKER_PING_REPLY) throw fail('message', `answered the handshake with ${JSON.stringify(reply)}: it is not engram's engine worker.`);
    return { worker, entry };
  } catch (error) {
    worker.terminate();
    throw error instanceof WorkerStartError ? error : fail('message', `failed the handshake: ${(error as Error)?.message ?? error}`);
  } finally {
    cleanup();
  }
}

function createWorker(option: WorkerOption, url: string | undefined): Worker {
  if (typeof option === 'object' && !(option instanceof URL)) return option;
  if (typeof option === 'function') return attempt(url, () => option());
  if (typeof Worker === 'undefined') throw noWorkers();
  // `new Worker` throws synchronously where workers are refused (a content script, a CSP without worker-src).
  return attempt(url, () => (url ? new Worker(url, { type: 'module' }) : bundledWorker()));
}

function attempt(url: string | undefined, create: () => Worker): Worker {
  try {
    return create();
  } catch (cause) {
    throw new WorkerStartError(
      `createMemory: the engine worker could not be created${url ? ` from ${url}` : ''}: ${(cause as Error)?.message ?? cause}. Where pages may not start workers (extension content scripts, a strict CSP), pass \`worker: false\` or your own \`worker: () => new Worker(...)\`.`,
      { url, reason: 'create', cause: String((cause as Error)?.message ?? cause) },
    );
  }
}

/**
 * engram's own worker, written out in the one form Vite and webpack recognise
 * (`new Worker(new URL(literal, import.meta.url), { type: 'module' })`), so
 * they bundle it and its chunks. esbuild does not: there, copy engram's
 * `dist/` and pass the worker's URL as `worker` (README, "Browser set-up").
 */
function bundledWorker(): Worker {
  return new Worker(new URL('./engine.worker.js', import.meta.url), { type: 'module' });
}

function noWorkers(): WorkerStartError {
  const scope = globalThis as { ServiceWorkerGlobalScope?: unknown; process?: { versions?: { node?: string } } };
  const where =
    typeof scope.ServiceWorkerGlobalScope !== 'undefined'
      ? 'a service worker cannot start Web Workers; run engram in-process here with `worker: false` (IndexedDB works in service workers).'
      : scope.process?.versions?.node
        ? 'Node has no Web Workers; engram runs in-process there (`worker: false`, the default in Node).'
        : 'this environment has no Web Worker constructor; pass `worker: false` to run in-process.';
  return new WorkerStartError(`createMemory: a worker was asked for, but ${where}`, { reason: 'unsupported' });
}
