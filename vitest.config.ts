import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { engram: new URL('./src/index.ts', import.meta.url).pathname } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/browser/global-setup.ts'],
  },
});
