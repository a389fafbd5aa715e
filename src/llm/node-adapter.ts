import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Adapts a web-standard handler to Node's `http.createServer` (and Express):
 * `http.createServer(toNodeHandler(createProxyHandler({ upstream })))`.
 *
 * The body is handed over as a stream, not buffered first, so the handler's
 * size and time limits apply while it arrives. When the handler answers
 * before the whole body was read (413, 408), the connection is closed after
 * the answer: a client cannot keep uploading into a refused request or hold
 * the socket open with a slow drip.
 */
export function toNodeHandler(handler: (request: Request) => Promise<Response>): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // Kept now: once the answer is sent, Node detaches the socket from `req`.
    const socket = req.socket;
    void (async () => {
      const controller = new AbortController();
      res.on('close', () => {
        if (!res.writableEnded) controller.abort();
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
        method: req.method,
        headers,
        body: hasBody ? bodyStream(req) : undefined,
        signal: controller.signal,
        // Node's fetch needs this for a streamed request body.
        duplex: 'half',
      } as RequestInit);
      const response = await handler(request);
      const unread = hasBody && !req.readableEnded;
      res.writeHead(response.status, { ...Object.fromEntries(response.headers), ...(unread ? { connection: 'close' } : {}) });
      res.end(Buffer.from(await response.arrayBuffer()), () => {
        if (unread) socket.destroy();
      });
    })().catch(() => {
      // No error text goes back: it could carry what the handler redacts.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: { reason: 'internal', message: 'internal error' } }), () => socket.destroy());
    });
  };
}

/**
 * The request body as a web stream, read as the handler asks for it
 * (paused while the handler is not reading). Not `Readable.toWeb(req)`: once
 * a handler cancels that stream (refusing an oversized body), a late 'data'
 * event is still enqueued into the closed stream, an uncaught
 * ERR_INVALID_STATE that ends the process (nodejs/node#64529). Here a
 * cancelled stream stops taking data and leaves the socket paused; the
 * adapter closes it after the answer.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 1) <= 0) req.pause();
      });
      req.once('end', () => {
        if (finished) return;
        finished = true;
        controller.close();
      });
      req.once('error', (error) => {
        if (finished) return;
        finished = true;
        controller.error(error);
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      finished = true;
      req.pause();
    },
  });
}
