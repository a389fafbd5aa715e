import { APICallError, generateText, simulateReadableStream, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdkProvider, approximateTokens, DEFAULT_MEMORY_HEADING, memoryMiddleware } from '../../src/ai/index.js';
import { ProviderError, ValidationError, type Embedder, type LLMRequest } from '../../src/index.js';
import { realEmbedder } from '../support/memory.js';
import { scriptedLLM } from '../support/scripted-llm.js';
import { memoryFixture } from '../support/memory-fixture.js';

const { open } = memoryFixture();

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const stop = { unified: 'stop' as const, raw: 'stop' };
/** A mock model that answers every call with `text`. */
const replying = (text: string, tokens = usage(120, 30)) =>
  new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: 'text', text }], finishReason: stop, usage: tokens, warnings: [] }) });
/** A mock model that streams `deltas` as one text part. */
const streaming = (deltas: string[]) =>
  new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          { type: 'stream-start' as const, warnings: [] },
          { type: 'text-start' as const, id: 't' },
          ...deltas.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
          { type: 'text-end' as const, id: 't' },
          { type: 'finish' as const, finishReason: stop, usage: usage(50, 10) },
        ],
      }),
    }),
  });

const extractSchema = {
  type: 'object',
  properties: { facts: { type: 'array' }, hasEpisode: { type: 'boolean' } },
  required: ['facts', 'hasEpisode'],
};
const request = (overrides: Partial<LLMRequest> = {}): LLMRequest => ({
  task: 'extract',
  system: 'Extract durable facts.',
  input: 'User: I moved to Porto.',
  schema: extractSchema,
  signal: new AbortController().signal,
  ...overrides,
});
const extracted = { facts: [{ text: 'The user lives in Porto.', category: 'profile', importance: 0.9 }], hasEpisode: false };

describe('aiSdkProvider', () => {
  it('returns the parsed object, usage and cost, asking for structured output with the request schema and signal', async () => {
    const model = replying(JSON.stringify(extracted));
    const provider = aiSdkProvider(model, { prices: { inputPerMTok: 2, outputPerMTok: 10 } });
    const req = request();
    const response = await provider(req);

    expect(response.output).toEqual(extracted);
    expect(response.usage).toEqual({ inputTokens: 120, outputTokens: 30 });
    expect(response.costUsd).toBeCloseTo((120 * 2 + 30 * 10) / 1_000_000, 12);
    expect(model.doGenerateCalls).toHaveLength(1);
    const call = model.doGenerateCalls[0]!;
    expect(call.responseFormat).toMatchObject({ type: 'json', schema: extractSchema, name: 'extract' });
    expect(call.prompt[0]).toEqual({ role: 'system', content: 'Extract durable facts.' });
    expect(call.prompt[1]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'User: I moved to Porto.' }] });
    expect(call.abortSignal).toBe(req.signal);
    expect(call.maxOutputTokens).toBeUndefined();
  });

  it('caps output tokens by maxCostUsd when prices are known', async () => {
    const model = replying(JSON.stringify(extracted));
    await aiSdkProvider(model, { prices: { inputPerMTok: 0, outputPerMTok: 10 } })(request({ maxCostUsd: 0.001 }));
    expect(model.doGenerateCalls[0]!.maxOutputTokens).toBe(100);
  });

  it('is a working engram llm: observe stores the fact the model extracted', async () => {
    // One model answers each engram task by the structured-output name it is asked for.
    const replies: Record<string, unknown> = { extract: extracted, profile: { updates: { city: 'Porto' } } };
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const task = options.responseFormat?.type === 'json' ? options.responseFormat.name ?? '' : '';
        return { content: [{ type: 'text', text: JSON.stringify(replies[task]) }], finishReason: stop, usage: usage(10, 5), warnings: [] };
      },
    });
    const memory = await open({ llm: aiSdkProvider(model) });
    const result = await memory.observe({ userId: 'ana', user: 'I moved to Porto last month', assistant: 'Noted!' });
    expect(result.facts.stored).toBe(1);
    expect((await memory.facts.list({ userId: 'ana' })).map((f) => f.text)).toEqual(['The user lives in Porto.']);
    expect((await memory.profile.get('ana')).city).toBe('Porto');
    expect(model.doGenerateCalls.map((c) => (c.responseFormat as { name?: string }).name)).toEqual(['extract', 'profile']);
  });

  it('maps failures to typed ProviderErrors', async () => {
    const failing = (error: unknown) => new MockLanguageModelV3({ doGenerate: async () => Promise.reject(error) });
    const httpError = new APICallError({ message: 'Too many requests', url: 'https://llm.test/v1', requestBodyValues: {}, statusCode: 429, isRetryable: true });

    const http = await aiSdkProvider(failing(httpError))(request()).catch((e: unknown) => e);
    expect(http).toBeInstanceOf(ProviderError);
    expect((http as ProviderError).details).toMatchObject({ reason: 'http', status: 429 });

    const notJson = await aiSdkProvider(replying('Sure! Here are the facts: none.'))(request()).catch((e: unknown) => e);
    expect(notJson).toBeInstanceOf(ProviderError);
    expect((notJson as ProviderError).details).toMatchObject({ reason: 'parse' });

    const controller = new AbortController();
    controller.abort(new Error('engram is closing'));
    const aborted = await aiSdkProvider(failing(new DOMException('aborted', 'AbortError')))(request({ signal: controller.signal })).catch((e: unknown) => e);
    expect(aborted).toBeInstanceOf(ProviderError);
    expect((aborted as ProviderError).details).toMatchObject({ reason: 'aborted' });

    expect(() => aiSdkProvider('openai/gpt-4o' as never)).toThrow(ValidationError);
    expect(() => aiSdkProvider(replying('{}'), { prices: { inputPerMTok: -1, outputPerMTok: 1 } })).toThrow(ValidationError);
  });
});

