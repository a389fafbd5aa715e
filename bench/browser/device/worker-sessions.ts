import type { CDPSession } from 'playwright-core';

/**
 * The DevTools protocol on a page's dedicated workers. Each worker is a target
 * of its own: `Target.setAutoAttach` on the page's session attaches to every
 * worker it starts, paused before its first script line
 * (`waitForDebuggerOnStart`) until `onWorker` has run. The sessions are not
 * flattened: Playwright's connection drops messages for sessions it did not
 * create, and `newCDPSession` takes only a page or a frame, so commands go
 * through `Target.sendMessageToTarget` (as bench/browser/footprint.ts does).
 */
export class WorkerSessions {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(result: unknown): void; reject(error: Error): void; method: string }>();
  /** Session ids of the workers alive now, oldest first. */
  readonly live: string[] = [];

  private constructor(private readonly cdp: CDPSession) {}

  /** Attaches to the page's workers from now on; `onWorker` runs, and is awaited, before each worker runs a line. */
  static async attach(cdp: CDPSession, onWorker: (sessionId: string, sessions: WorkerSessions) => void | Promise<void>): Promise<WorkerSessions> {
    const sessions = new WorkerSessions(cdp);
    cdp.on('Target.receivedMessageFromTarget', (event) => {
      const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: { message: string } };
      const waiting = message.id === undefined ? undefined : sessions.pending.get(message.id);
      if (!waiting) return;
      sessions.pending.delete(message.id!);
      if (message.error) waiting.reject(new Error(`${waiting.method}: ${message.error.message}`));
      else waiting.resolve(message.result);
    });
    cdp.on('Target.attachedToTarget', (event) => {
      if (event.targetInfo.type !== 'worker') return;
      sessions.live.push(event.sessionId);
      // The worker stays paused until onWorker is done (its throttle set before its first line runs).
      void Promise.resolve(onWorker(event.sessionId, sessions))
        .catch(() => undefined)
        .then(() => sessions.send(event.sessionId, 'Runtime.runIfWaitingForDebugger'))
        .catch(() => undefined);
    });
    cdp.on('Target.detachedFromTarget', (event) => {
      const at = event.sessionId ? sessions.live.indexOf(event.sessionId) : -1;
      if (at >= 0) sessions.live.splice(at, 1);
    });
    await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });
    return sessions;
  }

  send<T = unknown>(sessionId: string, method: string, params: object = {}): Promise<T> {
    const id = ++this.nextId;
    const answer = new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (r: unknown) => void, reject, method }));
    void this.cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch((error: Error) => {
      this.pending.get(id)?.reject(error);
      this.pending.delete(id);
    });
    return answer;
  }

  /** Evaluates an expression in the worker and returns its value. */
  async evaluate<T>(sessionId: string, expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send<{ result: { value: T }; exceptionDetails?: { text: string } }>(sessionId, 'Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (exceptionDetails) throw new Error(`worker evaluation failed: ${exceptionDetails.text}`);
    return result.value;
  }

  /** The one worker the page runs now (engram's engine, or the floor's). */
  only(): string {
    if (this.live.length !== 1) throw new Error(`expected the page's one worker, found ${this.live.length}`);
    return this.live[0]!;
  }
}
