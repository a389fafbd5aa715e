import { observe } from '../../extract/observe.js';
import type { observeTurn } from '../../operations/observe.js';
import type { HandlersOf } from './handler.js';

/** Runs one turn through extract/observe.ts (operations/observe.ts). */
export const OBSERVE_HANDLERS = {
  observe: ({ ctx, llm, extraction, queue, closing, turns }, [input], caller) => {
    // The LLM calls stop on either signal; only the caller's turns into an AbortError (a closing engine's does not).
    const signal = caller ? AbortSignal.any([closing.signal, caller]) : closing.signal;
    return observe(ctx, { llm, options: extraction, queue, signal, caller, turns }, input);
  },
} satisfies HandlersOf<readonly [typeof observeTurn]>;
