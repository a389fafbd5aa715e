import { vi } from 'vitest';

/**
 * vitest's fake timers for the engine's own timers (write delays, flush
 * intervals, how long something has waited), leaving IndexedDB alone:
 * fake-indexeddb runs its requests on `setImmediate`, which stays real, so
 * the store keeps working while time stands still until a test moves it.
 * Undo with `vi.useRealTimers()` (in an afterEach registered after the
 * memory fixture, so it runs before the fixture closes the memories).
 */
export function useFakeTimers(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
}

/** Lets queued real tasks run (IndexedDB requests and the transactions they finish), without moving the fake clock. */
export async function settleTasks(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Lets real tasks run until `check` holds, and returns whether it did: a
 * bound in turns of the event loop, not in time, so a busy machine only
 * takes longer to get there.
 */
export async function settledUntil(check: () => Promise<boolean> | boolean, rounds = 100): Promise<boolean> {
  for (let i = 0; i < rounds; i++) {
    if (await check()) return true;
    await settleTasks();
  }
  return check();
}
