import { Document } from '@langchain/core/documents';
import { BaseRetriever } from '@langchain/core/retrievers';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.js';
import { EngramRetriever } from '../../src/langchain/index.js';
import { memoryFixture } from '../support/memory-fixture.js';

const { open } = memoryFixture();

describe('EngramRetriever', () => {
  it('returns recall hits as Documents, best first, scoped to the user and k', async () => {
    const memory = await open();
    const porto = await memory.facts.add({ userId: 'ana', text: 'Ana lives in Porto near the river.', tags: ['home'] });
    await memory.facts.add({ userId: 'ana', text: 'Ana plays the cello on weekends.' });
    await memory.facts.add({ userId: 'ana', text: 'Ana is allergic to peanuts.' });
    await memory.facts.add({ userId: 'bo', text: 'Bo lives in Porto too.' });

    const retriever = new EngramRetriever({ memory, recallOptions: { userId: 'ana', k: 2 } });
    expect(retriever).toBeInstanceOf(BaseRetriever);
    const docs = await retriever.invoke('where does Ana live?');

    expect(docs).toHaveLength(2);
    expect(docs[0]).toBeInstanceOf(Document);
    expect(docs[0]!.pageContent).toBe('Ana lives in Porto near the river.');
    expect(docs[0]!.id).toBe(porto.id);
    expect(docs[0]!.metadata).toMatchObject({ id: porto.id, type: 'fact', userId: 'ana', createdAt: porto.createdAt, tags: ['home'] });
    expect(docs.every((d) => d.metadata.userId === 'ana')).toBe(true);
    expect(docs[0]!.metadata.score).toBeGreaterThan(docs[1]!.metadata.score);
    expect(docs[0]!.metadata.parts.similarity).toBeGreaterThan(0);
    // The same ranking recall gives.
    const hits = await memory.recall('where does Ana live?', { userId: 'ana', k: 2 });
    expect(docs.map((d) => d.id)).toEqual(hits.map((h) => h.memory.id));
  });

  it('refuses a missing memory, and bad recall options at the call, with a ValidationError', async () => {
    expect(() => new EngramRetriever({ memory: {} as never })).toThrow(ValidationError);
    const memory = await open();
    await expect(new EngramRetriever({ memory, recallOptions: { k: 0 } }).invoke('x')).rejects.toThrow(ValidationError);
  });
});
