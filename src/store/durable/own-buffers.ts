import { DefaultDeserializer } from 'node:v8';

/**
 * v8.deserialize returns typed arrays as views into the buffer it read from
 * (the whole image, or journal). Stored as they are, each vector block would
 * keep that buffer alive, and every structured clone of it (fake-indexeddb
 * clones on each put and get) would copy all of it, once for every block.
 * Each view gets its own buffer, as it is read (walking the deserialized
 * rows for views afterwards visits every row of the store, nearly all of
 * which have none).
 */
export function deserializeOwned<T>(bytes: Uint8Array): T {
  const deserializer = new OwningDeserializer(bytes);
  deserializer.readHeader();
  return deserializer.readValue() as T;
}

const readHostObject = (DefaultDeserializer.prototype as unknown as { _readHostObject(): unknown })._readHostObject;

class OwningDeserializer extends DefaultDeserializer {
  constructor(private readonly input: Uint8Array) {
    super(input);
  }

  /** Node's hook for the typed arrays it serialized (documented in node:v8, absent from @types/node). */
  _readHostObject(): unknown {
    const view = readHostObject.call(this) as ArrayBufferView;
    if (view.buffer !== this.input.buffer) return view;
    // Buffer's slice() is a view, not a copy.
    if (Buffer.isBuffer(view)) return Buffer.from(view);
    if (view instanceof DataView) return new DataView(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
    return (view as unknown as { slice(): ArrayBufferView }).slice();
  }
}
