import { addFactMerging } from '../../memories/facts/add-fact-merging.js';
import type { FACT_OPERATIONS } from '../../operations/facts.js';
import type { WithUser } from '../../schema/default-user.js';
import type { Fact, FactInput } from '../../schema/fact.js';
import type { EngineParts } from '../parts.js';
import type { HandlersOf } from './handler.js';

/** What each fact operation does (operations/facts.ts declares them). */
export const FACT_HANDLERS = {
  'facts.add': async (parts, [input, options]) => (await addFactsNow(parts, [input], 'facts.add', options.merge))[0]!,
  'facts.addMany': async (parts, [inputs, options]): Promise<Fact[] | string[]> => {
    const records = await addFactsNow(parts, inputs, 'facts.addMany', options.merge);
    return options.returnRecords === false ? records.map((r) => r.id) : records;
  },
  'facts.get': ({ facts }, [id]) => facts.get(id),
  'facts.list': ({ facts }, [query]) => facts.list(query),
  'facts.update': ({ facts }, [id, patch]) => facts.update(id, patch),
  'facts.delete': ({ facts }, [id]) => facts.delete(id),
  'facts.history': ({ facts }, [id]) => facts.history(id),
} satisfies HandlersOf<typeof FACT_OPERATIONS>;

/** Adds facts raw in one commit, or (`merge`) each merged like an extracted fact where it is the same as a stored one. */
async function addFactsNow(parts: EngineParts, inputs: WithUser<FactInput>[], call: 'facts.add' | 'facts.addMany', merge: boolean): Promise<Fact[]> {
  const { ctx, llm, extraction, facts, closing, access } = parts;
  if (!merge) return facts.add(inputs, call);
  const out: Fact[] = [];
  for (const input of inputs) {
    // An id the app chose means "write it under this id": never merged away.
    const result = input.id === undefined ? await addFactMerging(ctx, { llm, options: extraction, signal: closing.signal, shown: (record) => access.shown(record) }, input) : null;
    if (result?.merged) out.push(result.merged);
    else out.push(...(await facts.add([result ? { ...input, embedding: result.vector } : input], call)));
  }
  return out;
}
