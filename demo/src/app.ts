import type { Memory } from 'engram';

/** What every panel shares: the memory, the current user, and a way to ask for a redraw. */
export interface App {
  memory: Memory;
  userId(): string;
  /** Redraws the inspector (debounced). */
  refresh(): void;
  /** True when the demo server has an upstream LLM configured. */
  llmAvailable: boolean;
  setStatus(text: string, warn?: boolean): void;
}
