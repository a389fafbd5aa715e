import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpProxy, openAICompatible, ProviderError, ValidationError, type LLMRequest } from '../../src/index.js';
import { createProxyHandler, toNodeHandler } from '../../src/server.js';
import { startOpenAIServer } from '../support/openai-server.js';

let upstream: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  upstream = await startOpenAIServer();
});
afterAll(async () => {
  await upstream.close();
});

const request = (overrides: Partial<LLMRequest> = {}): LLMRequest => ({
  task: 'extract',
  system: 'SYSTEM PROMPT',
  input: 'the exchange',
  schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  signal: AbortSignal.timeout(5000),
  ...overrides,
});

describe('openAICompatible', () => {
  it('sends model, system prompt, input and the JSON schema; parses the reply; prices the usage', async () => {
    const llm = openAICompatible({ baseURL: upstream.url, apiKey: 'sk-secret', model: 'default-model', prices: { inputPerMTok: 1, outputPerMTok: 2 } });
    upstream.enqueue({ json: { ok: true }, usage: { prompt_tokens: 1000, completion_tokens: 500 } });
    const result = await llm(request({ model: 'chosen-model' }));
    expect(result.output).toEqual({ ok: true });
    expect(result.costUsd).toBeCloseTo((1000 * 1 + 500 * 2) / 1e6, 10);
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-secret');
    expect(sent.body.model).toBe('chosen-model');
    expect(sent.body.messages).toEqual([{ role: 'system', content: 'SYSTEM PROMPT' }, { role: 'user', content: 'the exchange' }]);
    expect(sent.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'extract', schema: request().schema } });
  });

  it('caps max_tokens from the budget when prices are known', async () => {
    const llm = openAICompatible({ baseURL: upstream.url, model: 'm', prices: { inputPerMTok: 0, outputPerMTok: 10 } });
    upstream.enqueue({ json: {} });
    await llm(request({ maxCostUsd: 0.001 }));
    expect(upstream.requests.at(-1)!.body.max_tokens).toBe(100);
  });

  const failures: [string, Parameters<typeof upstream.enqueue>[0], string][] = [
    ['HTTP 500', { status: 500, body: '{"error":{"message":"boom"}}' }, 'http'],
    ['non-JSON content', { raw: 'Sure! Here are the facts: none' }, 'parse'],
    ['a body that is not JSON', { status: 200, body: '<html>oops</html>' }, 'parse'],
    ['an error flag in a 200 body', { status: 200, body: '{"error":{"message":"overloaded"}}' }, 'error_flag'],
    ['no choices', { status: 200, body: '{"choices":[]}' }, 'parse'],
  ];
  for (const [name, reply, reason] of failures) {
    it(`${name} → ProviderError(${reason})`, async () => {
      const llm = openAICompatible({ baseURL: upstream.url, model: 'm' });
      upstream.enqueue(reply);
      const error = await llm(request()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).details.reason).toBe(reason);
    });
  }

  it('a slow upstream past the signal → ProviderError(timeout)', async () => {
    const llm = openAICompatible({ baseURL: upstream.url, model: 'm' });
    upstream.enqueue({ json: {}, delayMs: 2000 });
    const error = await llm(request({ signal: AbortSignal.timeout(100) })).catch((e: unknown) => e);
    expect((error as ProviderError).details.reason).toBe('timeout');
  });

  it('validates its options', () => {
    expect(() => openAICompatible({ baseURL: 'not a url', model: 'm' })).toThrow(ValidationError);
    expect(() => openAICompatible({ baseURL: upstream.url } as never)).toThrow(/model/);
  });
});

describe('httpProxy → createProxyHandler → upstream, end to end on loopback', () => {
  let proxyUrl: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const handler = createProxyHandler({ upstream: { baseURL: upstream.url, apiKey: 'sk-server-only', model: 'server-model', prices: { inputPerMTok: 0, outputPerMTok: 10 } }, maxCostUsd: 0.01, timeoutMs: 300 });
    const server = createServer(toNodeHandler(handler));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/llm`;
    close = () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); });
  });
  afterAll(() => close());

  it('forwards the call, keeps the key on the server, and clamps the budget', async () => {
    const llm = httpProxy({ url: proxyUrl, headers: { 'x-app-session': 'abc' } });
    upstream.enqueue({ json: { ok: true }, usage: { prompt_tokens: 10, completion_tokens: 5 } });
    const result = await llm(request({ maxCostUsd: 1 }));
    expect(result.output).toEqual({ ok: true });
    const sent = upstream.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-server-only');
    expect(sent.body.model).toBe('server-model');
    // budget: min(request 1, handler 0.01) at $10/Mtok output → at most 1,000 tokens (minus the input estimate)
    expect(sent.body.max_tokens).toBeLessThanOrEqual(1000);
    expect(sent.headers['x-app-session']).toBeUndefined();
  });

  it('never echoes the upstream key, even when the upstream error contains it', async () => {
    upstream.enqueue({ status: 401, body: '{"error":{"message":"Incorrect API key provided: sk-server-only"}}' });
    const response = await fetch(proxyUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task: 't', system: 's', input: 'i', schema: {} }) });
    const text = await response.text();
    expect(response.status).toBe(502);
    expect(text).not.toContain('sk-server-only');
    expect(text).toContain('[redacted]');
    for (const [, value] of response.headers) expect(value).not.toContain('sk-server-only');
  });

  it('maps a slow upstream to 504 timeout, bad bodies to 400 and other methods to 405', async () => {
    upstream.enqueue({ json: {}, delayMs: 2000 });
    const error = await httpProxy({ url: proxyUrl })(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).details).toMatchObject({ reason: 'timeout', status: 504 });
    expect((await fetch(proxyUrl, { method: 'POST', body: '{nope' })).status).toBe(400);
    expect((await fetch(proxyUrl, { method: 'POST', body: JSON.stringify({ task: 't' }) })).status).toBe(400);
    expect((await fetch(proxyUrl)).status).toBe(405);
  });
});
