import { createReadStream, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
  '.map': 'application/json',
};

/** Serves one file from `root`, refusing anything that resolves outside it. */
export function serveStatic(res: ServerResponse, root: string, relative: string): void {
  const base = resolve(root);
  const file = resolve(base, decodeURIComponent(relative));
  if (file !== base && !file.startsWith(base + sep)) return notFound(res);
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return notFound(res);
    size = stat.size;
  } catch {
    return notFound(res);
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': size });
  createReadStream(file).pipe(res);
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found');
}
