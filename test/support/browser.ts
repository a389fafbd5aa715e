import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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

/** The bare test page (test/browser/bare-page, built by the browser tests' global setup): serve it with `startDemoServer({ pageDir: BARE_PAGE_DIR })`. */
export const BARE_PAGE_DIR = fileURLToPath(new URL('../browser/bare-page/dist/', import.meta.url));

/**
 * How long a browser test waits for anything (a page start, an element, an
 * event) before it calls it hung. Only a safety net: on a shared 2-core
 * machine a demo start that takes 5 s when quiet took over 60 s under load,
 * and a test must not fail for being slow, only for being wrong.
 */
export const SAFETY_NET_MS = 300_000;

/** Debian's Chromium, driven by playwright-core; every context it makes waits up to SAFETY_NET_MS (Playwright's default is 30 s). */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(SAFETY_NET_MS);
    context.setDefaultNavigationTimeout(SAFETY_NET_MS);
    return context;
  };
  browser.newPage = async (options) => {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    // As Playwright's own newPage: the page owns its context.
    page.once('close', () => void context.close());
    return page;
  };
  return browser;
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

/** A Chromium whose whole process tree the test can kill, on a profile directory that outlives it. */
export interface KillableChromium {
  browser: Browser;
  /** SIGKILLs every process of this Chromium at once (no shutdown, no flush), and resolves when they are gone. */
  kill(): Promise<void>;
}

/**
 * Debian's Chromium on the profile `userDataDir` (IndexedDB on disk, as a
 * user's browser keeps it), started by the test itself in its own process
 * group so that the test can SIGKILL the browser process and every child
 * (renderers, storage, network) together; Playwright attaches over CDP.
 * (`launchPersistentContext` gives no process handle to kill.)
 */
export async function launchKillableChromium(userDataDir: string): Promise<KillableChromium> {
  const child = spawn(CHROMIUM_PATH, [...CHROMIUM_ARGS, ...(process.env.CRASH_VERBOSE ? ['--enable-logging=stderr', '--v=0'] : []), `--user-data-dir=${userDataDir}`, '--remote-debugging-port=0', 'about:blank'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let alive = true;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      alive = false;
      resolve();
    }),
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (found) {
        child.stderr!.off('data', onData);
        child.stderr!.resume(); // keep draining, or Chromium blocks on a full pipe
        // CRASH_VERBOSE: Chromium's own log lines about its IndexedDB backing store (where a corruption it found is named).
        if (process.env.CRASH_VERBOSE) {
          child.stderr!.on('data', (chunk: Buffer) => {
            for (const line of chunk.toString().split('\n')) if (/indexed|leveldb|corrupt|backing/i.test(line)) console.log('[chromium]', line.slice(0, 300));
          });
        }
        resolve(found[1]!);
      }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`Chromium exited (code ${code}) before it listened for DevTools:\n${text}`)));
  });
  const browser = await chromium.connectOverCDP(endpoint);
  return {
    browser,
    async kill() {
      if (alive) process.kill(-child.pid!, 'SIGKILL');
      await exited;
      // The browser process going is not enough: a child still dying may hold the profile's locks (IndexedDB's LevelDB LOCK).
      while (liveProcessesInGroup(child.pid!) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}

/** Processes of process group `pgid` that have not exited (zombies, already dead, do not count). */
function liveProcessesInGroup(pgid: number): number {
  let live = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/PID/stat: "pid (comm) state ppid pgrp ..."; comm may contain spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') live++;
    } catch {
      // The process ended while we looked.
    }
  }
  return live;
}
