import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/**
 * Browser tests run against pages built from the packaged SDK (dist/, built
 * by `npm test` before vitest starts), as an app would use it: the demo page,
 * and a bare page with only the SDK for tests that restart it many times.
 */
export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  if (!existsSync(`${root}dist/index.js`)) throw new Error('dist/ is missing: run the tests with `npm test` (it builds first).');
  await build({ configFile: `${root}demo/vite.config.ts`, logLevel: 'error' });
  await build({ configFile: `${root}test/browser/bare-page/vite.config.ts`, logLevel: 'error' });
}

