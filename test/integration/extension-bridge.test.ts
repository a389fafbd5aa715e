import { describe, expect, it } from 'vitest';
import { createMemory, ValidationError, type Memory } from '../../src/index.js';
import { connectMemory, serveMemory, type RuntimeLike } from '../../src/extension/index.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * engram/extension's protocol in Node, over a message bus with
 * chrome.runtime's rules: messages are JSON, every listener of every other
 * context hears them, the first sendResponse wins, and a message nobody
 * keeps open rejects. The real thing (an unpacked MV3 extension in
 * Chromium) is test/browser/extension-bridge.test.ts.
 */
class ExtensionBus {
  private readonly contexts = new Set<{ listeners: Set<Parameters<RuntimeLike['onMessage']['addListener']>[0]> }>();
  sent = 0;

  /** One extension context (service worker, page, content script) of extension `id`. */
  context(id = 'ext-a'): RuntimeLike {
    const self = { listeners: new Set<Parameters<RuntimeLike['onMessage']['addListener']>[0]>() };
    this.contexts.add(self);
    return {
      id,
      sendMessage: (message) => {
        this.sent++;
        const wire = JSON.parse(JSON.stringify(message)) as unknown;
        return new Promise((resolve, reject) => {
          let answered = false;
          let open = false;
          const sendResponse = (response: unknown) => {
            if (answered) return;
            answered = true;
            resolve(JSON.parse(JSON.stringify(response ?? null)));
          };
          for (const other of this.contexts) {
            if (other === self) continue;
            for (const listener of other.listeners) if (listener(wire, { id }, sendResponse) === true) open = true;
          }
          if (!open && !answered) reject(new Error('Could not establish connection. Receiving end does not exist.'));
        });
      },
      onMessage: { addListener: (l) => void self.listeners.add(l), removeListener: (l) => void self.listeners.delete(l) },
    };
  }
}

const memories = memoryFixture();
const open = (name: string): Promise<Memory> => memories.open({ name });

describe('engram/extension protocol', () => {
  it('serves several memories from one context: each name reaches its own memory', async () => {
    const bus = new ExtensionBus();
    const owner = bus.context();
    serveMemory(open('notes'), { runtime: owner });
    serveMemory(open('work'), { runtime: owner });
    const client = bus.context();
    await connectMemory('work', { runtime: client }).facts.add({ text: 'The quarterly report is due Friday' });
    await connectMemory('notes', { runtime: client }).facts.add({ text: 'The user plays the cello' });
    expect((await connectMemory('work', { runtime: client }).facts.list()).map((f) => f.text)).toEqual(['The quarterly report is due Friday']);
    expect((await connectMemory('notes', { runtime: client }).facts.list()).map((f) => f.text)).toEqual(['The user plays the cello']);
    const wrong = await connectMemory('home', { runtime: client }).info().catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ValidationError);
    expect((wrong as Error).message).toBe('The extension serves the memory "notes", "work", not "home".');
  });

  it('a memory that failed to open answers every call with its own typed error', async () => {
    const bus = new ExtensionBus();
    const failed = createMemory({ name: '' });
    failed.catch(() => {});
    serveMemory(failed, { runtime: bus.context() });
    const error = await connectMemory('notes', { runtime: bus.context() }).recall('anything').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toContain('name');
  });

  it('answers only its own extension, and forwards only the allow-listed methods', async () => {
    const bus = new ExtensionBus();
    const owner = bus.context('ext-a');
    const memory = await open('notes');
    serveMemory(memory, { runtime: owner });
    // Another extension's message is not answered (nobody keeps the channel open).
    const foreign = await connectMemory('notes', { runtime: bus.context('ext-b') }).facts.add({ text: 'planted' }).catch((e: unknown) => e);
    expect(foreign).toBeInstanceOf(ValidationError);
    expect((foreign as Error).message).toContain('could not reach the memory "notes"');
    // A hand-made message for a method outside the allow-list (close) is refused.
    const raw = (await bus.context('ext-a').sendMessage({ tag: 'engram-bridge/1', name: 'notes', method: 'close', args: [] })) as { ok: boolean; error: { code: string; message: string } };
    expect(raw.ok).toBe(false);
    expect(raw.error).toMatchObject({ code: 'VALIDATION', message: 'The extension bridge does not forward "close".' });
    expect(await memory.facts.list()).toEqual([]);
    expect((await memory.info()).name).toBe('notes'); // still open
  });

  it('refuses a signal before sending (an AbortSignal cannot be cloned); an explicit undefined is fine', async () => {
    const bus = new ExtensionBus();
    serveMemory(open('notes'), { runtime: bus.context() });
    const client = connectMemory('notes', { runtime: bus.context() });
    const before = bus.sent;
    const error = await client.recall('x', { signal: new AbortController().signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(bus.sent).toBe(before);
    expect(await client.recall('x', { signal: undefined })).toEqual([]);
  });

  it('stops serving when asked; export and import travel as text', async () => {
    const bus = new ExtensionBus();
    const owner = bus.context();
    const stop = serveMemory(open('notes'), { runtime: owner });
    const client = connectMemory('notes', { runtime: bus.context() });
    await client.facts.add({ text: 'The user keeps bees' });
    const blob = await client.export();
    expect(blob).toBeInstanceOf(Blob);
    serveMemory(open('copy'), { runtime: owner });
    const copy = connectMemory('copy', { runtime: bus.context() });
    await copy.import(blob);
    expect((await copy.facts.list()).map((f) => f.text)).toEqual(['The user keeps bees']);
    stop();
    const gone = await client.info().catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ValidationError);
    expect((gone as Error).message).toContain('not "notes"');
  });

  it('needs an extension runtime, a name and a memory', () => {
    expect(() => connectMemory('notes')).toThrow(ValidationError);
    expect(() => serveMemory(open('x'))).toThrow(/no chrome.runtime here/);
    const runtime = new ExtensionBus().context();
    expect(() => connectMemory('', { runtime })).toThrow(ValidationError);
    for (const bad of [null, undefined, 'notes', {}]) expect(() => serveMemory(bad as never, { runtime })).toThrow(/pass the memory from createMemory/);
  });
});
