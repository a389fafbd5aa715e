/**
 * Runs in an extension's background service worker: starts engram in-process
 * on the offline model packed in the extension (/models/), and keeps the
 * outcome on `self.engramProbe` for the test
 * (test/browser/extension-service-worker.test.ts).
 */
import { ContextError, createMemory } from 'engram';

async function probe(): Promise<Record<string, unknown>> {
  try {
    const memory = await createMemory({ name: 'sw-probe', worker: false, embedder: { model: 'minishlab/potion-base-4M-int8', localModelPath: '/models/' } });
    await memory.facts.add({ text: 'The user plays the cello in an amateur orchestra' });
    await memory.facts.add({ text: 'The user keeps bees on the roof of their flat' });
    const top = (await memory.recall('which musical instrument?'))[0]?.memory.text;
    await memory.close();
    return { top };
  } catch (error) {
    const e = error as ContextError;
    return { name: e.name, code: e.code, context: e.context, isContextError: e instanceof ContextError, message: e.message };
  }
}

(self as unknown as { engramProbe: Promise<Record<string, unknown>> }).engramProbe = probe();
