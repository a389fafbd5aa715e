import { describe, expect, it } from 'vitest';
import { createMemory, ValidationError, type Memory } from '../../src/index.js';
import { connectMemory, serveMemory, type RuntimeLike } from '../../src/extension/index.js';
import type { MessageSenderLike } from '../../src/extension/protocol.js';
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

  /**
   * One extension context (service worker, page, content script) of extension
   * `id`, or with `id` null a web page; `sender` is what the browser
   * tells listeners about it besides its id (origin, url, tab).
   */
  context(id: string | null = 'ext-a', sender: Omit<MessageSenderLike, 'id'> = {}): RuntimeLike {
    const self = { listeners: new Set<Parameters<RuntimeLike['onMessage']['addListener']>[0]>() };
    this.contexts.add(self);
    return {
      ...(id === null ? {} : { id }),
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
            for (const listener of other.listeners) if (listener(wire, { ...sender, ...(id === null ? {} : { id }) }, sendResponse) === true) open = true;
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

  it('refuses to serve over a runtime without an extension id: it could not tell a web page from the extension', async () => {
    const bus = new ExtensionBus();
    const memory = await open('notes');
    await memory.facts.add({ text: 'The user keeps bees' });
    // A page's messages (no sender id) that reach this runtime, as an app routing onMessageExternal here would have them.
    const blind = bus.context(null);
    let refused: unknown;
    try {
      serveMemory(memory, { runtime: blind });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).issues).toEqual([{ path: 'runtime.id', message: 'must be the extension id' }]);
    const page = bus.context(null, { origin: 'https://evil.example', url: 'https://evil.example/', tab: { id: 7 } });
    const answer = await page.sendMessage({ tag: 'engram-bridge/1', name: 'notes', method: 'export', args: [] }).catch((e: unknown) => e);
    expect(answer).toBeInstanceOf(Error);
    expect((answer as Error).message).toContain('Receiving end does not exist');
  });

  it("checks every request's sender: the extension's id, from its own origin or from a content script", async () => {
    const bus = new ExtensionBus();
    const memory = await open('notes');
    serveMemory(memory, { runtime: { ...bus.context('ext-a'), getURL: (path: string) => `chrome-extension://ext-a${path}` } });
    let sent = 0;
    const reached = async (runtime: RuntimeLike) => {
      const request = { tag: 'engram-bridge/1', name: 'notes', method: 'facts.add', args: [{ text: `fact number ${++sent} from a sender` }, { merge: false }] };
      const answer = (await runtime.sendMessage(request).catch(() => undefined)) as { ok: boolean } | undefined;
      return answer?.ok ?? 'no answer';
    };
    // Answered: an extension page, the service worker, a content script (in a tab, at the page's origin).
    expect(await reached(bus.context('ext-a', { origin: 'chrome-extension://ext-a', url: 'chrome-extension://ext-a/popup.html' }))).toBe(true);
    expect(await reached(bus.context('ext-a', { url: 'chrome-extension://ext-a/sw.js' }))).toBe(true);
    expect(await reached(bus.context('ext-a', { origin: 'https://site.example', url: 'https://site.example/a', tab: { id: 1 } }))).toBe(true);
    // Not answered: a web page (no id, whatever it claims), another extension, or the extension's id from a foreign origin outside any tab.
    expect(await reached(bus.context(null, { origin: 'chrome-extension://ext-a', tab: { id: 2 } }))).toBe('no answer');
    expect(await reached(bus.context('ext-b', { origin: 'chrome-extension://ext-b' }))).toBe('no answer');
    expect(await reached(bus.context('ext-a', { origin: 'https://evil.example', url: 'https://evil.example/' }))).toBe('no answer');
    expect((await memory.facts.list()).map((f) => f.text).sort()).toEqual([1, 2, 3].map((n) => `fact number ${n} from a sender`));
  });

  it('needs an extension runtime, a name and a memory', () => {
    expect(() => connectMemory('notes')).toThrow(ValidationError);
    expect(() => serveMemory(open('x'))).toThrow(/no chrome.runtime here/);
    const runtime = new ExtensionBus().context();
    expect(() => connectMemory('', { runtime })).toThrow(ValidationError);
    for (const bad of [null, undefined, 'notes', {}]) expect(() => serveMemory(bad as never, { runtime })).toThrow(/pass the memory from createMemory/);
  });
});
