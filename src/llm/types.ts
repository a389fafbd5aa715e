/**
 * The LLM provider contract. engram calls an LLM only through a function of
 * this shape, chosen by the app: a built-in HTTP provider, the app's own
 * proxy, or any function (a local model, a test script, ...).
 */
export interface LLMRequest {
  /** Which call this is: 'extract', 'episode', 'same-fact', 'compose', 'profile', 'metadata'. */
  task: string;
  /** The system prompt. */
  system: string;
  /** The user message: the data to work on. */
  input: string;
  /** JSON Schema (from zod) the reply must match; providers send it as structured output. */
  schema: Record<string, unknown>;
  /** Model override for this call. */
  model?: string;
  /** The most this call may cost, in USD. */
  maxCostUsd?: number;
  /** Aborted on timeout or when engram closes. */
  signal: AbortSignal;
}

export interface LLMUsage {
  inputTokens?: number;
  outputTokens?: number;
}

export interface LLMResponse {
  /** The parsed JSON reply; engram validates it. */
  output: unknown;
  costUsd?: number;
  usage?: LLMUsage;
}

export type LLMProvider = (request: LLMRequest) => Promise<LLMResponse>;
