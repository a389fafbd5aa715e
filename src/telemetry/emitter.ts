import type { EngramEvent, EngramEventType, EventListener } from './events.js';

/** A tiny typed event emitter for the page side; listeners cannot break each other. */
export class Emitter {
  private readonly listeners = new Map<EngramEventType, Set<(event: EngramEvent) => void>>();

  on<T extends EngramEventType>(type: T, listener: EventListener<T>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    const wrapped = listener as (event: EngramEvent) => void;
    set.add(wrapped);
    return () => set!.delete(wrapped);
  }

  emit(event: EngramEvent): void {
    for (const listener of this.listeners.get(event.type) ?? []) {
      try {
        listener(event);
      } catch (error) {
        // Report, but never let one listener's bug reach engram or other listeners.
        console.error(`engram: a '${event.type}' listener threw`, error);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
