import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * close() must not leave a timer behind: a Node script that opens a memory,
 * writes and closes it exits by itself once done, not when close()'s
 * deadline would have fired. The deadline here is 10 minutes, so a leftover
 * timer shows as the child being killed at the 60 s spawn limit.
 */
describe('close()', () => {
  it('lets a Node process exit as soon as it is done', { timeout: 90_000 }, () => {
    const script = `
      import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
      import { createMemory } from ${JSON.stringify(fileURLToPath(new URL('../../src/index.ts', import.meta.url)))};
      const embedder = { id: 'axis-4', dimension: 4, async embed(texts) { return texts.map(() => Float32Array.from([1, 0, 0, 0])); } };
      const memory = await createMemory({ name: 'exit', indexedDB: new IDBFactory(), IDBKeyRange, embedder });
      await memory.facts.add({ text: 'The user likes tea' });
      await memory.close({ timeoutMs: 600_000 });
      console.log('closed');
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('closed');
    expect({ signal: run.signal, status: run.status }).toEqual({ signal: null, status: 0 });
  });
});
