/** Node keeps a process alive for a pending timer; engram's housekeeping timers must not. */
export function unrefTimer(timer: ReturnType<typeof setTimeout> | undefined): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}
