import type { MemoryOptions } from '../schema/memory-options.js';
import { openDurableFor } from '../store/durable/for-memory.js';
import { Memory } from './memory.js';

/**
 * `createMemory()` in engram's Node build: the same memory, plus
 * `directory`, the durable store on disk (src/store/durable/).
 */
export function createMemory(options: MemoryOptions): Promise<Memory> {
  return Memory.create(options, openDurableFor);
}
