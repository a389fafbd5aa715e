import type { LLMProvider, LLMRequest, LLMResponse } from '../llm/types.js';

/**
 * A custom LLM provider stays on the page (it may hold the app's own fetch,
 * auth or SDK) and the worker calls it through Comlink. An AbortSignal cannot
 * be cloned across, so each call gets an id: the worker forwards its signal's
 * abort (a timeout, a budget stop, close()) as `abort(id)`, and the page
 * aborts the signal it gave the provider, so a page-side call stops spending
 * tokens when engram stops waiting for it.
 */
export interface PageProvider {
  call(request: Omit<LLMRequest, 'signal'>, id: number): Promise<LLMResponse>;
  abort(id: number, reason: string): void;
}

/** The page side: runs the app's provider with a signal per call, and aborts it on request (or all at close). */
export function pageProvider(llm: LLMProvider): PageProvider & { abortAll(reason: string): void } {
  const running = new Map<number, AbortController>();
  return {
    async call(request, id) {
      const controller = new AbortController();
      running.set(id, controller);
      try {
        return await llm({ ...request, signal: controller.signal });
      } finally {
        running.delete(id);
      }
    },
    abort(id, reason) {
      running.get(id)?.abort(new Error(reason));
    },
    abortAll(reason) {
      for (const controller of running.values()) controller.abort(new Error(reason));
      running.clear();
    },
  };
}

/** The worker side: an LLMProvider whose calls run on the page and whose signal reaches it. */
export function providerOnPage(page: PageProvider): LLMProvider {
  let next = 0;
  return async ({ signal, ...request }) => {
    const id = ++next;
    const onAbort = () => {
      const reason = signal.reason instanceof Error ? signal.reason.message : 'aborted';
      void Promise.resolve(page.abort(id, reason)).catch(() => undefined);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await page.call(request, id);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };
}
