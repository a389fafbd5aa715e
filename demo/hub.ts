/**
 * The demo's sync hub: createSyncHandler on PGlite (Postgres in
 * WebAssembly) kept in a folder, served by the demo server at `/sync/` on
 * the page's own origin. Two windows of the demo opened as two devices
 * (`?device=phone`, `?device=laptop`) sync through it.
 *
 * Its authorization is the demo's only: one bearer token made at start,
 * which the demo server hands to its own page (`/api/config`), mapping to
 * one space. A real app mounts the handler with its own `authorize`
 * (docs/sync.md).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import { createSyncHandler, pgliteSyncStore, toNodeHandler } from '../src/server.js';

export interface DemoHub {
  /** The handler the demo server mounts at `/sync/`. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The bearer token devices send (the demo page reads it from `/api/config`). */
  token: string;
  /** The space every device of this demo syncs. */
  space: string;
  close(): Promise<void>;
}

/** Starts the hub on PGlite in `dir` (in memory when omitted). */
export async function startDemoHub(options: { dir?: string } = {}): Promise<DemoHub> {
  const db = await PGlite.create(options.dir);
  const token = randomBytes(18).toString('base64url');
  const space = 'demo';
  const sync = createSyncHandler({
    store: pgliteSyncStore(db),
    authorize: (request) => (request.headers.get('authorization') === `Bearer ${token}` ? space : null),
    onError: (error, { operation }) => console.error(`engram demo hub: ${operation} failed:`, error),
  });
  return { handler: toNodeHandler(sync), token, space, close: () => db.close() };
}
