/**
 * engram/ai: engram with the Vercel AI SDK (`ai`, an optional peer
 * dependency, major 6: LanguageModelV3 models).
 *
 *   import { aiSdkProvider, memoryMiddleware } from 'engram/ai';
 *   const memory = await createMemory({ name: 'chat', llm: aiSdkProvider(openai('gpt-4o-mini')) });
 *   const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: memoryMiddleware({ memory, userId, sessionId }) });
 *   const { text } = await generateText({ model, messages });   // or streamText
 */
export { aiSdkProvider, type AiSdkProviderOptions } from './ai-sdk-provider.js';
export {
  memoryMiddleware,
  DEFAULT_MEMORY_HEADING,
  type MemoryMiddleware,
  type MemoryMiddlewareOptions,
  type MemoryMiddlewareStage,
  type MemoryLike,
  type ObservedTurn,
} from './memory-middleware.js';
export { approximateTokens } from './context-budget.js';
