import type * as z from 'zod/mini';
import { safeParse } from '../schema/safe-parse.js';

/** Why a request body was refused while it was being read. */
export type BodyRefusal = { status: 413; reason: 'too_large' } | { status: 408; reason: 'body_timeout' };

/**
 * Reads a request body as text, enforcing its limits while it streams in:
 * a declared `content-length` over `maxBytes` is refused before a byte is
 * read, an undeclared (chunked) body is cut off as soon as it passes
 * `maxBytes`, and a body that has not finished arriving within `timeoutMs`
 * (a slow drip) is cut off then. A refused body's stream is cancelled, so the
 * server stops reading it.
 */
export async function readBodyCapped(request: Request, maxBytes: number, timeoutMs: number): Promise<string | BodyRefusal> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await request.body?.cancel().catch(() => undefined);
    return { status: 413, reason: 'too_large' };
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'late') {
        await reader.cancel().catch(() => undefined);
        return { status: 408, reason: 'body_timeout' };
      }
      if (next.done) break;
      total += next.value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { status: 413, reason: 'too_large' };
      }
      chunks.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Why a JSON request body was refused: the HTTP status to answer, what went wrong and a message for the client. */
export interface JsonBodyRefusal {
  status: 400 | 408 | 413;
  problem: 'too_large' | 'body_timeout' | 'unreadable' | 'not_json' | 'invalid';
  message: string;
}

export interface JsonBodyLimits {
  maxBytes: number;
  timeoutMs: number;
  /** What the body is, for messages ("push body"). */
  noun: string;
  /** Added to the message of a body over `maxBytes` (what the client should do instead). */
  tooLargeHint?: string;
  /** Starts the message of a body that is JSON but not what `schema` accepts ("Invalid request"). */
  invalidPrefix: string;
}

/**
 * Reads a request body with {@link readBodyCapped}'s limits, parses it as
 * JSON and validates it with `schema`: the one way a server handler turns a
 * request into checked data, or into the refusal it answers with.
 */
export async function readJsonBody<S extends z.ZodMiniType>(
  request: Request,
  schema: S,
  limits: JsonBodyLimits,
): Promise<{ data: z.output<S> } | { refused: JsonBodyRefusal }> {
  const { noun } = limits;
  const text = await readBodyCapped(request, limits.maxBytes, limits.timeoutMs).catch(() => null);
  if (text === null) return { refused: { status: 400, problem: 'unreadable', message: `The ${noun} could not be read.` } };
  if (typeof text !== 'string') {
    if (text.status === 408) return { refused: { status: 408, problem: 'body_timeout', message: `The ${noun} did not arrive within ${limits.timeoutMs} ms.` } };
    const hint = limits.tooLargeHint ? `: ${limits.tooLargeHint}` : '';
    return { refused: { status: 413, problem: 'too_large', message: `The ${noun} is over ${limits.maxBytes} bytes${hint}.` } };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { refused: { status: 400, problem: 'not_json', message: `The ${noun} is not JSON.` } };
  }
  const parsed = safeParse(schema, body);
  if (parsed.success) return { data: parsed.data };
  const issue = parsed.error.issues[0];
  const detail = `${issue?.path.join('.') || 'body'} ${issue?.message ?? ''}`.trim();
  return { refused: { status: 400, problem: 'invalid', message: `${limits.invalidPrefix}: ${detail}` } };
}
