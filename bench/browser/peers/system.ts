import type { Dataset } from '../page/dataset.js';

/**
 * One system under test, as the page drives it. Items are addressed by their
 * position in the data set (0..n-1); every system maps its own ids back to it.
 */
export interface BenchSystem {
  readonly name: string;
  /** Why durable storage is not measured for this system (undefined: it is). */
  readonly notDurable?: string;
  readonly hybrid: boolean;
  /** Inserts everything; `searchable` is called once queries would work, the promise resolves once the data survives a reload. */
  insert(data: Dataset, searchable: () => void): Promise<void>;
  queryVector(query: { vector: Float32Array; text: string }, k: number): Promise<number[]>;
  queryHybrid?(query: { vector: Float32Array; text: string }, k: number): Promise<number[]>;
  /**
   * Bytes of WebAssembly memory the system holds now (its WebAssembly.Memory
   * sizes): `measureUserAgentSpecificMemory` does not count them, so the
   * memory column adds them. Absent for systems with no WebAssembly.
   */
  wasmBytes?(): Promise<number>;
  /** Extra figures the system wants in the JSON (e.g. engram's RPC round trip). */
  extras?(): Promise<Record<string, number | string>>;
  close(): Promise<void>;
}

/** After a reload: open what was persisted, ready to answer. */
export interface ReopenedSystem {
  count(): Promise<number>;
  queryVector(query: { vector: Float32Array; text: string }, k: number): Promise<number[]>;
  close(): Promise<void>;
  /** For the "tab killed" cold start (bench:cold, BENCH_KILLED=1): `n` durable single writes, after which the page is left without close(). */
  writeAfter?(n: number, dimension: number): Promise<void>;
}

export interface SystemModule {
  create(dimension: number, size: number): Promise<BenchSystem>;
  /** `query` is the only text→vector pair the reopened system may need (engram embeds its query text). */
  reopen(dimension: number, size: number, query: { vector: Float32Array; text: string }): Promise<ReopenedSystem>;
}
