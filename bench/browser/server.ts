import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../demo/static.js';

/**
 * Serves the built benchmark page on loopback. Cross-origin isolation
 * (COOP + COEP) is what lets the page call
 * `performance.measureUserAgentSpecificMemory()`, which counts the workers too.
 */
export async function startBenchServer(): Promise<{ url: string; close(): Promise<void> }> {
  const root = fileURLToPath(new URL('./dist/', import.meta.url));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    res.setHeader('cross-origin-opener-policy', 'same-origin');
    res.setHeader('cross-origin-embedder-policy', 'require-corp');
    res.setHeader('cache-control', 'no-store');
    serveStatic(res, root, path === '/' ? 'index.html' : path.slice(1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
