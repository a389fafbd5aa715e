import type { MemoryRecord } from '../schema/memory-record.js';

/**
 * Per-session diversity (`recall`'s `maxPerSession`): walks `ranked` in order
 * and keeps a memory unless `cap` memories of its session are kept already,
 * until `k` are kept. Memories with no session are never held back. The
 * order stays the ranking's: a held-back memory frees its place for the
 * next one, it does not move anyone up.
 */
export function capPerSession<H extends { memory: MemoryRecord }>(ranked: readonly H[], cap: number, k: number): H[] {
  const kept: H[] = [];
  const perSession = new Map<string, number>();
  for (const hit of ranked) {
    if (kept.length === k) break;
    const session = hit.memory.sessionId;
    if (session !== null) {
      const n = perSession.get(session) ?? 0;
      if (n === cap) continue;
      perSession.set(session, n + 1);
    }
    kept.push(hit);
  }
  return kept;
}
