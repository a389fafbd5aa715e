import { AsyncLocalStorage } from 'node:async_hooks';
import http, { createServer } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemory, httpProxy } from '../../src/index.js';
import { createProxyHandler, toNodeHandler } from '../../src/server.js';
import { freshIndexedDB, MODEL, MODEL_PATH } from '../support/memory.js';
import { startOpenAIServer } from '../support/openai-server.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * Nothing about the user leaves the device unless the app's own provider
 * sends it. Every way out of a Node process is watched: `fetch`, `http(s)`
 * requests, and raw `net`/`tls` sockets (which catches anything built on them).
 */
interface Outgoing {
  via: string;
  target: string;
  headers?: Record<string, string>;
  body?: string;
}
const outgoing: Outgoing[] = [];
/** Marks code running as the app's proxy server (in this process only for the test); its own upstream calls are not the page's. */
const serverSide = new AsyncLocalStorage<boolean>();
const restore: (() => void)[] = [];

function watch<T extends object, K extends keyof T>(owner: T, key: K, via: string, describe: (args: unknown[]) => Omit<Outgoing, 'via'>) {
  const real = owner[key] as unknown as (...args: unknown[]) => unknown;
  owner[key] = function (this: unknown, ...args: unknown[]) {
    if (!serverSide.getStore()) outgoing.push({ via, ...describe(args) });
    return real.apply(this, args);
  } as never;
  restore.push(() => (owner[key] = real as never));
}
const targetOf = (args: unknown[]) => {
  const [first] = args;
  if (Array.isArray(first)) return targetOf(first); // Socket#connect gets its arguments normalised into an array
  if (typeof first === 'string' || first instanceof URL) return String(first);
  const o = first as { host?: string; hostname?: string; port?: number; path?: string } | undefined;
  return `${o?.hostname ?? o?.host ?? '?'}:${o?.port ?? ''}${o?.path ?? ''}`;
};

beforeEach(() => {
  outgoing.length = 0;
  watch(globalThis, 'fetch', 'fetch', ([input, init]) => {
    const request = input instanceof Request ? input : undefined;
    const headers = Object.fromEntries(new Headers((init as RequestInit | undefined)?.headers ?? request?.headers).entries());
    const body = (init as RequestInit | undefined)?.body;
    return { target: request?.url ?? String(input), headers, body: typeof body === 'string' ? body : undefined };
  });
  for (const [mod, name] of [[http, 'http'], [https, 'https']] as const) {
    watch(mod, 'request', `${name}.request`, (args) => ({ target: targetOf(args) }));
    watch(mod, 'get', `${name}.get`, (args) => ({ target: targetOf(args) }));
  }
  watch(net, 'connect', 'net.connect', (args) => ({ target: targetOf(args) }));
  watch(net, 'createConnection', 'net.createConnection', (args) => ({ target: targetOf(args) }));
  watch(tls, 'connect', 'tls.connect', (args) => ({ target: targetOf(args) }));
  watch(net.Socket.prototype, 'connect', 'socket.connect', (args) => ({ target: targetOf(args) }));
});
afterEach(() => {
  while (restore.length) restore.pop()!();
});

const memories = memoryFixture();

/** Everything a user does with a memory, start to finish (closed by the fixture too, should a step fail). */
async function lifetime(options: Parameters<typeof createMemory>[0]) {
  const memory = memories.keep(await createMemory(options));
  await memory.episodes.add({ text: 'Chose Postgres for the JSON support', userId: 'ana' });
  await memory.facts.add({ text: 'Ana lives in Porto', userId: 'ana' });
  await memory.profile.update('ana', { name: 'Ana' });
  const task = await memory.tasks.start({ description: 'Fix the login form', type: 'debugging', context: { complexity: 'simple', domain: 'web', tags: [] }, userId: 'ana' });
  task.log({ tool: 'edit_file', action: 'edit', parameters: {}, result: { kind: 'success', output: 'ok' }, latencyMs: 3 });
  await task.complete({ kind: 'success', verdict: 'fixed', artifacts: [] });
  const observed = await memory.observe({ userId: 'ana', user: 'I moved to Lisbon last month.', assistant: 'How do you like it?' });
  await memory.idle();
  const hits = await memory.recall('which database?', { userId: 'ana' });
  memory.formatContext(hits, { timeZone: 'Europe/Lisbon' });
  const file = await (await memory.export()).text();
  await memory.import(file);
  await memory.close();
  return { observed, hits };
}

