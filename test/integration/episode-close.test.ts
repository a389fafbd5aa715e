import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClosedError, NotFoundError, openAICompatible, ValidationError, type EpisodeInput } from '../../src/index.js';
import { openMemory, snapshot } from '../support/memory.js';
import { startOpenAIServer } from '../support/openai-server.js';
import { scriptedLLM, type Reply } from '../support/scripted-llm.js';
import { memoryFixture } from '../support/memory-fixture.js';

const HOUR = 3_600_000;
const t0 = Date.UTC(2026, 4, 4, 9);
let now = t0;
const clock = () => now;

// Registered before the fixture, so the clock is reset after the fixture closes the memories (after-hooks run last first).
afterEach(() => {
  now = t0;
});
const memories = memoryFixture({ defaults: { clock, lifecycle: { dedupThreshold: 0, chainThreshold: 1 } } });
const open = memories.open;

/** What the app knows when it opens the episode. */
const planning: EpisodeInput = {
  userId: 'ana',
  goal: 'Pick the message queue for the order pipeline',
  context: 'Orders spike to 5k/s on sale days; the team runs on AWS',
  approach: 'Load-tested SQS and Kafka (MSK) with Ben from the platform team using k6',
  outcome: 'Chose SQS: Kafka throughput was not needed and MSK costs 4x more',
  participants: ['Ana'],
  toolsUsed: ['k6'],
  tags: ['infra'],
};

const extracted = {
  participants: ['ana', 'Ben', 'platform team'],
  toolsUsed: ['k6', 'SQS', 'Kafka'],
  entities: ['order pipeline'],
  keyDecisions: ['Use SQS for the order pipeline'],
  outcome: 'success',
  tags: ['infra', 'queues'],
};

describe('episodes.close() without a provider', () => {
  it('moves the state to summarized, sets endedAt to now, and keeps every field the app passed', async () => {
    const m = await open();
    const e = await m.episodes.add(planning);
    expect(e.state).toBe('active');
    expect(e.endedAt).toBe(t0);
    now = t0 + 2 * HOUR;
    const result = await m.episodes.close(e.id);
    expect(result).toEqual({ episode: { ...e, state: 'summarized', endedAt: now, updatedAt: now }, metadata: 'kept', reason: 'no_llm', detail: 'no LLM provider is configured', costUsd: 0 });
    expect(await m.episodes.get(e.id)).toEqual(result.episode);
    // Summarized (unlike archived) stays in recall.
    expect((await m.recall('message queue for orders', { userId: 'ana' })).map((h) => h.memory.id)).toEqual([e.id]);
  });

  it('keeps an end the app recorded, or takes the one passed to close()', async () => {
    const m = await open();
    const recorded = await m.episodes.add({ text: 'Ran the quarterly disaster-recovery drill', startedAt: t0 - 5 * HOUR, endedAt: t0 - 3 * HOUR });
    const given = await m.episodes.add({ text: 'Migrated the wiki to the new host', startedAt: t0 - 5 * HOUR });
    now = t0 + HOUR;
    expect((await m.episodes.close(recorded.id)).episode.endedAt).toBe(t0 - 3 * HOUR);
    expect((await m.episodes.close(given.id, { endedAt: t0 - 4 * HOUR })).episode.endedAt).toBe(t0 - 4 * HOUR);
  });
});

