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

let taskChannel: { port: MessagePort; waiting: (() => void)[] } | undefined;

/**
 * Resolves in a later task, so whatever is queued (a call, an IndexedDB
 * result) runs first. Not `setTimeout(0)`: after five nested levels browsers
 * hold such a timer back at least 4 ms, and a snapshot save that yields
 * between the steps of each page would then idle on every step. Node's
 * `setImmediate` where there is one, else one shared MessageChannel.
 */
export function nextTask(): Promise<void> {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  if (typeof MessageChannel !== 'function') return new Promise((resolve) => setTimeout(resolve, 0));
  if (!taskChannel) {
    const channel = new MessageChannel();
    const waiting: (() => void)[] = [];
    channel.port2.onmessage = () => waiting.shift()?.();
    taskChannel = { port: channel.port1, waiting };
  }
  const { port, waiting } = taskChannel;
  return new Promise((resolve) => {
    waiting.push(resolve);
    port.postMessage(null);
  });
}
