/**
 * A plain-data copy of a public input, taken before it is validated, so that
 * what engram validates is exactly what it writes. The caller keeps the
 * original: a getter that answers differently on its second read, a Proxy
 * whose traps change their mind, an array it fills with NaN after the call
 * returns, cannot change the copy. The copy is also what crosses
 * to the worker, so nothing uncloneable reaches `postMessage`.
 *
 * Every own enumerable property is read exactly once. An own property whose
 * value is `undefined` is left out: explicit `undefined` means "not given",
 * the same as an absent key (as in JSON). Arrays keep their elements (a hole
 * or `undefined` becomes `null`, as in JSON, so the store's export reads back
 * the same) and drop any other property.
 */

/** A value that cannot be stored, at `path` (dotted, as in ValidationError issues). */
export class NotPlainData extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path ? `${path}: ` : ''}${reason}`);
  }
}

/** Deeper than any JSON an app means to store, shallow enough that copying and validating cannot exhaust the stack. */
export const MAX_DEPTH = 100;
/**
 * Larger than any array a schema accepts (addMany: 10,000 inputs; metadata:
 * 100,000 characters; step parameters: 1 MB of JSON, at least 2 characters an
 * item), and refused before anything is read: validating a million bad items
 * would cost seconds and a million issue objects.
 */
export const MAX_ARRAY_LENGTH = 500_000;
/** Objects and arrays per input: a shared-reference "bomb" (each level referencing the next twice) is refused, not expanded. */
export const MAX_CONTAINERS = 1_000_000;

const TYPED_ARRAYS: Record<string, new (source: ArrayLike<number> & ArrayBufferView) => ArrayBufferView> = {};
for (const name of ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array']) {
  const ctor = (globalThis as Record<string, unknown>)[name];
  if (typeof ctor === 'function') TYPED_ARRAYS[`[object ${name}]`] = ctor as never;
}
const arrayBufferSlice = ArrayBuffer.prototype.slice;
const dateGetTime = Date.prototype.getTime;
const blobSize = typeof Blob === 'function' ? Object.getOwnPropertyDescriptor(Blob.prototype, 'size')?.get : undefined;

/**
 * Copies `value` to plain data: primitives (no BigInt or symbol), arrays and
 * objects whose prototype is Object.prototype (any realm) or null, plus the
 * few exotic values schemas accept: Date and typed arrays / ArrayBuffer
 * (copied), Blob (immutable, kept). Throws NotPlainData naming the path of
 * the first value that is not plain data, or the getter / trap that threw.
 */
export function plainDataCopy(value: unknown): unknown {
  return copy(value, undefined, 0, { containers: 0, ancestors: new Set<object>() });
}

/** Where a value sits, built only as deep as the walk goes and turned into text only for an error. */
type Path = { up: Path; key: string | number } | undefined;
interface Walk {
  containers: number;
  /** The objects being copied above the current one: meeting one again is a cycle. */
  ancestors: Set<object>;
}

function copy(value: unknown, path: Path, depth: number, walk: Walk): unknown {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
      return value;
    case 'bigint':
      throw new NotPlainData(dotted(path), 'must not be a BigInt (not plain data: it has no JSON form)');
    case 'symbol':
      throw new NotPlainData(dotted(path), 'must not be a symbol (not plain data)');
    case 'function':
      throw new NotPlainData(dotted(path), 'must not be a function (not plain data)');
  }
  if (value === null) return null;
  const object = value as object;
  if (walk.ancestors.has(object)) throw new NotPlainData(dotted(path), 'is a cycle (the value contains itself)');
  if (depth > MAX_DEPTH) throw new NotPlainData(dotted(path), `is nested more than ${MAX_DEPTH} levels deep`);
  if (++walk.containers > MAX_CONTAINERS) {
    throw new NotPlainData(dotted(path), `holds more than ${MAX_CONTAINERS.toLocaleString('en-US')} objects and arrays`);
  }
  return read(path, () => {
    if (Array.isArray(object)) return copyArray(object, path, depth, walk);
    const special = copySpecial(object);
    if (special !== NOT_SPECIAL) return special;
    const proto: unknown = Object.getPrototypeOf(object);
    // Object.prototype of any realm (its own prototype is null), or null: anything else is a class instance or a host object.
    if (proto !== null && Object.getPrototypeOf(proto) !== null) {
      throw new NotPlainData(dotted(path), `must be plain data (an object, array, string, number, boolean or null), not ${describe(object)}`);
    }
    walk.ancestors.add(object);
    try {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(object)) {
        const at: Path = { up: path, key };
        const item = copy(read(at, () => (object as Record<string, unknown>)[key]), at, depth + 1, walk);
        // Explicit undefined is "not given". defineProperty, not assignment: a key named `__proto__` stays an own key.
        if (item !== undefined) Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
      }
      return out;
    } finally {
      walk.ancestors.delete(object);
    }
  });
}

/** The elements only (a hole or undefined as null); other properties of the array, like a function tacked on, are not data. */
function copyArray(array: unknown[], path: Path, depth: number, walk: Walk): unknown[] {
  const length = array.length;
  if (!Number.isSafeInteger(length) || length < 0) throw new NotPlainData(dotted(path), 'has an invalid length');
  if (length > MAX_ARRAY_LENGTH) throw new NotPlainData(dotted(path), `must have at most ${MAX_ARRAY_LENGTH.toLocaleString('en-US')} items`);
  walk.ancestors.add(array);
  try {
    const out = new Array<unknown>(length);
    for (let i = 0; i < length; i++) {
      let item: unknown;
      try {
        item = array[i];
      } catch (error) {
        throw unreadable({ up: path, key: i }, error);
      }
      // Numbers and strings, the bulk of big arrays (embeddings), need no walk.
      out[i] = typeof item === 'number' || typeof item === 'string' ? item : item === undefined ? null : copy(item, { up: path, key: i }, depth + 1, walk);
    }
    return out;
  } finally {
    walk.ancestors.delete(array);
  }
}

const NOT_SPECIAL = Symbol('not special');

/** Dates, typed arrays, ArrayBuffers and Blobs, recognised by their internal slots (a Proxy of one is not one). */
function copySpecial(object: object): unknown {
  const tag = Object.prototype.toString.call(object);
  const typed = TYPED_ARRAYS[tag];
  // The constructor copies from the internal slots: no user code runs.
  if (typed && ArrayBuffer.isView(object)) return new typed(object as never);
  if (tag === '[object ArrayBuffer]') return arrayBufferSlice.call(object, 0);
  if (tag === '[object Date]') return new Date(dateGetTime.call(object));
  // The brand check throws for anything else, and an exception thrown and caught per plain object (each fact of an
  // addMany) would be a large share of the page's cost of a call; a Blob or File says so in its tag (one that hides
  // it is refused as not plain).
  if (blobSize && /^\[object (Blob|File)]$/.test(tag) && isBlob(object)) return object;
  return NOT_SPECIAL;
}

function isBlob(object: object): boolean {
  try {
    blobSize!.call(object);
    return true;
  } catch {
    return false;
  }
}

/** Runs a read that may call user code (getter, Proxy trap); what it throws becomes NotPlainData at `path`. */
function read<T>(path: Path, get: () => T): T {
  try {
    return get();
  } catch (error) {
    throw unreadable(path, error);
  }
}

function unreadable(path: Path, error: unknown): NotPlainData {
  return error instanceof NotPlainData ? error : new NotPlainData(dotted(path), `could not be read (${describeThrown(error)})`);
}

/** A thrown value's message, without trusting it: its getters and `toString` may throw too. */
export function describeThrown(error: unknown): string {
  try {
    const message = (error as { message?: unknown })?.message;
    if (typeof message === 'string') return message.slice(0, 200);
    return String(error).slice(0, 200);
  } catch {
    return 'an unreadable error';
  }
}

function describe(object: object): string {
  const tag = Object.prototype.toString.call(object).slice(8, -1);
  return tag === 'Object' ? 'an instance of a class' : `a ${tag}`;
}

function dotted(path: Path): string {
  const keys: string[] = [];
  for (let at = path; at; at = at.up) keys.push(String(at.key));
  return keys.reverse().join('.');
}
