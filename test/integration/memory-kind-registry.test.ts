import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.js';
import { defineMemoryKind } from '../../src/memories/memory-kind.js';
import { registerMemoryKind } from '../../src/memories/registry.js';
import { EXPORT_FORMAT, EXPORT_VERSION, serializeExport } from '../../src/portability/export-format.js';
import { NO_TIMES, recencyClockOf, type IndexDoc } from '../../src/search/index-doc.js';
import { freshIndexedDB } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * The registry is the one list of memory kinds (memories/registry.ts): a
 * kind registered once, here a test's own "note" that engram does not ship,
 * is stored, indexed, recalled, exported, imported and forgotten by the
 * same code as facts, episodes and turns, with no other change. Notes reach
 * the store through `memory.import` (the public API has no `notes.add`).
 */
const noteSchema = z.strictObject({
  id: z.string(),
  type: z.literal('note'),
  userId: z.string(),
  sessionId: z.nullable(z.string()),
  text: z.string(),
  tags: z.array(z.string()),
  importance: z.number(),
  pinned: z.boolean(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.number(),
  updatedAt: z.number(),
  lastAccessedAt: z.number(),
});
type Note = z.infer<typeof noteSchema>;

const NOTES = defineMemoryKind<Note>({
  type: 'note',
  table: 'notes',
  label: 'a note',
  schema: noteSchema,
  indexes: 'id, [userId+createdAt], sessionId',
  searchAs: 'fact',
  indexedText: (note) => note.text,
  indexDoc: (note): IndexDoc => ({
    id: note.id,
    userId: note.userId,
    kind: 'fact',
    createdAt: note.createdAt,
    touchedAt: recencyClockOf(note),
    tags: note.tags,
    importance: note.importance,
    pinned: note.pinned,
    archived: false,
    times: NO_TIMES,
    fields: { ...note.metadata, sessionId: note.sessionId },
  }),
  sessionField: 'sessionId',
});

const T0 = Date.UTC(2026, 0, 5);
const note = (id: string, userId: string, text: string): Note => ({
  id, type: 'note', userId, sessionId: null, text, tags: ['garden'], importance: 0.5, pinned: false, metadata: {}, createdAt: T0, updatedAt: T0, lastAccessedAt: T0,
});

/** An export holding only `notes`, without vectors (the import embeds them). */
function exportOfNotes(notes: Note[]): string {
  return serializeExport({
    header: { format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: T0, userId: null, embedder: null },
    memories: new Map([['note', notes]]),
    profiles: [],
    tasks: [],
    steps: [],
    patterns: [],
    vectors: new Map(),
  });
}

const lineKinds = (text: string) => text.trim().split('\n').slice(1, -1).map((line) => JSON.parse(line) as { kind: string; memoryKind?: string; record?: { id: string } });

const memories = memoryFixture();
let unregister: () => void;
beforeAll(() => {
  unregister = registerMemoryKind(NOTES);
});
afterAll(() => unregister());

describe('a memory kind registered once', () => {
  it('is imported, indexed, recalled, exported with its vectors, found again after reopening, and imported into another memory', async () => {
    const db = freshIndexedDB();
    const name = `notes-${process.pid}`;
    const memory = await memories.open({ name, ...db });
    await memory.facts.add({ id: 'f1', userId: 'ada', text: 'Ada works as a nurse in Leeds' });

    const summary = await memory.import(exportOfNotes([note('n1', 'ada', 'The tomatoes in the greenhouse need water every morning'), note('n2', 'ada', 'The shed key hangs behind the kitchen door')]));
    expect(summary).toMatchObject({ notes: 2, facts: 0, reembedded: 2 });

    const hits = await memory.recall('when do the greenhouse tomatoes need watering?', { userId: 'ada', k: 3 });
    expect(hits[0]!.memory).toMatchObject({ id: 'n1', type: 'note', text: 'The tomatoes in the greenhouse need water every morning' });
    expect(hits.map((h) => h.memory.id)).toContain('f1');

    const exported = await (await memory.export()).text();
    const lines = lineKinds(exported);
    expect(lines.filter((l) => l.kind === 'note').map((l) => l.record!.id).sort()).toEqual(['n1', 'n2']);
    expect(lines.filter((l) => l.kind === 'vector' && l.memoryKind === 'note').length).toBe(2);

    // Reopened, the index comes back from the store (snapshot or records) with the notes in it.
    await memory.close();
    const reopened = await memories.open({ name, ...db });
    expect((await reopened.recall('where is the key to the shed?', { userId: 'ada', k: 1 }))[0]!.memory.id).toBe('n2');

    // Imported elsewhere with its vectors, nothing is embedded again, and recall finds the note there too.
    const other = await memories.open();
    expect(await other.import(exported)).toMatchObject({ notes: 2, facts: 1, reembedded: 0 });
    expect((await other.recall('greenhouse tomatoes', { userId: 'ada', k: 1 }))[0]!.memory.id).toBe('n1');
  });

  it('shares the id space of the other kinds, and forget() deletes its records and their vectors', async () => {
    const memory = await memories.open();
    await memory.import(exportOfNotes([note('n1', 'ada', 'Plant the garlic before the first frost'), note('n9', 'bob', 'Bob keeps bees on the allotment')]));

    const refused = await memory.facts.add({ id: 'n1', userId: 'ada', text: 'Ada likes garlic' }).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as Error).message).toContain('already used by a note');

    const removed = await memory.forget({ userId: 'ada' });
    expect(removed).toMatchObject({ notes: 1, facts: 0 });
    expect(await memory.recall('when to plant garlic', { userId: 'ada' })).toEqual([]);
    const left = lineKinds(await (await memory.export()).text());
    expect(left.filter((l) => l.kind === 'note' || l.memoryKind === 'note').map((l) => `${l.kind}:${l.record?.id ?? ''}`)).toEqual(['note:n9', 'vector:']);
    expect((await memory.recall('bees on the allotment', { userId: 'bob', k: 1 }))[0]!.memory.id).toBe('n9');
  });
});
