/**
 * The demo server: serves the built page, the offline model, the ONNX
 * runtime's WebAssembly files, and the LLM proxy (keys stay here).
 *
 *   npm run demo                      offline: no LLM, everything else works
 *   ENGRAM_LLM_BASE_URL=https://api.openai.com/v1 ENGRAM_LLM_API_KEY=sk-... ENGRAM_LLM_MODEL=gpt-4o-mini npm run demo
 *
 * Environment: PORT (default 5173), HOST (default 127.0.0.1), ENGRAM_MODELS_DIR
 * (default ../shared/models when it exists), ENGRAM_DEMO_HUB_DIR (where the
 * sync hub keeps its PGlite database; default demo/.hub, kept across
 * restarts: the windows' stores keep their cursors in the hub's stream, and
 * an emptied hub answers them 'expired').
 *
 * It also runs a sync hub (demo/hub.ts): open `/?device=phone` and
 * `/?device=laptop` side by side, and each window is a device syncing
 * through it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createProxyHandler, toNodeHandler } from '../src/server.js';
import { startDemoHub, type DemoHub } from './hub.js';
import { serveStatic } from './static.js';

export interface DemoServerOptions {
  port?: number;
  host?: string;
  /** Built page folder (default demo/dist). */
  pageDir?: string;
  modelsDir?: string;
  /** OpenAI-compatible upstream for chat and extraction; none = offline mode. */
  upstream?: { baseURL: string; apiKey?: string; model: string };
  /** A sync hub to serve at `/sync/` on the page's own origin (createSyncHandler through toNodeHandler). */
  sync?: (req: IncomingMessage, res: ServerResponse) => void;
  /** The demo's own hub (demo/hub.ts): served at `/sync/`, and its token and space handed to the demo page (`/api/config`), which then offers sync. */
  hub?: Pick<DemoHub, 'handler' | 'token' | 'space'>;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export async function startDemoServer(options: DemoServerOptions = {}): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const pageDir = options.pageDir ?? here('./dist/');
  const modelsDir = options.modelsDir ?? here('../../shared/models/');
  const ortDir = here('../node_modules/onnxruntime-web/dist/');
  if (!existsSync(`${pageDir}/index.html`)) throw new Error(`The demo page is not built (${pageDir}); run "npm run demo".`);
  if (!existsSync(modelsDir)) throw new Error(`No model folder at ${modelsDir}; set ENGRAM_MODELS_DIR.`);

  const proxy = options.upstream ? toNodeHandler(createProxyHandler({ upstream: options.upstream, maxCostUsd: 0.5, timeoutMs: 120_000 })) : undefined;
  const sync = options.hub?.handler ?? options.sync;
  const config = JSON.stringify({ llm: !!options.upstream, model: options.upstream?.model ?? null, sync: options.hub ? { token: options.hub.token, space: options.hub.space } : null });

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/api/config') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(config);
    } else if (path === '/api/llm') {
      if (proxy) proxy(req, res);
      else {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { reason: 'no_llm', message: 'This demo server has no LLM configured.' } }));
      }
    } else if (sync && path.startsWith('/sync/')) {
      sync(req, res);
    } else if (path.startsWith('/models/')) serveStatic(res, modelsDir, path.slice('/models/'.length));
    else if (path.startsWith('/ort/')) serveStatic(res, ortDir, path.slice('/ort/'.length));
    else serveStatic(res, pageDir, path === '/' ? 'index.html' : path.slice(1));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = process.env;
  const upstream = env.ENGRAM_LLM_BASE_URL && env.ENGRAM_LLM_MODEL ? { baseURL: env.ENGRAM_LLM_BASE_URL, apiKey: env.ENGRAM_LLM_API_KEY, model: env.ENGRAM_LLM_MODEL } : undefined;
  const hubDir = env.ENGRAM_DEMO_HUB_DIR ?? here('./.hub/');
  mkdirSync(hubDir, { recursive: true });
  const hub = await startDemoHub({ dir: hubDir });
  const { url, close } = await startDemoServer({ port: Number(env.PORT ?? 5173), host: env.HOST ?? '127.0.0.1', modelsDir: env.ENGRAM_MODELS_DIR, upstream, hub });
  console.log(`engram demo: ${url}`);
  console.log(`Sync: open ${url}?device=phone and ${url}?device=laptop side by side (hub: PGlite in ${hubDir}).`);
  console.log(upstream ? `LLM: ${upstream.model} at ${new URL(upstream.baseURL).host} (through this server's proxy)` : 'LLM: none (offline mode). Set ENGRAM_LLM_BASE_URL, ENGRAM_LLM_API_KEY and ENGRAM_LLM_MODEL to chat.');
  console.log('Press Ctrl+C to stop.');
  process.once('SIGINT', () => void close().then(() => hub.close()).then(() => process.exit(0)));
}