describe('episodes.close() with a provider', () => {
  it('makes one episode-metadata call and merges its output into what the app passed', async () => {
    const llm = scriptedLLM();
    llm.enqueue('episode-metadata', { output: extracted, costUsd: 0.002 });
    const m = await open({ llm: llm.provider, extraction: { model: 'small-model' } });
    const e = await m.episodes.add(planning);
    const result = await m.episodes.close(e.id);

    expect(llm.calls).toHaveLength(1);
    const [call] = llm.calls;
    expect(call).toMatchObject({ task: 'episode-metadata', model: 'small-model' });
    expect(call!.system).toMatch(/episode record/);
    expect(call!.input).toContain('Load-tested SQS and Kafka (MSK) with Ben');
    expect(call!.input).toMatch(/<already_recorded>[\s\S]*Participants: Ana[\s\S]*Tools used: k6/);
    expect(call!.schema.required).toEqual(expect.arrayContaining(['participants', 'toolsUsed', 'entities', 'keyDecisions', 'outcome', 'tags']));

    // The app's items first and in its spelling; the model's new ones appended; duplicates (ignoring case) dropped.
    expect(result).toMatchObject({ metadata: 'extracted', costUsd: 0.002 });
    expect(result.reason).toBeUndefined();
    expect(result.episode).toMatchObject({
      state: 'summarized',
      participants: ['Ana', 'Ben', 'platform team'],
      toolsUsed: ['k6', 'SQS', 'Kafka'],
      entities: ['order pipeline'],
      keyDecisions: ['Use SQS for the order pipeline'],
      outcomeStatus: 'success',
      tags: ['infra', 'queues'],
      goal: planning.goal,
      text: e.text,
    });
    expect(await m.episodes.get(e.id)).toEqual(result.episode);
    // The extracted metadata is filterable at once, in list() and in recall().
    expect((await m.episodes.list({ userId: 'ana', toolsUsed: ['Kafka'] })).map((x) => x.id)).toEqual([e.id]);
    expect((await m.recall('queue', { userId: 'ana', filter: { participants: 'Ben' } })).map((h) => h.memory.id)).toEqual([e.id]);
    const { events } = await m.activity();
    expect(events.filter((ev) => ev.type === 'episode-close')).toEqual([expect.objectContaining({ userId: 'ana', data: { episodeId: e.id, metadata: 'extracted', costUsd: 0.002 } })]);
  });

  it("keeps the app's outcome status unless it is unknown", async () => {
    const llm = scriptedLLM({ 'episode-metadata': { output: { ...extracted, outcome: 'failure' } } });
    const m = await open({ llm: llm.provider });
    const known = await m.episodes.add({ ...planning, outcomeStatus: 'partial' });
    const unknown = await m.episodes.add({ text: 'Tried to reproduce the login bug on Safari 17' });
    expect((await m.episodes.close(known.id)).episode.outcomeStatus).toBe('partial');
    expect((await m.episodes.close(unknown.id)).episode.outcomeStatus).toBe('failure');
    expect(llm.callsFor('episode-metadata')).toHaveLength(2);
  });

  const failures: [string, Reply, string, RegExp][] = [
    ['provider error', new Error('HTTP 503 from upstream'), 'metadata_provider_error', /HTTP 503/],
    ['a reply that is not a JSON object', { output: 'participants: Ben' }, 'metadata_parse_error', /not a JSON object/],
    ['a schema mismatch', { output: { ...extracted, outcome: 'great' } }, 'metadata_parse_error', /outcome/],
    ['an error flag', { output: { ...extracted, error: 'content filtered' } }, 'metadata_error_flag', /content filtered/],
    ['a timeout', () => new Promise(() => undefined), 'metadata_timeout', /timed out after 150 ms/],
  ];
  for (const [name, reply, reason, detail] of failures) {
    it(`${name}: still closes, keeps the app's fields, says why`, async () => {
      const llm = scriptedLLM();
      llm.enqueue('episode-metadata', reply);
      const m = await open({ llm: llm.provider, extraction: { timeoutMs: 150 } });
      const e = await m.episodes.add(planning);
      now = t0 + HOUR;
      const result = await m.episodes.close(e.id);
      expect(llm.calls.map((c) => c.task)).toEqual(['episode-metadata']);
      expect(result).toMatchObject({ metadata: 'kept', reason });
      expect(result.detail).toMatch(detail);
      expect(result.episode).toEqual({ ...e, state: 'summarized', endedAt: now, updatedAt: now });
      expect(await m.episodes.get(e.id)).toEqual(result.episode);
      const { events } = await m.activity();
      expect(events.find((ev) => ev.type === 'episode-close')?.data).toMatchObject({ episodeId: e.id, metadata: 'kept', reason });
    });
  }

  it('an episode deleted while the LLM was answering: NotFoundError and nothing written', async () => {
    const llm = scriptedLLM();
    const m = await open({ llm: llm.provider });
    const e = await m.episodes.add(planning);
    llm.enqueue('episode-metadata', async () => {
      await m.episodes.delete(e.id);
      return { output: extracted };
    });
    await expect(m.episodes.close(e.id)).rejects.toBeInstanceOf(NotFoundError);
    // The delete stands: close() did not resurrect the episode nor record a close.
    expect(await snapshot(m)).toEqual([]);
    expect((await m.activity()).events.filter((ev) => ev.type === 'episode-close')).toEqual([]);
    expect(llm.calls).toHaveLength(1);
  });
});

