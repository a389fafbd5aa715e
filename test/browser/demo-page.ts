import type { Browser, BrowserContext, Dialog, Page } from 'playwright-core';
import type { Memory } from '../../src/index.js';
import { SAFETY_NET_MS } from '../support/browser.js';

/**
 * Driving the demo page from the browser tests. Requests are recorded on the
 * browser CONTEXT, so requests made by the engine's Web Worker (model files,
 * ONNX runtime) are in the log too, not only the page's own.
 */
export interface DemoSession {
  context: BrowserContext;
  page: Page;
  /** Every URL requested by the page or its workers, in order. */
  requests: string[];
  /** Page errors, console errors (page and worker). */
  errors: string[];
  /** Every dialog the page opened (alert, confirm, prompt), with its message. */
  dialogs: string[];
  /** How to answer the next dialog (e.g. accept a confirm); unexpected dialogs are dismissed. */
  answerNextDialog(answer: (dialog: Dialog) => Promise<void>): void;
}

export async function openDemo(browser: Browser, url: string, options: { context?: BrowserContext } = {}): Promise<DemoSession> {
  const context = options.context ?? (await browser.newContext({ viewport: { width: 1400, height: 1000 } }));
  const requests: string[] = [];
  const errors: string[] = [];
  const dialogs: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('worker', (worker) => worker.on('console', (message) => message.type() === 'error' && errors.push(`[worker] ${message.text()}`)));
  const answers: ((dialog: Dialog) => Promise<void>)[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void (answers.shift() ?? ((d: Dialog) => d.dismiss()))(dialog);
  });
  await page.goto(url);
  await waitReady(page);
  return { context, page, requests, errors, dialogs, answerNextDialog: (answer) => answers.push(answer) };
}

/** The demo sets `window.engramDemo.ready` once the memory is open and the inspector drawn. */
export async function waitReady(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as unknown as { engramDemo?: { ready: boolean } }).engramDemo?.ready, null, { timeout: SAFETY_NET_MS });
}

/** Runs `fn` in the page with the demo's Memory (the public API, backed by the Web Worker). */
export function withMemory<R, A>(page: Page, fn: (memory: Memory, arg: A) => Promise<R>, arg: A): Promise<R> {
  return page.evaluate(
    async ({ source, arg }) => {
      const { memory } = (window as unknown as { engramDemo: { memory: Memory } }).engramDemo;
      // eslint-disable-next-line @typescript-eslint/no-implied-eval
      return (new Function(`return (${source})`)() as (m: Memory, a: unknown) => Promise<unknown>)(memory, arg);
    },
    { source: fn.toString(), arg },
  ) as Promise<R>;
}

/** Waits until the status line says `text`. */
export async function waitForStatus(page: Page, text: string, timeout = SAFETY_NET_MS): Promise<void> {
  await page.waitForFunction((t) => document.getElementById('status')?.textContent?.includes(t), text, { timeout });
}

/** Opens an inspector tab and waits until its body shows `expect` (a heading or any text). */
export async function openTab(page: Page, name: 'Facts' | 'Episodes' | 'Tasks' | 'Recall' | 'Activity' | 'Data', expect: string | RegExp): Promise<void> {
  await page.click(`#tab-${name.toLowerCase()}`);
  await page.locator('#tab-body').getByText(expect).first().waitFor({ timeout: SAFETY_NET_MS });
}

/** The texts of the facts in the Facts tab, as the user sees them. */
export async function factTexts(page: Page): Promise<string[]> {
  return page.locator('#facts-table tr.fact td.fact-text').allTextContents();
}

/** The episode titles in the Episodes tab, in the order drawn. */
export async function episodeTitles(page: Page): Promise<string[]> {
  return page.locator('#episodes .episode-title').allTextContents();
}

/** Paths (with query) requested from the demo server, and every host other than loopback. */
export function requestSummary(requests: string[]): { paths: string[]; foreignHosts: string[] } {
  const urls = requests.map((u) => new URL(u)).filter((u) => u.protocol.startsWith('http'));
  return {
    paths: [...new Set(urls.map((u) => u.pathname))],
    foreignHosts: [...new Set(urls.filter((u) => u.hostname !== '127.0.0.1' && u.hostname !== 'localhost').map((u) => u.host))],
  };
}
