import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/**
 * Browser tests run against the demo page built from the packaged SDK
 * (dist/, built by `npm test` before vitest starts), as an app would use it.
 */
export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  if (!existsSync(`${root}dist/index.js`)) throw new Error('dist/ is missing: run the tests with `npm test` (it builds first).');
  await build({ configFile: `${root}demo/vite.config.ts`, logLevel: 'error' });
}
