/**
 * The bridge test's content script and extension page: the memory through
 * `connectMemory`, nothing opened here. What happened is left on the
 * document for the test (test/browser/extension-bridge.test.ts).
 */
import { connectMemory } from 'engram/extension';
import { NotFoundError, ValidationError } from 'engram';

async function run(): Promise<Record<string, unknown>> {
  const memory = connectMemory('bridge-notes');
  const result: Record<string, unknown> = { where: location.protocol };
  if (location.protocol === 'http:') {
    const fact = await memory.facts.add({ text: 'The user reads about sailing boats every evening' });
    result.added = fact.text;
    result.top = (await memory.recall('sailing'))[0]?.memory.text;
    result.context = memory.formatContext(await memory.recall('sailing'));
    // Typed errors across the bridge: validation (with its issues) and not found.
    const bad = await memory.facts.add({ text: '' }).catch((e: unknown) => e);
    result.validation = { isValidationError: bad instanceof ValidationError, code: (bad as ValidationError).code, issues: (bad as ValidationError).issues };
    const missing = await memory.facts.update('no-such-fact', { text: 'x' }).catch((e: unknown) => e);
    result.notFound = { isNotFoundError: missing instanceof NotFoundError, code: (missing as NotFoundError).code };
    const other = await connectMemory('not-served').info().catch((e: unknown) => e);
    result.otherName = { isValidationError: other instanceof ValidationError, message: (other as Error).message };
  } else {
    // The extension page sees what the content script wrote, and can export it.
    result.top = (await memory.recall('boats on the water'))[0]?.memory.text;
    result.exported = (await (await memory.export()).text()).includes('sailing boats');
  }
  return result;
}

run().then(
  (result) => (document.documentElement.dataset.engramBridge = JSON.stringify(result)),
  (error: unknown) => (document.documentElement.dataset.engramBridge = JSON.stringify({ failed: `${(error as Error)?.name}: ${(error as Error)?.message ?? error}` })),
);
