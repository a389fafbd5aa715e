/**
 * The growable byte buffer a kernel computes in: a WebAssembly.Memory when the
 * kernel runs in WebAssembly, a plain ArrayBuffer for the JS fallback. Either
 * way `grow` keeps the contents and `buffer()` must be re-read after it.
 */
export interface KernelMemory {
  /** The current backing buffer (re-read after `grow`, which may replace it). */
  buffer(): ArrayBuffer;
  /** Makes the buffer at least `bytes` long, keeping its contents. */
  grow(bytes: number): void;
}

const PAGE = 65_536;
const modules = new Map<string, WebAssembly.Module | null>();

/** The compiled module for base64-encoded wasm, or null where the runtime cannot run it (no WebAssembly or no SIMD). */
export function compileWasm(base64: string): WebAssembly.Module | null {
  let module = modules.get(base64);
  if (module !== undefined) return module;
  try {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    module = typeof WebAssembly !== 'undefined' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  } catch {
    module = null;
  }
  modules.set(base64, module);
  return module;
}

/** Instantiates `module` over a fresh memory of at least `initialBytes`; returns its exports and the memory. */
export function instantiate(module: WebAssembly.Module, initialBytes: number): { exports: WebAssembly.Exports; memory: KernelMemory } {
  const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(initialBytes / PAGE)) });
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  return {
    exports: instance.exports,
    memory: {
      buffer: () => memory.buffer as ArrayBuffer,
      grow(bytes) {
        const missing = bytes - memory.buffer.byteLength;
        if (missing > 0) memory.grow(Math.ceil(missing / PAGE));
      },
    },
  };
}

/**
 * A plain ArrayBuffer that grows by a quarter at least (each growth copies
 * it: the total copied stays about 5× the final size, the spare room under
 * a quarter): the JS fallback's memory.
 */
export function arrayMemory(initialBytes: number): KernelMemory {
  let buffer = new ArrayBuffer(initialBytes);
  return {
    buffer: () => buffer,
    grow(bytes) {
      if (bytes <= buffer.byteLength) return;
      const next = new ArrayBuffer(Math.max(bytes, Math.ceil(buffer.byteLength * 1.25)));
      new Uint8Array(next).set(new Uint8Array(buffer));
      buffer = next;
    },
  };
}
