import type { LLMProvider, LLMRequest, LLMResponse } from '../../src/index.js';

export type Reply = LLMResponse | Error | ((request: LLMRequest) => LLMResponse | Error | Promise<LLMResponse | Error>);

/**
 * An LLM provider that is a scripted function: each task has a queue of
 * replies (or a default), and every call is recorded so tests can check
 * exactly what engram asked for.
 */
export function scriptedLLM(defaults: Partial<Record<string, Reply>> = {}) {
  const calls: LLMRequest[] = [];
  const queues = new Map<string, Reply[]>();
  const provider: LLMProvider = async (request) => {
    calls.push(request);
    const reply = queues.get(request.task)?.shift() ?? defaults[request.task];
    if (reply === undefined) throw new Error(`scriptedLLM: no reply scripted for task "${request.task}"`);
    const value = typeof reply === 'function' ? await reply(request) : reply;
    if (value instanceof Error) throw value;
    return value;
  };
  return {
    provider,
    calls,
    callsFor: (task: string) => calls.filter((c) => c.task === task),
    /** Queues replies for a task, used in order before the default. */
    enqueue(task: string, ...replies: Reply[]) {
      queues.set(task, [...(queues.get(task) ?? []), ...replies]);
    },
  };
}

export const noFacts = (hasEpisode = false): LLMResponse => ({ output: { facts: [], hasEpisode } });

export const episodeDraft = (overrides: Record<string, unknown> = {}): LLMResponse => ({
  output: {
    goal: 'Choose a database for the analytics project',
    context: 'The team compared Postgres and DuckDB on a 50 GB event log',
    approach: 'Ran the five slowest dashboard queries on both engines',
    outcome: 'Chose DuckDB because columnar scans were twenty times faster',
    quality: 'success',
    lessons: 'Benchmark the real queries before picking a database engine',
    tags: ['databases', 'analytics'],
    actors: ['user', 'assistant'],
    ...overrides,
  },
  costUsd: 0.01,
});
