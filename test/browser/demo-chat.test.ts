import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { launchChromium } from '../support/browser.js';
import { startOpenAIServer, type ReceivedRequest, type UpstreamReply } from '../support/openai-server.js';
import { episodeTitles, factTexts, openDemo, openTab, requestSummary, withMemory } from './demo-page.js';

/**
 * Chat through the demo with a real LLM path: page → demo server proxy
 * (createProxyHandler) → an OpenAI-compatible server on loopback. The key
 * lives only on the demo server.
 */
const KEY = 'sk-loopback-9f8e7d6c5b4a';
const MODEL = 'loopback-chat-1';
const DECISION = "We're going with Rust for the log parser: the GC pauses in Go killed our p99. Also, I'm vegetarian.";
const QUESTION = 'Any idea what I could cook tonight?';
const FACT = 'The user is vegetarian.';
const EPISODE_GOAL = 'Choose the language for the log parser';

/** The upstream's answers, by the task name engram puts in `response_format.json_schema.name`. */
function upstreamReply(req: ReceivedRequest): UpstreamReply {
  const task = req.body?.response_format?.json_schema?.name as string | undefined;
  const input = String(req.body?.messages?.[1]?.content ?? '');
  switch (task) {
    case 'reply':
      return { json: { reply: input.includes(QUESTION) ? 'A chickpea curry: quick, and meat-free as you like.' : 'Rust is a good fit when tail latency matters.' } };
    case 'extract':
      return input.includes("going with Rust")
        ? { json: { facts: [{ text: FACT, category: 'preference', importance: 0.8 }], hasEpisode: true } }
        : { json: { facts: [], hasEpisode: false } };
    case 'episode':
      return {
        json: {
          goal: EPISODE_GOAL,
          context: 'GC pauses in the Go parser pushed p99 latency up',
          approach: 'Compared the Go parser with a Rust rewrite',
          outcome: 'The team chose Rust for the log parser',
          quality: 'success',
          lessons: 'Pick a language without GC pauses when tail latency matters',
          tags: ['parser', 'rust'],
          actors: ['user', 'assistant'],
        },
      };
    case 'profile':
      return { json: { updates: {} } };
    default:
      return { status: 400, body: JSON.stringify({ error: { message: `the test upstream has no answer for task ${task}` } }) };
  }
}

let browser: Browser;
let upstream: Awaited<ReturnType<typeof startOpenAIServer>>;
let server: Awaited<ReturnType<typeof startDemoServer>>;
beforeAll(async () => {
  upstream = await startOpenAIServer(upstreamReply);
  server = await startDemoServer({ upstream: { baseURL: upstream.url, apiKey: KEY, model: MODEL } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await upstream?.close();
});

describe('the demo chat with an OpenAI-compatible upstream on loopback', () => {
  it('replies with memory in the prompt, stores the fact at once and the episode after idle, and keeps the key off the page', async () => {
    const session = await openDemo(browser, server.url);
    const { page } = session;
    const responseBodies: string[] = [];
    page.on('response', async (response) => {
      if (new URL(response.url()).pathname.startsWith('/api/')) responseBodies.push(await response.text().catch(() => ''));
    });
    expect(await page.locator('#status').textContent()).toContain(`LLM: ${MODEL} via this server's proxy`);
    expect(await page.locator('#no-llm').count()).toBe(0);

    const send = async (text: string, replies: number) => {
      await page.fill('#chat-input', text);
      await page.click('#chat-send');
      await page.locator('#messages .msg.assistant').nth(replies - 1).waitFor();
      // Each turn notes under its reply what observe() did to memory.
      await page.locator('#messages .memory-note').nth(replies - 1).waitFor();
      return page.locator('#messages .memory-note').nth(replies - 1).textContent();
    };

    expect(await send(DECISION, 1)).toBe('observe: 1 new, 0 merged facts; episode scheduled');
    expect(await page.locator('#messages .msg.assistant').first().textContent()).toBe('Rust is a good fit when tail latency matters.');
    // The fact is stored by observe() itself and shown in the inspector.
    await openTab(page, 'Facts', 'Facts (1)');
    expect(await factTexts(page)).toEqual([FACT]);

    // The episode is written in the background; after idle() it is in the inspector.
    await withMemory(page, (memory) => memory.idle(), null);
    await openTab(page, 'Episodes', 'Episodes (1)');
    expect(await episodeTitles(page)).toEqual([EPISODE_GOAL]);

    // The next reply's prompt carries formatContext() of the recalled memories, shown on screen too.
    expect(await send(QUESTION, 2)).toMatch(/^observe: 0 new, 0 merged facts; episode not scheduled/);
    expect(await page.locator('#messages .msg.assistant').nth(1).textContent()).toBe('A chickpea curry: quick, and meat-free as you like.');
    expect(await page.locator('#chat-context').textContent()).toContain(FACT);
    const replyCalls = upstream.requests.filter((r) => r.body?.response_format?.json_schema?.name === 'reply');
    expect(replyCalls).toHaveLength(2);
    expect(replyCalls[1]!.body.messages[1].content).toContain(`fact) ${FACT}`);
    expect(replyCalls[1]!.body.messages[1].content).toContain(`User: ${QUESTION}`);

    // What the upstream received: the configured model, a JSON schema per task, the key as a bearer token.
    const tasks = upstream.requests.map((r) => r.body?.response_format?.json_schema?.name);
    expect(tasks.filter((t) => t === 'extract')).toHaveLength(2);
    expect(tasks.filter((t) => t === 'episode')).toHaveLength(1);
    for (const request of upstream.requests) {
      expect(request.path).toBe('/v1/chat/completions');
      expect(request.body.model).toBe(MODEL);
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.body.response_format.type).toBe('json_schema');
      expect(request.body.response_format.json_schema.schema.type).toBe('object');
    }
    const extractSchema = upstream.requests.find((r) => r.body.response_format.json_schema.name === 'extract')!.body.response_format.json_schema.schema;
    expect(Object.keys(extractSchema.properties).sort()).toEqual(['facts', 'hasEpisode']);

    // The key reached only the upstream: never a page response, never the DOM.
    expect(responseBodies.length).toBeGreaterThan(0);
    expect(responseBodies.filter((body) => body.includes(KEY))).toEqual([]);
    expect(await page.content()).not.toContain(KEY);
    const { paths, foreignHosts } = requestSummary(session.requests);
    expect(paths).toContain('/api/llm');
    expect(foreignHosts).toEqual([]);
    expect(session.errors).toEqual([]);
    await session.context.close();
  });
});
