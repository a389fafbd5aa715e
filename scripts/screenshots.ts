/**
 * Screenshots of the demo for the README, taken from the real page in
 * Chromium with the offline model and no LLM (the sample conversation plays
 * with its recorded replies, labelled as such on screen).
 *
 *   npm run screenshots      builds dist/ and the demo page first; writes docs/*.png
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startDemoServer } from '../demo/server.js';
import { launchChromium } from '../test/support/browser.js';

const docs = fileURLToPath(new URL('../docs/', import.meta.url));

async function waitForStatus(page: Page, text: string): Promise<void> {
  await page.waitForFunction((t) => document.getElementById('status')?.textContent?.includes(t), text, { timeout: 120_000 });
}

async function openTab(page: Page, name: string, expect: string): Promise<void> {
  await page.click(`#tab-${name.toLowerCase()}`);
  await page.locator('#tab-body').getByText(expect).first().waitFor({ timeout: 30_000 });
}

async function shoot(page: Page, file: string): Promise<void> {
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  await page.screenshot({ path: `${docs}${file}` });
  console.log(`docs/${file}`);
}

await mkdir(docs, { recursive: true });
const server = await startDemoServer();
const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 920 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(server.url);
  await page.waitForFunction(() => (window as unknown as { engramDemo?: { ready: boolean } }).engramDemo?.ready, null, { timeout: 120_000 });

  await page.click('#load-sample');
  await waitForStatus(page, 'Sample conversation loaded');
  await page.click('#run-task');
  await waitForStatus(page, 'Sample task completed');

  // The chat column beside the facts the conversation produced, one with its history open.
  await openTab(page, 'Facts', 'Facts (');
  await page.click('tr.fact:has-text("3 hours 45") button.history');
  await shoot(page, 'chat.png');

  // The recall explorer: every score part of every hit, and the prompt context.
  await openTab(page, 'Recall', 'Recall explorer');
  await page.fill('#recall-query', 'which database should the dashboards use?');
  await page.click('#recall-button');
  await page.locator('#recall-results tr.hit').first().waitFor();
  await shoot(page, 'inspector.png');

  await openTab(page, 'Episodes', 'Episodes (');
  await page.fill('#replay-topic', 'analytics database');
  await page.click('#replay-button');
  await page.locator('#replay').getByText('Choose').first().waitFor();
  await shoot(page, 'inspector-episodes.png');

  await openTab(page, 'Tasks', 'Task episodes (');
  await shoot(page, 'inspector-tasks.png');

  await openTab(page, 'Activity', 'Event log');
  await shoot(page, 'inspector-activity.png');
  await context.close();
} finally {
  await browser.close();
  await server.close();
}
