/**
 * Stores a table's image rows in fake-indexeddb (6.x) by building its
 * search trees in one pass, instead of inserting row by row: in a large
 * store the row-by-row load (`ObjectStore.storeRecord`: a tree insert per
 * row and per index, with a key comparison per level, and a DOMException
 * thrown and caught for each row whose indexed field is not a key, such as
 * a null `supersededBy`) was a large share of a durable store's open. Here
 * each tree's records are sorted once with the tree's own comparison (the
 * image's rows are already in primary-key order, so that sort is one pass)
 * and the tree is built balanced from them.
 *
 * Only fake-indexeddb's own key semantics are used (the index's
 * `getIndexKey`, the tree's `_compare`); where this code does not find the
 * internals it knows, or the rows are anything but what a valid store holds
 * (a row without a usable primary key, a duplicate key), it changes nothing
 * and returns false, and the caller stores the rows one by one, which raises
 * the same errors as before.
 */

/** A record as fake-indexeddb's trees hold it: the object store's is `{ primary key, row }`, an index's `{ index key, primary key }`. */
interface TreeRecord {
  key: unknown;
  value: unknown;
}

interface TreeNode {
  record: TreeRecord;
  left: TreeNode | undefined;
  right: TreeNode | undefined;
  parent: TreeNode | undefined;
  deleted: boolean;
  red: boolean;
}

/** lib/binarySearchTree.js: a red-black tree with deletion tombstones. */
interface SearchTree {
  _root: TreeNode | undefined;
  _numNodes: number;
  _numTombstones: number;
  _compare(a: TreeRecord, b: TreeRecord): number;
}

/** lib/Index.js */
interface RawIndex {
  keyPath: unknown;
  initialized: boolean;
  multiEntry: boolean;
  records: { records: SearchTree };
  /** The key (a multiEntry index: the keys) a row is stored under, or undefined when the row is not in the index. */
  getIndexKey(value: unknown): unknown;
}

/** lib/ObjectStore.js */
interface RawObjectStore {
  keyPath: unknown;
  keyGenerator: { setIfLarger(key: number): void } | null;
  records: { records: SearchTree };
  rawIndexes: Map<string, RawIndex>;
}

/**
 * Stores `rows` (the load's own objects, kept as they are, as
 * `storeRecord` keeps them) into the empty raw object store `raw`, with
 * every index. Returns false, having changed nothing, when it cannot.
 */
export function bulkStoreRows(raw: unknown, rows: readonly unknown[]): boolean {
  const store = asRawObjectStore(raw);
  if (!store || rows.length === 0) return false;
  const keyPath = store.keyPath;
  // A one-field key path: the key is the field (dotted and compound primary keys take the row-by-row path).
  if (typeof keyPath !== 'string' || keyPath.includes('.')) return false;

  const records: TreeRecord[] = new Array(rows.length);
  let largestNumber = -Infinity;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const key = row !== null && typeof row === 'object' ? (row as Record<string, unknown>)[keyPath] : undefined;
    // valueToKey returns a string or a non-NaN number as it is; anything else is converted or generated row by row.
    if (typeof key === 'number') {
      if (Number.isNaN(key)) return false;
      if (key > largestNumber) largestNumber = key;
    } else if (typeof key !== 'string') return false;
    records[i] = { key, value: row };
  }
  const primary = sortedUnique(store.records.records, records);
  if (!primary) return false;

  const built: [SearchTree, TreeRecord[]][] = [[store.records.records, primary]];
  for (const index of store.rawIndexes.values()) {
    if (!isRawIndex(index) || !index.initialized) return false;
    const entries: TreeRecord[] = [];
    const keyOf = indexKeyReader(index);
    for (const record of primary) {
      const indexKey = keyOf(record.value as Record<string, unknown>);
      if (indexKey === undefined) continue;
      if (index.multiEntry && Array.isArray(indexKey)) for (const part of indexKey) entries.push({ key: part, value: record.key });
      else entries.push({ key: indexKey, value: record.key });
    }
    const sorted = sortedUnique(index.records.records, entries);
    // A unique index with a repeated key: the row-by-row path raises the ConstraintError.
    if (!sorted) return false;
    built.push([index.records.records, sorted]);
  }

  for (const [tree, sorted] of built) {
    tree._root = balancedTree(sorted, 0, sorted.length, 0, depthOfDeepest(sorted.length), undefined);
    tree._numNodes = sorted.length;
    tree._numTombstones = 0;
  }
  // As storeRecord does for each numeric key: the next generated key is above every stored one.
  if (store.keyGenerator && largestNumber > -Infinity) store.keyGenerator.setIfLarger(largestNumber);
  return true;
}

