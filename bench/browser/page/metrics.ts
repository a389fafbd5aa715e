/**
 * Page-side measurements: main-thread long tasks per phase, memory, and
 * percentiles. Long tasks come from a PerformanceObserver started when the
 * page loads (buffered, so the ones during start-up count too).
 */
const longTasks: { start: number; duration: number }[] = [];
try {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
} catch {
  // No Long Tasks API: phases report null.
}

export interface PhaseResult<T> {
  value: T;
  ms: number;
  /** Main-thread tasks over 50 ms that started inside the phase. */
  longTasks: { count: number; maxMs: number; totalMs: number };
}

/** Runs one phase and reports its wall time and the long tasks that happened during it. */
export async function phase<T>(body: () => Promise<T>, from = performance.now()): Promise<PhaseResult<T>> {
  const value = await body();
  const to = performance.now();
  // Long-task entries are delivered after the task ends; give the observer a moment.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const inside = longTasks.filter((t) => t.start >= from && t.start < to && t.duration > 50);
  return {
    value,
    ms: to - from,
    longTasks: {
      count: inside.length,
      maxMs: Math.round(Math.max(0, ...inside.map((t) => t.duration))),
      totalMs: Math.round(inside.reduce((sum, t) => sum + t.duration, 0)),
    },
  };
}

export interface MemoryFigure {
  /** Which API measured it. */
  source: 'measureUserAgentSpecificMemory' | 'performance.memory' | 'none';
  pageBytes: number;
  workerBytes: number;
}

interface UaMemoryBreakdown {
  bytes: number;
  attribution: { url?: string; scope?: string }[];
}

/**
 * Memory used by the page and its workers. `measureUserAgentSpecificMemory`
 * needs a cross-origin-isolated page (the bench server sends COOP/COEP); where
 * it is missing, the main thread's JS heap is all there is (no worker figure).
 */
export async function measureMemory(): Promise<MemoryFigure> {
  const perf = performance as Performance & {
    measureUserAgentSpecificMemory?: () => Promise<{ bytes: number; breakdown: UaMemoryBreakdown[] }>;
    memory?: { usedJSHeapSize: number };
  };
  if (perf.measureUserAgentSpecificMemory && globalThis.crossOriginIsolated) {
    try {
      const result = await perf.measureUserAgentSpecificMemory();
      let workerBytes = 0;
      for (const part of result.breakdown) {
        if (part.attribution.some((a) => a.scope === 'DedicatedWorkerGlobalScope')) workerBytes += part.bytes;
      }
      return { source: 'measureUserAgentSpecificMemory', pageBytes: result.bytes - workerBytes, workerBytes };
    } catch {
      // Fall through to the heap figure.
    }
  }
  if (perf.memory) return { source: 'performance.memory', pageBytes: perf.memory.usedJSHeapSize, workerBytes: 0 };
  return { source: 'none', pageBytes: 0, workerBytes: 0 };
}

export function percentiles(samples: number[]): { p50: number; p95: number; p99: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
  return { p50: at(50), p95: at(95), p99: at(99), n: sorted.length };
}

/** Lets the page paint and the observer run between batches of work. */
export function yieldToPage(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
