import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (Playwright's own browser download cannot work offline). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for this machine: headless as root, and no background traffic to hosts the closed network refuses. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** Debian's Chromium, driven by playwright-core. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
}

/** Records every URL a page requests (for privacy assertions) and surfaces page errors in the test output. */
export function watchPage(page: Page): { requests: string[]; errors: string[] } {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('worker', (worker) => worker.on('console', (message) => message.type() === 'error' && errors.push(`[worker] ${message.text()}`)));
  return { requests, errors };
}

/** Hosts other than loopback that a list of URLs touched. */
export function nonLocalHosts(urls: string[]): string[] {
  return [...new Set(urls.map((u) => new URL(u)).filter((u) => u.protocol.startsWith('http') && u.hostname !== '127.0.0.1' && u.hostname !== 'localhost').map((u) => u.host))];
}
