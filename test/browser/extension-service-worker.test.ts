import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleScript } from '../support/bundle-script.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, SAFETY_NET_MS } from '../support/browser.js';

/**
 * engram in an extension's background service worker (issue 19), in
 * Chromium with real unpacked MV3 extensions: there is no `Worker` and no
 * `import()`, so engram runs in-process. Bundled as one file, it starts on
 * the offline model packed in the extension (a static model: no ONNX runtime)
 * and recalls; bundled with code splitting, `createMemory` rejects with a
 * typed ContextError ('service-worker') that says how to bundle it, not the
 * platform's bare TypeError.
 */
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const MODEL = 'minishlab/potion-base-4M-int8';
let root: string;
let context: BrowserContext;

async function extension(name: string, options: { split: boolean }): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const background = options.split ? { service_worker: 'sw.js', type: 'module' } : { service_worker: 'sw.js' };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: `engram sw probe (${name})`, version: '1.0', background }));
  cpSync(here(`../../../shared/models/${MODEL}`), join(dir, 'models', MODEL), { recursive: true, filter: (path) => !path.includes('model2vec') });
  // One file, or engram's lazy chunks left as import() calls (what a code-splitting build of a service worker does).
  await bundleScript(here('./extension/sw-probe.ts'), dir, 'sw', { split: options.split });
  return dir;
}

async function probeOf(name: string): Promise<Record<string, any>> {
  // A safety net for an extension that never starts its worker, never a speed requirement (see SAFETY_NET_MS).
  const deadline = Date.now() + SAFETY_NET_MS;
  for (;;) {
    for (const worker of context.serviceWorkers()) {
      const manifestName = await worker.evaluate(() => (globalThis as unknown as { chrome: { runtime: { getManifest(): { name: string } } } }).chrome.runtime.getManifest().name);
      if (manifestName.endsWith(`(${name})`)) return worker.evaluate(() => (self as unknown as { engramProbe: Promise<Record<string, unknown>> }).engramProbe);
    }
    if (Date.now() > deadline) throw new Error(`no service worker for the "${name}" extension`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'engram-sw-extensions-'));
  const dirs = [await extension('bundled', { split: false }), await extension('split', { split: true })];
  context = await chromium.launchPersistentContext(join(root, 'profile'), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${dirs.join(',')}`, `--load-extension=${dirs.join(',')}`],
  });
});
afterAll(async () => {
  await context?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("engram in an extension's service worker (Chromium, unpacked MV3)", () => {
  it('bundled as one file: runs in-process on the offline model packed in the extension, and recalls', async () => {
    expect(await probeOf('bundled')).toEqual({ top: 'The user plays the cello in an amateur orchestra' });
  }, SAFETY_NET_MS);

  it('bundled with code splitting: a typed ContextError that says to bundle it as one file', async () => {
    const result = await probeOf('split');
    expect(result).toMatchObject({ name: 'ContextError', code: 'CONTEXT', context: 'service-worker', isContextError: true });
    expect(result.message).toContain('one file');
  }, SAFETY_NET_MS);
});