describe('episodes.close() against an OpenAI-compatible server on loopback', () => {
  let upstream: Awaited<ReturnType<typeof startOpenAIServer>>;
  beforeAll(async () => {
    upstream = await startOpenAIServer();
  });
  afterAll(() => upstream.close());

  it('sends the metadata schema as structured output and uses the reply', async () => {
    upstream.enqueue({ json: extracted });
    const m = await open({ llm: openAICompatible({ baseURL: upstream.url, model: 'loopback-model' }) });
    const e = await m.episodes.add(planning);
    const start = upstream.requests.length;
    const result = await m.episodes.close(e.id);
    const [sent] = upstream.requests.slice(start);
    expect(upstream.requests.length - start).toBe(1);
    expect(sent!.body.response_format.json_schema).toMatchObject({ name: 'episode-metadata' });
    expect(sent!.body.response_format.json_schema.schema.properties.outcome.enum).toEqual(['success', 'failure', 'partial', 'ongoing', 'unknown']);
    expect(result).toMatchObject({ metadata: 'extracted', episode: { entities: ['order pipeline'] } });
  });

  it('content that is not JSON: closed with the app fields and metadata_parse_error', async () => {
    upstream.enqueue({ raw: 'Sure! The participants were Ana and Ben.' });
    const m = await open({ llm: openAICompatible({ baseURL: upstream.url, model: 'loopback-model' }) });
    const e = await m.episodes.add(planning);
    const result = await m.episodes.close(e.id);
    expect(result).toMatchObject({ metadata: 'kept', reason: 'metadata_parse_error', episode: { state: 'summarized', participants: ['Ana'], toolsUsed: ['k6'] } });
    expect(result.detail).toMatch(/not JSON/);
  });
});

describe('episodes.close() refuses bad input and leaves the store unchanged', () => {
  it('bad id, bad options, unknown id, an episode that is not active, an end before the start', async () => {
    const llm = scriptedLLM();
    const m = await open({ llm: llm.provider });
    const e = await m.episodes.add({ ...planning, startedAt: t0 - HOUR });
    const archived = await m.episodes.add({ text: 'Closed the 2025 books with the accountant', state: 'archived' });
    const before = await snapshot(m);

    await expect(m.episodes.close('')).rejects.toThrow(ValidationError);
    await expect(m.episodes.close(42 as unknown as string)).rejects.toThrow(/episodes.close: id/);
    await expect(m.episodes.close(e.id, { endedAt: -1 })).rejects.toThrow(ValidationError);
    await expect(m.episodes.close(e.id, { when: 1 } as never)).rejects.toThrow(/episodes.close/);
    await expect(m.episodes.close(e.id, { endedAt: t0 - 2 * HOUR })).rejects.toThrow(/cannot end before it started/);
    const missing = await m.episodes.close('no-such-episode').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ id: 'no-such-episode', kind: 'episode' });
    await expect(m.episodes.close(archived.id)).rejects.toThrow(/already archived; only an active episode can be closed/);

    expect(llm.calls).toHaveLength(0);
    expect(await snapshot(m)).toEqual(before);
  });

  it('closing twice: the second call is refused and the first result stands', async () => {
    const m = await open();
    const e = await m.episodes.add(planning);
    const first = await m.episodes.close(e.id);
    await expect(m.episodes.close(e.id)).rejects.toThrow(/already summarized/);
    expect(await m.episodes.get(e.id)).toEqual(first.episode);
  });

  it('after memory.close(): ClosedError', async () => {
    const m = memories.keep(await openMemory());
    const e = await m.episodes.add(planning);
    await m.close();
    await expect(m.episodes.close(e.id)).rejects.toBeInstanceOf(ClosedError);
  });
});
