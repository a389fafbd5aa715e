/**
 * Anything that turns texts into vectors. engram never assumes a dimension:
 * it reads `dimension` and records `id` with the vectors it stores, so a
 * database opened with a different embedder is re-embedded instead of mixing
 * vector spaces.
 */
export interface Embedder {
  /** Stable identity of the model and settings; changing it triggers re-embedding. */
  readonly id: string;
  readonly dimension: number;
  /** One vector per text, in order. engram L2-normalises whatever comes back. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Releases model resources. Optional. */
  dispose?(): Promise<void>;
}

/** Progress reported while loading a model, rebuilding the index or re-embedding. */
export interface Progress {
  phase: 'model' | 'index' | 'reembed';
  /** 0..1 when known. */
  progress?: number;
  /** Items (or bytes for model files) done and expected. */
  loaded?: number;
  total?: number;
  /** The model file being fetched, for `phase: 'model'`. */
  file?: string;
  message?: string;
}

/**
 * Called with each `Progress` while a model loads, the index is rebuilt or memories are re-embedded (`createMemory({ onProgress })`).
 */
export type ProgressListener = (progress: Progress) => void;

export function isEmbedder(value: unknown): value is Embedder {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Embedder).embed === 'function' &&
    typeof (value as Embedder).id === 'string' &&
    typeof (value as Embedder).dimension === 'number'
  );
}