describe('privacy', () => {
  it('with no LLM configured: create (loading the model from disk), write, recall, observe, export, import and close make zero network requests', async () => {
    const { observed, hits } = await lifetime({
      name: 'privacy-offline',
      ...freshIndexedDB(),
      embedder: { model: MODEL, localModelPath: MODEL_PATH, allowRemoteModels: false },
    });
    expect(hits.length).toBeGreaterThan(0);
    expect(observed.reason).toBe('no_llm');
    expect(outgoing).toEqual([]);
  });

  it('the watch itself works: a loopback request is seen', async () => {
    const server = createServer((_, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).text();
    server.closeAllConnections();
    server.close();
    expect(outgoing.map((o) => o.via)).toContain('fetch');
    expect(outgoing.map((o) => o.via)).toContain('socket.connect');
  });

  it('with httpProxy: every request goes to that URL only and carries no API key', async () => {
    const upstream = await startOpenAIServer((req) => {
      const system: string = req.body.messages[0].content;
      if (system.includes('"hasEpisode"')) return { json: { facts: [{ text: 'Ana moved to Lisbon', category: 'profile', importance: 0.8 }], hasEpisode: true } };
      if (system.includes('episodic memory')) return { json: { goal: 'Settle in after moving to Lisbon', context: 'Ana moved to Lisbon last month for a new job', approach: 'Talked through the first weeks', outcome: 'She likes the city so far', quality: 'success', tags: ['moving'], actors: ['user'] } };
      return { json: { updates: { city: 'Lisbon' } } };
    });
    const key = 'sk-server-only-7f3a9c';
    const handler = toNodeHandler(createProxyHandler({ upstream: { baseURL: upstream.url, apiKey: key, model: 'm' } }));
    const received: { headers: http.IncomingHttpHeaders; url?: string }[] = [];
    const server = createServer((req, res) => {
      received.push({ headers: req.headers, url: req.url });
      serverSide.run(true, () => handler(req, res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/llm`;
    try {
      const { observed } = await lifetime({
        name: 'privacy-proxy',
        ...freshIndexedDB(),
        embedder: { model: MODEL, localModelPath: MODEL_PATH, allowRemoteModels: false },
        llm: httpProxy({ url }),
        capture: { cooldownTurns: 0, cooldownMinutes: 0 },
      });
      expect(observed).toMatchObject({ facts: { stored: 1 }, episodeScheduled: true });
      const fetches = outgoing.filter((o) => o.via === 'fetch');
      expect(fetches.length).toBeGreaterThanOrEqual(3); // extract, profile, episode
      for (const o of outgoing) {
        if (o.via === 'fetch') expect(o.target).toBe(url);
        else expect(o.target).toBe(new URL(url).host);
        expect(JSON.stringify(o)).not.toContain(key);
        expect(Object.keys(o.headers ?? {})).not.toContain('authorization');
      }
      expect(received.length).toBe(fetches.length);
      for (const r of received) {
        expect(r.url).toBe('/api/llm');
        expect(r.headers.authorization).toBeUndefined();
        expect(JSON.stringify(r.headers)).not.toContain(key);
      }
      // The key did reach the upstream, from the server only.
      expect(upstream.requests.every((r) => r.headers.authorization === `Bearer ${key}`)).toBe(true);
    } finally {
      server.closeAllConnections();
      server.close();
      await upstream.close();
    }
  });
});
