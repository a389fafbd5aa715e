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

/** Tokens a call used, when the provider reports them. */
export interface LLMUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/** What a provider returns for one `LLMRequest`: the parsed JSON reply (engram validates it), and what it cost. */
export interface LLMResponse {
  /** The parsed JSON reply; engram validates it. */
  output: unknown;
  costUsd?: number;
  usage?: LLMUsage;
}

/**
 * An LLM as engram sees it: any function from a request to a reply. The
 * built-in ones are `openAICompatible`, `httpProxy` and `aiSdkProvider`
 * (`engram/ai`); a custom one passes `request.signal` on to its `fetch`.
 *
 * @example
 * ```ts
 * const llm: LLMProvider = async (request) => {
 *   const reply = await myModel({ system: request.system, input: request.input, schema: request.schema, signal: request.signal });
 *   return { output: JSON.parse(reply.text), usage: { inputTokens: reply.inputTokens, outputTokens: reply.outputTokens } };
 * };
 * const memory = await createMemory({ name: 'my-app', llm });
 * ```
 */
export type LLMProvider = (request: LLMRequest) => Promise<LLMResponse>;
