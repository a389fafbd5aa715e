/**
 * Zero configuration (issue 43): `createMemory({ name })` with no embedder
 * embeds with the static model engram ships (models/ in the package), read
 * from disk in Node with no network and no @huggingface/transformers; and a
 * model path that serves no model is an EmbedderError that names what was
 * tried and the layout expected, never a parse error from deep inside a
 * library.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemory, DEFAULT_EMBEDDING_MODEL, EmbedderError, loadTransformersEmbedder } from '../../src/index.js';
import { readModelConfig } from '../../src/embed/model-config.js';
import { urlModelSource } from '../../src/embed/model-source.js';
import { freshIndexedDB, MODEL, MODEL_PATH } from '../support/memory.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Every fetch is refused and counted: the default model must be read from disk. */
let fetches: string[] = [];
beforeEach(() => {
  fetches = [];
  vi.stubGlobal('fetch', async (input: unknown) => {
    fetches.push(String(input));
    throw new Error('no network in this test');
  });
});
afterEach(() => vi.unstubAllGlobals());

describe('the default embedder (the model engram ships)', () => {
  it('createMemory({ name }) embeds and recalls offline, with the vectors of the same model read from a folder', async () => {
    const memory = await createMemory({ name: 'zero-config', ...freshIndexedDB() });
    await memory.facts.add({ text: 'The user keeps bees on the roof of their flat' });
    await memory.facts.add({ text: 'The user plays the cello in an amateur orchestra' });
    await memory.facts.add({ text: 'The user is allergic to penicillin' });
    const [top] = await memory.recall('which musical instrument?');
    expect(top!.memory.text).toBe('The user plays the cello in an amateur orchestra');
    const { embedder } = await memory.info();
    expect(embedder).toEqual({ id: `transformers.js/${DEFAULT_EMBEDDING_MODEL}/q8`, dimension: 128 });
    await memory.close();

    // The same model as the offline copy the tests use: same id, same vectors, so stores written with either stay valid.
    const bundled = await loadTransformersEmbedder();
    const fromFolder = await loadTransformersEmbedder({ model: MODEL, localModelPath: MODEL_PATH });
    expect(bundled.id).toBe(fromFolder.id);
    const texts = ['The user plays the cello', 'Chose Postgres for the JSON support'];
    expect(await bundled.embed(texts)).toEqual(await fromFolder.embed(texts));
    expect(fetches).toEqual([]);
  });

  it('the built package (ESM and CJS) reads it from its own models/ folder in a plain Node process', () => {
    // The package refers to itself by name through "exports", as an app's import does; fetch throws.
    const body = `
      globalThis.fetch = () => { throw new Error('fetched'); };
      const memory = await createMemory({ name: 'packed', indexedDB, IDBKeyRange });
      await memory.facts.add({ text: 'The user plays the cello in an amateur orchestra' });
      await memory.facts.add({ text: 'The user is allergic to penicillin' });
      const [top] = await memory.recall('which musical instrument?');
      console.log(JSON.stringify({ top: top.memory.text, embedder: (await memory.info()).embedder.id }));
      await memory.close();`;
    const esm = `import { createMemory } from 'engram'; import { indexedDB, IDBKeyRange } from 'fake-indexeddb'; ${body}`;
    const cjs = `const { createMemory } = require('engram'); const { indexedDB, IDBKeyRange } = require('fake-indexeddb'); (async () => { ${body} })();`;
    const run = (args: string[]) => JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' }).trim()) as unknown;
    const expected = { top: 'The user plays the cello in an amateur orchestra', embedder: `transformers.js/${DEFAULT_EMBEDDING_MODEL}/q8` };
    expect(run(['--input-type=module', '-e', esm])).toEqual(expected);
    expect(run(['-e', cjs])).toEqual(expected);
  });
});

describe('a model path that serves no model', () => {
  it('Node: a folder that does not exist, or holds no such model, is an EmbedderError naming the path and the layout', async () => {
    const missing = join(tmpdir(), `engram-no-such-folder-${process.pid}`);
    const error = await loadTransformersEmbedder({ model: MODEL, localModelPath: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbedderError);
    expect((error as EmbedderError).details.reason).toBe('model-not-found');
    expect((error as Error).message).toContain(`folder not found: ${missing}/`);
    expect((error as Error).message).toContain(`${missing}/<org>/<model>/`);
    expect((error as Error).message).toContain('onnx/model_quantized.onnx');

    const empty = mkdtempSync(join(tmpdir(), 'engram-empty-models-'));
    dirs.push(empty);
    mkdirSync(join(empty, 'minishlab'));
    const inEmpty = await loadTransformersEmbedder({ model: MODEL, localModelPath: empty }).catch((e: unknown) => e);
    expect(inEmpty).toBeInstanceOf(EmbedderError);
    expect((inEmpty as Error).message).toContain(`${empty}/ has no folder ${MODEL}/`);
    // The model is not looked for on the hub: nothing was fetched (not "needs @huggingface/transformers").
    expect((inEmpty as Error).message).not.toMatch(/@huggingface\/transformers/);
    expect(fetches).toEqual([]);
  });

  it("a server that answers its index.html for every path (a dev server's fallback) is named, not `Unexpected token '<'`", async () => {
    vi.unstubAllGlobals();
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><body>app</body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wrong/`;
      const source = urlModelSource(MODEL, { 'config.json': new URL(`${base}${MODEL}/config.json`) }, `${base}${MODEL}/`, `${base}<org>/<model>/`);
      const error = await readModelConfig(source, true).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbedderError);
      expect((error as EmbedderError).details).toMatchObject({ reason: 'not-a-model', url: `${base}${MODEL}/config.json` });
      expect((error as Error).message).toContain(`${base}${MODEL}/config.json answered with a web page`);
      expect((error as Error).message).toContain(`${base}<org>/<model>/`);
    } finally {
      server.close();
    }
  });
});
