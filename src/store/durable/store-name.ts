/** Most file systems take names of at most 255 bytes. */
const MAX_FOLDER_NAME_BYTES = 255;

/**
 * The folder of store `name` inside a durable directory. A name is a name,
 * never a path: `storeNameProblem` refuses what would leave the directory or
 * reach into a folder below it, and the rest is percent-encoded, so no other
 * character of a name can be a separator or a name the file system reserves.
 */
export function storeFolderName(name: string): string {
  return encodeURIComponent(name);
}

/** Why `name` cannot name a durable store's folder, or null when it can. */
export function storeNameProblem(name: string): string | null {
  if (name === '.' || name === '..') return 'names a folder relative to the directory: a store name is a name, not a path';
  if (/[/\\]/.test(name)) return 'contains a path separator ("/" or "\\"): a store name is a name, not a path';
  if (Buffer.byteLength(storeFolderName(name)) > MAX_FOLDER_NAME_BYTES) return `is too long for a folder name (${MAX_FOLDER_NAME_BYTES} bytes once percent-encoded)`;
  return null;
}
