/**
 * Stands in for `@xenova/transformers` inside entity-db only (see the bench's
 * vite.config.ts). entity-db starts a model download when it is imported; the
 * benchmark hands it precomputed vectors, so no model may load. Any attempt to
 * embed with it fails loudly instead of touching the network.
 */
export const env: Record<string, unknown> = { backends: { onnx: { wasm: {} } } };

export async function pipeline(): Promise<() => never> {
  return () => {
    throw new Error('The browser benchmark hands entity-db its vectors; embedding text is not part of it.');
  };
}
