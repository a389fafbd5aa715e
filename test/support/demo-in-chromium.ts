import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { launchChromium } from './browser.js';

/**
 * The demo server (built page, offline model) and Debian's Chromium, started
 * once before a test file's tests and stopped after them. Tests that only
 * open memories of their own serve the bare page (`{ pageDir: BARE_PAGE_DIR }`):
 * the demo's own memory would load the model once more at every page start. Read `browser` and
 * `url` inside tests, not at import time.
 */
export function useDemoInChromium(options: { pageDir?: string } = {}): { readonly browser: Browser; readonly url: string } {
  let browser: Browser | undefined;
  let server: Awaited<ReturnType<typeof startDemoServer>> | undefined;
  beforeAll(async () => {
    server = await startDemoServer({ pageDir: options.pageDir });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  const started = <T,>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useDemoInChromium: read `browser` and `url` inside a test, after beforeAll has run.');
    return value;
  };
  return {
    get browser() {
      return started(browser);
    },
    get url() {
      return started(server).url;
    },
  };
}
