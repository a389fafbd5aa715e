import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '../../src/llm/node-adapter.js';

/** A sync handler served over real HTTP on loopback (a free port), as `toNodeHandler` mounts it on Node's http. */
export async function serveOnLoopback(handler: (request: Request) => Promise<Response>, port = 0): Promise<{ url: string; port: number; server: Server; close(): Promise<void> }> {
  // A long keep-alive: a test process that is busy for seconds (PGlite's WebAssembly runs on its thread) must not see the server drop an idle socket the client is about to reuse.
  const server = createServer({ keepAliveTimeout: 120_000 }, toNodeHandler(handler));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/sync`,
    port: actual,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The dev-style authorize the tests use: `Authorization: Bearer <token>` → the token's space. */
export function bearerSpaces(spaces: Record<string, string>): (request: Request) => string | null {
  return (request) => {
    const match = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '');
    return match ? (spaces[match[1]!] ?? null) : null;
  };
}
