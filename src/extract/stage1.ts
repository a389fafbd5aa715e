import type { LLMProvider } from '../llm/types.js';
import { callLLM, type CallResult } from '../llm/call-llm.js';
import { renderExchange } from '../llm/exchange.js';
import { STAGE1_SYSTEM } from './prompts.js';
import { stage1OutputSchema, type Stage1Output } from './schemas.js';

/**
 * Stage 1 as one LLM call: the facts of an exchange and whether it deserves
 * an episode. `observe()` runs it on every turn; `npm run eval:classifier`
 * runs the very same call to measure the episode decision. Never throws.
 */
export function runStage1(
  llm: LLMProvider,
  exchange: { user: string; assistant: string },
  options: { model?: string; timeoutMs: number; signal?: AbortSignal },
): Promise<CallResult<Stage1Output>> {
  return callLLM(llm, {
    task: 'extract',
    system: STAGE1_SYSTEM,
    input: renderExchange(exchange.user, exchange.assistant),
    schema: stage1OutputSchema,
    model: options.model,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
}
