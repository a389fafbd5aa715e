import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted reply of the fake upstream. */
export type UpstreamReply =
  /** A chat completion whose message content is JSON.stringify(json), or `raw` verbatim. */
  | { json?: unknown; raw?: string; usage?: { prompt_tokens: number; completion_tokens: number }; delayMs?: number }
  /** Any HTTP status and body. */
  | { status: number; body: string; delayMs?: number }
  /** HTTP 200 whose body is sent in these pieces (chunked, no content-length), `intervalMs` apart: slow drips and endless streams. */
  | { chunks: Iterable<string>; intervalMs: number; delayMs?: number };

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions
 * protocol with scripted replies. Every request is recorded for assertions.
 * Replies come from the queue first, then from `fallback`.
 */
export async function startOpenAIServer(fallback?: UpstreamReply | ((req: ReceivedRequest) => UpstreamReply)) {
  const requests: ReceivedRequest[] = [];
  const queue: (UpstreamReply | ((req: ReceivedRequest) => UpstreamReply))[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep the raw text
    }
    const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    requests.push(received);
    const next = queue.shift() ?? fallback;
    const reply = typeof next === 'function' ? next(received) : next ?? { status: 500, body: '{"error":{"message":"no scripted reply"}}' };
    if (reply.delayMs) {
      const aborted = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), reply.delayMs);
        res.on('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (aborted) return;
    }
    if ('chunks' in reply) {
      res.writeHead(200, { 'content-type': 'application/json' });
      let closed = false;
      res.on('close', () => (closed = true));
      for (const piece of reply.chunks) {
        if (closed) return;
        res.write(piece);
        await new Promise((resolve) => setTimeout(resolve, reply.intervalMs));
      }
      res.end();
      return;
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body);
      return;
    }
    const content = reply.raw ?? JSON.stringify(reply.json);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'cmpl-test', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }], usage: reply.usage }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Queues replies, used in order before the fallback. */
    enqueue: (...replies: (UpstreamReply | ((req: ReceivedRequest) => UpstreamReply))[]) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
