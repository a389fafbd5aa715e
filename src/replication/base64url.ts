/**
 * Bytes as base64url text without padding (RFC 4648 §5), the form sealed
 * rows travel in: JSON-safe, URL-safe, and built only on `btoa`/`atob`, which
 * browsers, workers and Node share (`Uint8Array.prototype.toBase64` is not in
 * Node 20).
 */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  // Chunks keep `String.fromCharCode(...)` under the engine's argument limit.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** The bytes of base64url text, or undefined when it is not base64url (a wrong alphabet, or a length no encoding produces). */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The base64url length of `bytes` bytes (no padding). */
export function base64UrlLength(bytes: number): number {
  return Math.ceil((bytes * 4) / 3);
}
