/**
 * engram/server: helpers for the app's own server. The LLM proxy keeps API
 * keys off the page: the browser uses `httpProxy({ url })`, the server
 * answers with `createProxyHandler({ upstream })`.
 */
export { createProxyHandler, type ProxyHandlerOptions } from './llm/proxy-handler.js';
export { toNodeHandler } from './llm/node-adapter.js';
export { openAICompatible, type OpenAICompatibleOptions } from './llm/openai-compatible.js';
export type { LLMProvider, LLMRequest, LLMResponse, LLMUsage } from './llm/types.js';
