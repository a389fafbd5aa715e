import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpProxy, openAICompatible, type EpisodeEvent } from '../../src/index.js';
import { createProxyHandler, toNodeHandler } from '../../src/server.js';
import { startOpenAIServer, type ReceivedRequest } from '../support/openai-server.js';
import { memoryFixture } from '../support/memory-fixture.js';

const draft = {
  goal: 'Decide how to deploy the billing service',
  context: 'Heroku costs tripled after the last pricing change',
  approach: 'Compared Fly.io, Render and a small Kubernetes cluster',
  outcome: 'Moved billing to Fly.io; Kubernetes was too much to operate',
  quality: 'success',
  tags: ['infra', 'billing'],
  actors: ['user', 'assistant'],
};

/** Replies by task, read from the system prompt the way a real model would see it. */
function byTask(req: ReceivedRequest) {
  const system: string = req.body.messages[0].content;
  if (system.includes('"hasEpisode"')) return { json: { facts: [{ text: 'The user runs the billing service.', category: 'profile', importance: 0.7 }], hasEpisode: true }, usage: { prompt_tokens: 100, completion_tokens: 20 } };
  if (system.includes('episodic memory')) return { json: draft, usage: { prompt_tokens: 200, completion_tokens: 80 } };
  if (system.includes('compact profile')) return { json: { updates: {} } };
  return { status: 500, body: '{"error":{"message":"unexpected task"}}' };
}

let upstream: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  upstream = await startOpenAIServer(byTask);
});
afterAll(() => upstream.close());

const { open } = memoryFixture({ defaults: { capture: { cooldownTurns: 0, cooldownMinutes: 0 } } });

const turn = { userId: 'dev', sessionId: 'chat-1', user: 'We moved billing to Fly.io, Kubernetes was too much.', assistant: 'Good call: Fly.io fits a small team.' };

describe('observe() against an OpenAI-compatible server on loopback', () => {
  it('runs stage 1 and stage 2 with the right model each, the schema and the system prompt', async () => {
    const llm = openAICompatible({ baseURL: upstream.url, apiKey: 'sk-loopback', model: 'fallback', prices: { inputPerMTok: 1, outputPerMTok: 4 } });
    const m = await open({ llm, extraction: { model: 'fast-model', episodeModel: 'smart-model' } });
    const events: EpisodeEvent[] = [];
    m.on('episode', (e) => events.push(e));
    const start = upstream.requests.length;
    const result = await m.observe(turn);
    expect(result).toMatchObject({ facts: { stored: 1 }, episodeScheduled: true });
    await m.idle();
    const sent = upstream.requests.slice(start);
    const stage1 = sent.find((r) => r.body.messages[0].content.includes('"hasEpisode"'))!;
    const stage2 = sent.find((r) => r.body.messages[0].content.includes('episodic memory'))!;
    expect(stage1.body.model).toBe('fast-model');
    expect(stage2.body.model).toBe('smart-model');
    expect(stage1.body.response_format.json_schema.schema.required).toEqual(expect.arrayContaining(['facts', 'hasEpisode']));
    expect(stage2.body.response_format.json_schema.schema.required).toEqual(expect.arrayContaining(['goal', 'context', 'approach', 'outcome', 'quality', 'tags', 'actors']));
    expect(stage2.body.max_tokens).toBeGreaterThan(0); // the 0.15 USD budget, priced
    for (const r of sent) expect(r.headers.authorization).toBe('Bearer sk-loopback');
    expect(events).toEqual([expect.objectContaining({ outcome: 'stored', costUsd: (200 * 1 + 80 * 4) / 1e6 })]);
    const [episode] = await m.episodes.list({ userId: 'dev' });
    expect(episode).toMatchObject({ goal: draft.goal, sessionId: 'chat-1', source: 'episode' });
    await m.close();
  });

  it('through httpProxy and createProxyHandler: the page never holds the key', async () => {
    const handler = createProxyHandler({ upstream: { baseURL: upstream.url, apiKey: 'sk-only-on-server', model: 'proxied' } });
    const server = createServer(toNodeHandler(handler));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/llm`;
    const m = await open({ llm: httpProxy({ url }) });
    const start = upstream.requests.length;
    expect((await m.observe(turn)).episodeScheduled).toBe(true);
    await m.idle();
    expect(await m.episodes.list({ userId: 'dev' })).toHaveLength(1);
    const sent = upstream.requests.slice(start);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const r of sent) expect(r.headers.authorization).toBe('Bearer sk-only-on-server');
    await m.close();
    server.closeAllConnections();
    server.close();
  });
});
