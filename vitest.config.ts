import { defineConfig } from 'vitest/config';

/**
 * Two projects: Node tests (unit, integration) and browser tests (Chromium).
 * Vitest's default on a 2-core machine is ONE worker, so every file ran after
 * the other. Both projects share two workers: Vitest runs a project with its
 * own `maxWorkers: 1` after the parallel ones, not beside them, which left a
 * core idle through every browser file (docs/development.md has the
 * figures). A browser file may now run beside another: no test asserts how
 * long anything takes, and their timeouts are safety nets. The slowest files are printed at the end of every
 * run (test/support/slowest-files-reporter.ts).
 */
export default defineConfig({
  resolve: { alias: { engram: new URL('./src/index.ts', import.meta.url).pathname } },
  test: {
    // Timeouts are safety nets for a hung test, never a speed requirement: a busy shared machine runs these several times slower.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './test/support/slowest-files-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'node', include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/browser/global-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
