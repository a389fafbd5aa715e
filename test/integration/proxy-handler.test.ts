import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxyHandler, toNodeHandler, type ProxyHandlerOptions } from '../../src/server.js';
import { startOpenAIServer } from '../support/openai-server.js';

/**
 * The proxy handler's limits (issue 20.6), over real sockets on loopback:
 * the body size is enforced while the body streams in, a slow body is cut
 * off, no configured secret comes back to the client, and the client cannot
 * pick the upstream model.
 */
const SAFETY_NET_MS = 60_000;
let upstream: Awaited<ReturnType<typeof startOpenAIServer>>;
const servers: Server[] = [];
beforeAll(async () => {
  upstream = await startOpenAIServer({ json: { ok: true } });
});
afterAll(async () => {
  await upstream.close();
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

async function proxy(options: Partial<ProxyHandlerOptions> = {}): Promise<{ port: number; url: string }> {
  const server = createServer(toNodeHandler(createProxyHandler({ upstream: { baseURL: upstream.url, apiKey: 'sk-test-secret-key-123', model: 'small-model' }, ...options })));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, url: `http://127.0.0.1:${port}/` };
}

const valid = { task: 'extract', system: 'be brief', input: 'hello', schema: { type: 'object' } };

/**
 * Sends a raw HTTP request whose body is `bodyChunks` of `chunkBytes` each, written as fast as the socket takes them,
 * and reports the status line, how many body bytes the client got to write, and whether the server closed the socket.
 */
function rawUpload(port: number, head: string, totalBytes: number, options: { stallAfter?: number } = {}): Promise<{ status: number; written: number; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let written = 0;
    let response = '';
    let stopped = false;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (!stopped && written < totalBytes && (options.stallAfter === undefined || written < options.stallAfter)) {
        const piece = chunk.subarray(0, Math.min(chunk.length, totalBytes - written, (options.stallAfter ?? Infinity) - written));
        written += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    const safety = setTimeout(() => reject(new Error('no answer within the safety net')), SAFETY_NET_MS);
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.on('data', (data) => (response += data.toString()));
    socket.on('error', () => undefined); // a reset after the server's answer is expected
    socket.on('close', () => {
      stopped = true;
      clearTimeout(safety);
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(response)?.[1] ?? 0), written, closed: true });
    });
  });
}

describe('the proxy handler under attack', () => {
  it('a declared 64 MB body is refused with 413 before it is uploaded, and the connection is closed', async () => {
    const { port } = await proxy();
    const size = 64 * 1024 * 1024;
    const result = await rawUpload(port, `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`, size);
    expect(result.status).toBe(413);
    // The answer came long before the body: at most what the socket buffers took.
    expect(result.written).toBeLessThan(16 * 1024 * 1024);
  });

  it('a 256 MB chunked body is cut off once it passes the limit (413), not read whole', async () => {
    const { port } = await proxy({ maxBodyBytes: 1_000_000 });
    const total = 256 * 1024 * 1024;
    // One chunked-encoding chunk per write would need framing; an HTTP/1.1 body without length must be chunked, so frame it.
    const result = await new Promise<{ status: number; written: number }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
      let written = 0;
      let done = false;
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const safety = setTimeout(() => reject(new Error('no answer within the safety net')), SAFETY_NET_MS);
      const pump = () => {
        while (!done && written < total) {
          written += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!done) req.end();
      };
      req.on('response', (res) => {
        done = true;
        clearTimeout(safety);
        res.resume();
        resolve({ status: res.statusCode ?? 0, written });
      });
      req.on('error', (error) => {
        if (!done) {
          done = true;
          clearTimeout(safety);
          // The server may close before the client reads the answer; the size written is what counts.
          resolve({ status: -1, written });
          void error;
        }
      });
      pump();
    });
    expect([413, -1]).toContain(result.status);
    expect(result.written).toBeLessThan(32 * 1024 * 1024);
  });

  it('a slow body (a few bytes, then nothing) gets 408 within the body timeout and its socket is closed', async () => {
    const { port } = await proxy({ bodyTimeoutMs: 300 });
    const result = await rawUpload(port, `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`, 1000, { stallAfter: 10 });
    expect(result).toMatchObject({ status: 408, closed: true });
  });

  it('a key held in an upstream header and echoed by an upstream error never comes back', async () => {
    const azureKey = 'azure-key-0123456789';
    const server = createServer(
      toNodeHandler(createProxyHandler({ upstream: { baseURL: upstream.url, model: 'small-model', headers: { 'api-key': azureKey } } })),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    upstream.enqueue((req) => ({ status: 401, body: JSON.stringify({ error: { message: `invalid api-key ${String(req.headers['api-key'])}` } }) }));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { method: 'POST', body: JSON.stringify(valid) });
    const text = await response.text();
    expect(upstream.requests.at(-1)!.headers['api-key']).toBe(azureKey);
    expect(response.status).toBe(502);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(azureKey);
  });

  it('a 200 reply that echoes the key or a header value, in a value or a key of its JSON, comes back redacted', async () => {
    const headerSecret = 'org-secret-0123456789';
    const server = createServer(
      toNodeHandler(createProxyHandler({ upstream: { baseURL: upstream.url, apiKey: 'sk-test-secret-key-123', model: 'small-model', headers: { 'x-org': headerSecret } } })),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // A compromised or buggy upstream (or a prompt that makes the model repeat its request) echoing what it was sent.
    upstream.enqueue((req) => ({
      json: {
        said: `my key is ${String(req.headers.authorization)}`,
        nested: [{ org: String(req.headers['x-org']) }],
        [String(req.headers['x-org'])]: 'a key named by the secret',
        quoted: `"${String(req.headers.authorization).slice(7)}"\\`,
      },
    }));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { method: 'POST', body: JSON.stringify(valid) });
    const text = await response.text();
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-test-secret-key-123');
    expect(response.status).toBe(200);
    expect(text).not.toContain('sk-test-secret-key-123');
    expect(text).not.toContain(headerSecret);
    expect(JSON.parse(text).output).toEqual({
      said: 'my key is Bearer [redacted]',
      nested: [{ org: '[redacted]' }],
      '[redacted]': 'a key named by the secret',
      quoted: '"[redacted]"\\',
    });
  });

  it('the client cannot choose the upstream model unless the server allows it', async () => {
    const closed = await proxy();
    const refused = await fetch(closed.url, { method: 'POST', body: JSON.stringify({ ...valid, model: 'expensive-model' }) });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.reason).toBe('model');
    const before = upstream.requests.length;
    const plain = await fetch(closed.url, { method: 'POST', body: JSON.stringify(valid) });
    expect(plain.status).toBe(200);
    expect(upstream.requests.length).toBe(before + 1);
    expect(upstream.requests.at(-1)!.body.model).toBe('small-model');

    const open = await proxy({ allowModels: ['expensive-model'] });
    const allowed = await fetch(open.url, { method: 'POST', body: JSON.stringify({ ...valid, model: 'expensive-model' }) });
    expect(allowed.status).toBe(200);
    expect(upstream.requests.at(-1)!.body.model).toBe('expensive-model');
    // Fields the client may not set at all are refused by name.
    const extra = await fetch(closed.url, { method: 'POST', body: JSON.stringify({ ...valid, baseURL: 'http://elsewhere' }) });
    expect(extra.status).toBe(400);
  });
});
