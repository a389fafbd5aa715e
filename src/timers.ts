/** Node keeps a process alive for a pending timer; engram's housekeeping timers must not. */
export function unrefTimer(timer: ReturnType<typeof setTimeout> | undefined): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}

/**
 * A deadline to race work against. `cancel()` once the race is over: a
 * pending timer would keep a Node process alive until it fired (close() with
 * the default 10 s deadline kept a script running 10 s after it finished).
 */
export function deadline(ms: number): { reached: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const reached = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { reached, cancel: () => clearTimeout(timer) };
}
