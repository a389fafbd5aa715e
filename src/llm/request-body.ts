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