describe('memoryMiddleware', () => {
  const porto = 'The user lives in Porto and works as a pastry chef.';

  it('puts a recalled fact into the system prompt the model receives, after the app instructions', async () => {
    const memory = await open();
    await memory.facts.add({ userId: 'ana', text: porto });
    const model = replying('You live in Porto.');
    const middleware = memoryMiddleware({ memory, userId: 'ana', observe: false, formatOptions: { timeZone: 'UTC' } });

    const { text } = await generateText({ model: wrapLanguageModel({ model, middleware }), system: 'You are a helpful assistant.', prompt: 'Where do I live?' });

    expect(text).toBe('You live in Porto.');
    const prompt = model.doGenerateCalls[0]!.prompt;
    expect(prompt[0]!.role).toBe('system');
    const system = prompt[0]!.content as string;
    expect(system.startsWith('You are a helpful assistant.\n\n')).toBe(true);
    expect(system).toContain(`${DEFAULT_MEMORY_HEADING}\nNow: `);
    expect(system).toContain(`, fact) ${porto}`);
    expect(prompt.filter((m) => m.role === 'system')).toHaveLength(1);
  });

  it('keeps the memory block within maxContextTokens, dropping the least relevant hits; adds nothing when none fits', async () => {
    const memory = await open();
    const texts = [
      'The user lives in Porto near the river.',
      'The user lives with two cats in a flat.',
      'The user grew up in Lisbon before moving.',
      'The user likes to cook Portuguese food at home.',
    ];
    for (const text of texts) await memory.facts.add({ userId: 'ana', text });
    const ask = async (maxContextTokens: number) => {
      const model = replying('ok');
      const middleware = memoryMiddleware({ memory, userId: 'ana', observe: false, maxContextTokens, formatOptions: { timeZone: 'UTC' } });
      await generateText({ model: wrapLanguageModel({ model, middleware }), prompt: 'Where does the user live?' });
      const system = model.doGenerateCalls[0]!.prompt.find((m) => m.role === 'system');
      return system ? (system.content as string) : '';
    };

    const all = await ask(10_000);
    for (const text of texts) expect(all).toContain(text);
    const budget = approximateTokens(all) - 5; // room for all but the last line
    const some = await ask(budget);
    expect(approximateTokens(some)).toBeLessThanOrEqual(budget);
    const kept = texts.filter((t) => some.includes(t));
    expect(kept.length).toBe(texts.length - 1);
    // What was dropped is the last (least relevant) line of the full block.
    const lastLine = all.trim().split('\n').at(-1)!;
    expect(some).not.toContain(lastLine);
    expect(some).toBe(all.slice(0, all.lastIndexOf('\n')));

    expect(await ask(5)).toBe(''); // not even the heading and one hit fit: no system message at all
  });

  it('observes the turn after generateText, without the app awaiting it', async () => {
    const llm = scriptedLLM({ extract: { output: extracted }, profile: { output: { updates: {} } } });
    const memory = await open({ llm: llm.provider });
    const model = replying('Porto is lovely, enjoy the new flat!');
    const observed: unknown[] = [];
    const middleware = memoryMiddleware({ memory, userId: 'ana', sessionId: 's1', onObserved: (turn) => observed.push(turn), onError: (e) => observed.push(e) });

    const { text } = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      messages: [
        { role: 'user', content: 'Hi!' },
        { role: 'assistant', content: 'Hello, how can I help?' },
        { role: 'user', content: 'I just moved to Porto.' },
      ],
    });
    expect(text).toBe('Porto is lovely, enjoy the new flat!');
    await middleware.flush();

    expect(llm.calls.map((c) => c.task)).toEqual(['extract', 'profile']);
    expect(llm.calls[1]!.input).toContain('- The user lives in Porto.');
    expect(llm.calls[0]!.input).toContain('I just moved to Porto.');
    expect(llm.calls[0]!.input).toContain('Porto is lovely, enjoy the new flat!');
    expect(llm.calls[0]!.input).not.toContain('Hello, how can I help?');
    expect(observed).toEqual([{ user: 'I just moved to Porto.', assistant: 'Porto is lovely, enjoy the new flat!', result: expect.objectContaining({ facts: { stored: 1, replaced: 0, skipped: 0 } }) }]);
    const facts = await memory.facts.list({ userId: 'ana' });
    expect(facts.map((f) => [f.text, f.sessionId])).toEqual([['The user lives in Porto.', 's1']]);
  });

  it('observes the turn after a fully consumed streamText, with the streamed deltas joined', async () => {
    const llm = scriptedLLM({ extract: { output: extracted }, profile: { output: { updates: {} } } });
    const memory = await open({ llm: llm.provider });
    const model = streaming(['Porto ', 'is ', 'lovely!']);
    const middleware = memoryMiddleware({ memory, userId: 'ana', sessionId: 's2', onError: (e) => { throw e; } });

    const result = streamText({ model: wrapLanguageModel({ model, middleware }), prompt: 'I just moved to Porto.' });
    let streamed = '';
    for await (const delta of result.textStream) streamed += delta;
    expect(streamed).toBe('Porto is lovely!');
    await middleware.flush();

    expect(model.doStreamCalls).toHaveLength(1);
    expect(llm.calls.map((c) => c.task)).toEqual(['extract', 'profile']);
    expect(llm.calls[1]!.input).toContain('- The user lives in Porto.');
    expect(llm.calls[0]!.input).toContain('I just moved to Porto.');
    expect(llm.calls[0]!.input).toContain('Porto is lovely!');
    expect((await memory.facts.list({ userId: 'ana' })).map((f) => f.text)).toEqual(['The user lives in Porto.']);

    // The next call recalls what the streamed turn taught.
    const next = replying('In Porto.');
    await generateText({ model: wrapLanguageModel({ model: next, middleware: memoryMiddleware({ memory, userId: 'ana', observe: false }) }), prompt: 'Where do I live?' });
    expect(next.doGenerateCalls[0]!.prompt[0]!.content).toContain('The user lives in Porto.');
  });

  it('does not observe a stream that failed before finishing', async () => {
    const llm = scriptedLLM({ extract: { output: extracted }, profile: { output: { updates: {} } } });
    const memory = await open({ llm: llm.provider });
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start' as const, warnings: [] },
            { type: 'text-start' as const, id: 't' },
            { type: 'text-delta' as const, id: 't', delta: 'Porto is' },
            { type: 'error' as const, error: new Error('connection reset') },
          ],
        }),
      }),
    });
    const middleware = memoryMiddleware({ memory, userId: 'ana', onError: (e) => { throw e; } });
    const streamErrors: unknown[] = [];
    const result = streamText({ model: wrapLanguageModel({ model, middleware }), prompt: 'I just moved to Porto.', onError: ({ error }) => void streamErrors.push(error) });
    await result.consumeStream();
    await middleware.flush();

    expect(streamErrors.map((e) => (e as Error).message)).toEqual(['connection reset']);
    expect(llm.calls).toEqual([]);
    expect(await memory.facts.list({ userId: 'ana' })).toEqual([]);
  });

  it('never fails the app call: recall and observe errors go to onError', async () => {
    const memory = await open();
    await memory.close(); // every recall and observe now throws ClosedError
    const errors: [string, string][] = [];
    const middleware = memoryMiddleware({ memory, userId: 'ana', onError: (error, stage) => errors.push([stage, (error as Error).name]) });

    const { text } = await generateText({ model: wrapLanguageModel({ model: replying('Still here.'), middleware }), prompt: 'Hello?' });
    const streamed = await streamText({ model: wrapLanguageModel({ model: streaming(['Still ', 'here.']), middleware }), prompt: 'Hello?' }).text;
    await middleware.flush();

    expect([text, streamed]).toEqual(['Still here.', 'Still here.']);
    expect(errors).toEqual([
      ['recall', 'ClosedError'],
      ['observe', 'ClosedError'],
      ['recall', 'ClosedError'],
      ['observe', 'ClosedError'],
    ]);
  });

  it("the model call's abortSignal ends the recall before it, and the abort is not reported as an error", async () => {
    const model0 = await realEmbedder();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let hold = false;
    let held!: () => void;
    const embeddingHeld = new Promise<void>((resolve) => (held = resolve));
    const embedder: Embedder = {
      id: model0.id,
      dimension: model0.dimension,
      embed: async (texts) => {
        if (!hold) return model0.embed(texts);
        held();
        return gate.then(() => model0.embed(texts));
      },
    };
    const memory = await open({ embedder });
    await memory.facts.add({ userId: 'ana', text: porto });
    hold = true;
    const errors: string[] = [];
    const model = replying('Hello.');
    const middleware = memoryMiddleware({ memory, userId: 'ana', observe: false, onError: (error) => errors.push((error as Error).name) });
    const controller = new AbortController();
    const call = generateText({ model: wrapLanguageModel({ model, middleware }), prompt: 'Where do I live?', abortSignal: controller.signal }).catch((e: Error) => e);
    await embeddingHeld; // the recall is now waiting for its embedding
    controller.abort();
    await call;
    // The recall ended on the abort (its embedding still held), so no memory reached the prompt, and nothing was reported.
    expect(errors).toEqual([]);
    for (const { prompt } of model.doGenerateCalls) expect(JSON.stringify(prompt)).not.toContain(porto);
    release();
  });

  it('refuses bad options with a ValidationError', () => {
    expect(() => memoryMiddleware({ memory: {} as never })).toThrow(ValidationError);
    expect(() => memoryMiddleware({ memory: { recall() {}, observe() {}, formatContext() {} } as never, k: 0 })).toThrow(/k/);
  });
});
