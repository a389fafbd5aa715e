import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { SAMPLE_CONVERSATION } from '../../demo/src/sample-conversation.js';
import { launchChromium, SAFETY_NET_MS } from '../support/browser.js';

/**
 * examples/ai-chat in Chromium: an AI SDK chat (streamText on the AI SDK's
 * mock model, recorded replies) with engram's memoryMiddleware. A turn is
 * observed into the store after its stream ends; the next turn's system
 * prompt carries what was recalled from it.
 */
interface ExampleHooks {
  send(text: string): Promise<string>;
  settled(): Promise<void>;
  systemPrompts(): string[];
  facts(): Promise<{ text: string; sessionId: string | null }[]>;
  sessionId: string;
}
declare const example: ExampleHooks;

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
let browser: Browser;
let server: Awaited<ReturnType<typeof startDemoServer>>;
beforeAll(async () => {
  await build({ configFile: here('../../examples/ai-chat/vite.config.ts'), logLevel: 'error' });
  server = await startDemoServer({ pageDir: here('../../examples/ai-chat/dist/') });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('observes a streamed turn into the store and puts the recalled fact into the next system prompt', async () => {
  const context = await browser.newContext();
  const outside: string[] = [];
  const errors: string[] = [];
  context.on('request', (request) => !request.url().startsWith(server.url) && !request.url().startsWith('data:') && outside.push(request.url()));
  const page: Page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(server.url);
  await page.waitForFunction(() => typeof (window as unknown as { example?: unknown }).example === 'object', undefined, { timeout: SAFETY_NET_MS });

  const first = SAMPLE_CONVERSATION[0]!;
  expect(await page.evaluate((text) => example.send(text), first.user)).toBe(first.assistant);
  await page.evaluate(() => example.settled());
  const sessionId = await page.evaluate(() => example.sessionId);
  const facts = await page.evaluate(() => example.facts());
  expect(facts.map((f) => f.text).sort()).toEqual(first.extract.facts.map((f) => f.text).sort());
  expect(facts.every((f) => f.sessionId === sessionId)).toBe(true);
  await expect.poll(() => page.locator('#facts li').allTextContents()).toContain('The user lives in Porto.');

  const reply = await page.evaluate(() => example.send('Where do I live these days?'));
  const prompts = await page.evaluate(() => example.systemPrompts());
  expect(prompts).toHaveLength(2);
  expect(prompts[0]).not.toContain('The user lives in Porto.'); // nothing was known before the first turn
  expect(prompts[1]!.startsWith('You are a friendly assistant. Keep answers short.\n\n')).toBe(true);
  expect(prompts[1]).toContain(', fact) The user lives in Porto.');
  expect(reply).toContain('The user lives in Porto.');
  expect(await page.locator('#system').textContent()).toContain(', fact) The user lives in Porto.');

  expect(errors).toEqual([]);
  expect(outside).toEqual([]);
  await context.close();
});
