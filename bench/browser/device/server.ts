import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../../demo/static.js';

/**
 * Serves the built device page on loopback, cross-origin isolated as the
 * benchmark page is (bench/browser/server.ts), and for the profiling session
 * an unminified engine worker under /profile/ with the package's bundled
 * model under /models/, where that worker looks for it (`../models/` from
 * its own URL, src/default-model-files.ts). `pageRoot` serves another
 * build of the page from the same origin (so the same IndexedDB): the
 * paired observe harness (../device-observe.ts) switches it between the
 * base and new builds.
 */
export async function startDeviceServer(profileDir: string, pageRoot?: () => string): Promise<{ url: string; close(): Promise<void> }> {
  const built = fileURLToPath(new URL('./dist/', import.meta.url));
  const models = fileURLToPath(new URL('../../../models/', import.meta.url));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    res.setHeader('cross-origin-opener-policy', 'same-origin');
    res.setHeader('cross-origin-embedder-policy', 'require-corp');
    res.setHeader('cache-control', 'no-store');
    if (path.startsWith('/profile/')) serveStatic(res, profileDir, path.slice('/profile/'.length));
    else if (path.startsWith('/models/')) serveStatic(res, models, path.slice('/models/'.length));
    else serveStatic(res, pageRoot?.() ?? built, path === '/' ? 'index.html' : path.slice(1));
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
