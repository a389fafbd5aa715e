import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { SAMPLE_CONVERSATION } from '../../demo/src/sample-conversation.js';

type CallOptions = MockLanguageModelV3['doStreamCalls'][number];

/**
 * A chat model that streams RECORDED replies (the demo's sample
 * conversation) so the example runs offline with no API key. It is the AI
 * SDK's own mock model: in an app, pass a real one (`openai('gpt-4o')`, ...)
 * instead. To a question outside the recording it answers from the memory
 * lines the middleware put into its system prompt, which shows what the
 * model was given.
 */
export function recordedChatModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: 'recorded',
    modelId: 'sample-conversation',
    doStream: async (options) => ({
      stream: simulateReadableStream({
        chunks: [
          { type: 'stream-start' as const, warnings: [] },
          { type: 'text-start' as const, id: 'reply' },
          // Word by word, as a real model streams.
          ...replyTo(options)
            .split(/(?<= )/)
            .map((delta) => ({ type: 'text-delta' as const, id: 'reply', delta })),
          { type: 'text-end' as const, id: 'reply' },
          {
            type: 'finish' as const,
            finishReason: { unified: 'stop' as const, raw: 'stop' },
            usage: { inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } },
          },
        ],
        chunkDelayInMs: 15,
      }),
    }),
  });
}

export function systemPromptOf(options: CallOptions): string {
  return options.prompt.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n\n');
}

function replyTo(options: CallOptions): string {
  const last = [...options.prompt].reverse().find((m) => m.role === 'user');
  const text = last?.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ') ?? '';
  const recorded = SAMPLE_CONVERSATION.find((turn) => turn.user === text);
  if (recorded) return recorded.assistant;
  const remembered = systemPromptOf(options)
    .split('\n')
    .filter((line) => line.startsWith('- ('))
    .map((line) => line.replace(/^- \([^)]*\) /, ''));
  return remembered.length > 0 ? `From what I remember: ${remembered.join(' ')}` : 'I do not remember anything about you yet.';
}
