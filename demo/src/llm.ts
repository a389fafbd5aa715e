import { httpProxy, type LLMProvider } from 'engram';
import { recordedProvider } from './sample-conversation.js';

/**
 * The page's LLM: the demo server's proxy (`/api/llm`, keys stay on the
 * server) when it has an upstream, or the recorded replies while the sample
 * conversation plays. Without either, calls fail with a clear message.
 */
let replaying = 0;
let proxy: LLMProvider | undefined;

export function configureProxy(available: boolean): void {
  proxy = available ? httpProxy({ url: `${location.origin}/api/llm` }) : undefined;
}

export async function withRecordedReplies<T>(run: () => Promise<T>): Promise<T> {
  replaying++;
  try {
    return await run();
  } finally {
    replaying--;
  }
}

export const demoProvider: LLMProvider = (request) => {
  if (replaying > 0) return recordedProvider(request);
  if (proxy) return proxy(request);
  return Promise.reject(new Error('No LLM is configured for this demo (set ENGRAM_LLM_BASE_URL on the demo server).'));
};

/** A chat reply through the same proxy, as structured output. */
export async function chatReply(system: string, input: string): Promise<string> {
  if (!proxy) throw new Error('No LLM is configured.');
  const response = await proxy({
    task: 'reply',
    system,
    input,
    schema: { type: 'object', properties: { reply: { type: 'string' } }, required: ['reply'] },
    signal: AbortSignal.timeout(60_000),
  });
  const reply = (response.output as { reply?: unknown })?.reply;
  if (typeof reply !== 'string') throw new Error('The LLM reply had no text.');
  return reply;
}