/** A string or a number other than NaN: a key as it is (valueToKey returns it unchanged). */
const isPlainKey = (value: unknown): value is string | number => typeof value === 'string' || (typeof value === 'number' && !Number.isNaN(value));

/**
 * What `index.getIndexKey` gives for a row, reading the fields itself for
 * the usual shapes (a field or an array of fields, holding strings and
 * numbers, or nothing): its general path validates and copies every key and
 * throws a DataError for each row without one (a throw and catch per row).
 * Anything else goes to getIndexKey.
 */
function indexKeyReader(index: RawIndex): (row: Record<string, unknown>) => unknown {
  const keyPath = index.keyPath;
  const simple = (path: unknown): path is string => typeof path === 'string' && path.length > 0 && !path.includes('.');
  if (simple(keyPath)) {
    return (row) => {
      const field = row[keyPath];
      if (isPlainKey(field)) return field;
      // Not a key, so not in the index.
      if (field === null || field === undefined || typeof field === 'boolean') return undefined;
      if (index.multiEntry && Array.isArray(field) && field.every((part) => typeof part === 'string')) return [...new Set(field)];
      return index.getIndexKey(row);
    };
  }
  if (Array.isArray(keyPath) && keyPath.every(simple) && !index.multiEntry) {
    return (row) => {
      const parts = keyPath.map((field) => row[field]);
      return parts.every(isPlainKey) ? parts : index.getIndexKey(row);
    };
  }
  return (row) => index.getIndexKey(row);
}

/** The records sorted in the tree's order, or undefined when two are equal in it (a key the tree may hold only once). */
function sortedUnique(tree: SearchTree, records: TreeRecord[]): TreeRecord[] | undefined {
  const compare = (a: TreeRecord, b: TreeRecord) => tree._compare(a, b);
  // Already in order (the image's rows by primary key, an index over a field that grows with it): one pass, no sort.
  let ordered = true;
  for (let i = 1; i < records.length && ordered; i++) ordered = compare(records[i - 1]!, records[i]!) < 0;
  const sorted = ordered ? records : [...records].sort(compare);
  if (!ordered) for (let i = 1; i < sorted.length; i++) if (compare(sorted[i - 1]!, sorted[i]!) >= 0) return undefined;
  return sorted;
}

/** Depth of the deepest nodes of the tree balancedTree builds over `count` records (the root is at 0). */
function depthOfDeepest(count: number): number {
  return count === 0 ? -1 : Math.floor(Math.log2(count));
}

/**
 * A balanced red-black tree over sorted `records[start, end)`: the middle
 * record at the root, each half below it. Its leaves are on the deepest two
 * levels; the nodes of the deepest level are red and all others black, so
 * every path from the root to an empty child passes the same number of
 * black nodes and no red node has a red child.
 */
function balancedTree(records: TreeRecord[], start: number, end: number, depth: number, deepest: number, parent: TreeNode | undefined): TreeNode | undefined {
  if (end <= start) return undefined;
  const middle = start + ((end - start) >>> 1);
  const node: TreeNode = { record: records[middle]!, left: undefined, right: undefined, parent, deleted: false, red: depth === deepest && depth > 0 };
  node.left = balancedTree(records, start, middle, depth + 1, deepest, node);
  node.right = balancedTree(records, middle + 1, end, depth + 1, deepest, node);
  return node;
}

function asRawObjectStore(raw: unknown): RawObjectStore | undefined {
  const store = raw as Partial<RawObjectStore> | null;
  if (!store || typeof store !== 'object' || !(store.rawIndexes instanceof Map)) return undefined;
  if (store.keyGenerator !== null && typeof store.keyGenerator?.setIfLarger !== 'function') return undefined;
  const tree = store.records?.records;
  return isEmptyTree(tree) ? (store as RawObjectStore) : undefined;
}

function isRawIndex(index: unknown): index is RawIndex {
  const candidate = index as Partial<RawIndex> | null;
  return !!candidate && typeof candidate.getIndexKey === 'function' && typeof candidate.multiEntry === 'boolean' && isEmptyTree(candidate.records?.records);
}

/** A tree of the shape this code builds, holding nothing yet (the load's stores are fresh). */
function isEmptyTree(tree: unknown): tree is SearchTree {
  const candidate = tree as Partial<SearchTree> | null;
  return !!candidate && typeof candidate._compare === 'function' && candidate._root === undefined && candidate._numNodes === 0 && candidate._numTombstones === 0;
}
