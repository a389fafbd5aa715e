import { deserialize } from 'node:v8';

/**
 * v8.deserialize returns typed arrays as views into the buffer it read from
 * (the whole image, or journal). Stored as they are, each vector block would
 * keep that buffer alive, and every structured clone of it (fake-indexeddb
 * clones on each put and get) would copy all of it: 40 blocks of a 10k store
 * took 1.8 s to load instead of milliseconds. Each view gets its own buffer.
 */
export function deserializeOwned<T>(bytes: Uint8Array): T {
  return ownBuffers(deserialize(bytes), 0) as T;
}

function ownBuffers(value: unknown, depth: number): unknown {
  if (ArrayBuffer.isView(value)) {
    return value.byteLength === value.buffer.byteLength ? value : (value as unknown as { slice(): unknown }).slice();
  }
  if (depth > 8 || !value || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = ownBuffers(value[i], depth + 1);
    return value;
  }
  if (value instanceof Map || value instanceof Set || value instanceof Date || value instanceof RegExp) return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) record[key] = ownBuffers(record[key], depth + 1);
  return value;
}
