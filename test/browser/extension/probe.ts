/**
 * Runs in a content script (on a loopback page) and in an extension page:
 * starts engram without and with `allowPageOrigin`, and leaves what happened
 * on the document for the test (test/browser/extension-origin.test.ts).
 */
import { ContextError, createMemory } from 'engram';
import { hashEmbedder } from '../../support/hash-embedder.mjs';

async function probe(): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = { where: location.protocol };
  try {
    const memory = await createMemory({ name: 'probe-default', worker: false, embedder: hashEmbedder });
    await memory.facts.add({ text: 'The user prefers window seats' });
    result.default = { top: (await memory.recall('window seats'))[0]?.memory.text };
    await memory.close();
  } catch (error) {
    const e = error as ContextError;
    result.default = { name: e.name, code: e.code, context: e.context, isContextError: e instanceof ContextError, message: e.message };
  }
  const allowed = await createMemory({ name: 'probe-allowed', worker: false, embedder: hashEmbedder, allowPageOrigin: true });
  await allowed.facts.add({ text: 'The user prefers aisle seats' });
  result.allowed = { top: (await allowed.recall('aisle seats'))[0]?.memory.text };
  await allowed.close();
  return result;
}

probe().then(
  (result) => (document.documentElement.dataset.engramProbe = JSON.stringify(result)),
  (error: unknown) => (document.documentElement.dataset.engramProbe = JSON.stringify({ failed: String((error as Error)?.message ?? error) })),
);
