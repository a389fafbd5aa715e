import type { LanguageModelMiddleware } from 'ai';
import * as z from 'zod/mini';
import type { ObserveResult } from '../extract/observe.js';
import type { Memory } from '../facade/memory.js';
import type { FormatContextOptions } from '../recall/format-context.js';
import type { RecallOptions } from '../schema/query.js';
import { parseInput } from '../schema/parse.js';
import { fitContext } from './context-budget.js';
import { lastUserText, withSystemText, type CallOptions } from './prompt-messages.js';

/** What the middleware uses of a memory (a `Memory` from `createMemory`). */
export type MemoryLike = Pick<Memory, 'recall' | 'observe' | 'formatContext'>;

/** Which step failed: recalling before the call, or observing the turn after it. */
export type MemoryMiddlewareStage = 'recall' | 'observe';

/**
 * A turn the middleware observed, as `onObserved` receives it: the user message, the reply, and what `memory.observe` returned.
 */
export interface ObservedTurn {
  user: string;
  assistant: string;
  result: ObserveResult;
}

const isFunctionOf = (value: unknown, names: string[]) =>
  typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

export const memoryMiddlewareOptionsSchema = z.strictObject({
  /** The memory to recall from and observe into. */
  memory: z.custom<MemoryLike>((value) => isFunctionOf(value, ['recall', 'observe', 'formatContext']), 'must be an engram memory (from createMemory)'),
  /** Whose memories (default: engram's default user). */
  userId: z.optional(z.string().check(z.minLength(1))),
  /** The conversation the observed turns belong to. */
  sessionId: z.optional(z.string().check(z.minLength(1))),
  /** How many memories to recall per call (default 8). */
  k: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1000))),
  /**
   * The most the memory block added to the system prompt may take, in
   * approximate tokens (characters / 4; default 1,000). The best hits are
   * kept, whole, until the next would pass it; with none fitting nothing
   * is added.
   */
  maxContextTokens: z.optional(z.number().check(z.int(), z.gte(1))),
  /** The line put above the recalled memories. */
  heading: z.optional(z.string()),
  /** More recall options (types, tags, since, until, filter, ...); `userId` and `k` come from above. */
  recallOptions: z.optional(z.custom<Omit<RecallOptions, 'userId' | 'k'>>((value) => typeof value === 'object' && value !== null)),
  /** How the memories are rendered (`timeZone`, `now`, `profileLine`). */
  formatOptions: z.optional(z.custom<FormatContextOptions>((value) => typeof value === 'object' && value !== null)),
  /** Observe each finished turn (default true); false makes the middleware recall only. */
  observe: z.optional(z.boolean()),
  /** Called with a recall or observe failure; the model call itself never fails because of memory. Default: `console.warn`. */
  onError: z.optional(z.custom<(error: unknown, stage: MemoryMiddlewareStage) => void>((value) => typeof value === 'function')),
  /** Called after a turn has been observed, with what `observe` returned. */
  onObserved: z.optional(z.custom<(turn: ObservedTurn) => void>((value) => typeof value === 'function')),
});
/**
 * What `memoryMiddleware` takes: the memory and whose memories, how many to recall and how much prompt they may take, and the error and observe callbacks.
 * @interface
 */
export type MemoryMiddlewareOptions = z.input<typeof memoryMiddlewareOptionsSchema>;

/** The line the middleware puts above the recalled memories in the system prompt (`heading` replaces it). */
export const DEFAULT_MEMORY_HEADING = 'What you remember about the user from earlier conversations (may be incomplete or out of date):';
const DEFAULT_K = 8;
const DEFAULT_MAX_CONTEXT_TOKENS = 1000;

/** The AI SDK middleware `memoryMiddleware` returns, with `flush()` to wait for the turns still being observed. */
export type MemoryMiddleware = LanguageModelMiddleware & {
  /** Resolves once every observe started so far has settled (for tests, and before closing the memory). */
  flush(): Promise<void>;
};

/**
 * An AI SDK middleware (`wrapLanguageModel({ model, middleware })`) that
 * gives a model engram's memory:
 *
 * - before each call it recalls memories for the last user message and adds
 *   them, rendered by `formatContext` under a heading, to the system prompt,
 *   within `maxContextTokens`;
 * - after a call that ends with a reply (not a tool-call step), it observes
 *   the turn `{ user, assistant }`: for `generateText` when the result is
 *   back, for `streamText` once the stream has finished (the text deltas
 *   accumulated). A stream that fails, is cancelled or ends without a
 *   finish part is not observed, nor is a reply whose finish reason is
 *   `error`.
 *
 * Observing runs in the background and never delays or fails the model
 * call; a failed recall leaves the prompt as it was. Both report to
 * `onError`. `flush()` waits for observes in flight.
 */
export function memoryMiddleware(options: MemoryMiddlewareOptions): MemoryMiddleware {
  const opts = parseInput(memoryMiddlewareOptionsSchema, options, 'memoryMiddleware', { copy: false });
  const { memory } = opts;
  const maxTokens = opts.maxContextTokens ?? DEFAULT_MAX_CONTEXT_TOKENS;
  const heading = opts.heading ?? DEFAULT_MEMORY_HEADING;
  const pending = new Set<Promise<void>>();

  const report = (error: unknown, stage: MemoryMiddlewareStage) => {
    try {
      if (opts.onError) opts.onError(error, stage);
      else console.warn(`engram memoryMiddleware: ${stage} failed:`, error);
    } catch {
      // An onError that throws must not reach the app's model call either.
    }
  };

  const observeTurn = (params: CallOptions, assistant: string, finishReason: string | undefined) => {
    // Only a finished reply is a turn: not a tool-call step, a model error, or a stream that ended without its finish part.
    if (opts.observe === false || finishReason === undefined || finishReason === 'tool-calls' || finishReason === 'error') return;
    const user = lastUserText(params.prompt);
    if (!user.trim() && !assistant.trim()) return;
    const task = (async () => {
      try {
        const result = await memory.observe({ userId: opts.userId, sessionId: opts.sessionId, user, assistant });
        opts.onObserved?.({ user, assistant, result });
      } catch (error) {
        report(error, 'observe');
      }
    })();
    pending.add(task);
    void task.finally(() => pending.delete(task));
  };

  return {
    specificationVersion: 'v3',

    async transformParams({ params }) {
      const query = lastUserText(params.prompt);
      if (!query) return params;
      try {
        // The app's abort of the model call also ends the recall before it (no need to rank for a call that is gone).
        const hits = await memory.recall(query, { ...opts.recallOptions, userId: opts.userId, k: opts.k ?? DEFAULT_K, signal: params.abortSignal });
        const block = fitContext(hits, maxTokens, (fitting) => `${heading}\n${memory.formatContext(fitting, opts.formatOptions)}`);
        return block ? { ...params, prompt: withSystemText(params.prompt, block) } : params;
      } catch (error) {
        // An abort is the app's own doing, not a failure to report; the model call sees the same signal.
        if ((error as { code?: string } | null)?.code !== 'ABORTED') report(error, 'recall');
        return params;
      }
    },

    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      observeTurn(params, text, result.finishReason.unified);
      return result;
    },

    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      let text = '';
      let finishReason: string | undefined;
      const observed = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === 'text-delta') text += part.delta;
          else if (part.type === 'finish') finishReason = part.finishReason.unified;
          controller.enqueue(part);
        },
        // Runs only when the model's stream ended normally, not when it errored or was cancelled.
        flush() {
          observeTurn(params, text, finishReason);
        },
      });
      return { stream: stream.pipeThrough(observed), ...rest };
    },

    async flush() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}

type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
