import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorruptionError, createMemory, StorageError, type Memory } from '../../src/index.node.js';
import { scanJournal } from '../../src/store/durable/journal-file.js';
import type { JournalOp } from '../../src/store/durable/journal-middleware.js';
import { repairStore } from '../../src/store/durable/repair-store.js';
import { openDurableStore } from '../../src/store/durable/durable-store.js';
import { EngramDatabase } from '../../src/store/database.js';
import { imageOf, scanImage } from '../../src/store/durable/store-image.js';
import { verifyStore } from '../../src/store/durable/verify-store.js';
import { hashEmbedder } from '../support/hash-embedder.mjs';

/**
 * Damage to a durable store's files never loses a verified record silently
 * (SQLite's rule: never destroy data to open). Every byte of a small store's
 * journal and image is damaged in turn (seeded), and a sample of a 10k
 * store's: each open is a success holding every record that verifies, or a
 * CorruptionError naming the file and offset with every file unchanged, after
 * which `repair` writes a store holding every record that verifies.
 *
 * The sweep over every offset runs the open's decision itself (verify-store.ts
 * over the files' bytes, the function every open calls); a seeded sample
 * goes the whole way through createMemory, repair and a reopen. The oracle is
 * the undamaged files' own records: one damaged byte spoils exactly the
 * record it falls in (CRC-32 detects every error of up to 32 bits).
 */
const root = mkdtempSync(join(tmpdir(), 'engram-damage-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const NAME = 'agent';
const open = (directory: string, options: { readOnly?: boolean } = {}): Promise<Memory> => createMemory({ name: NAME, directory, embedder: hashEmbedder, ...options });

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A store as a crash leaves it: an image of `before` facts (written by close), and a journal of `after` facts added one by one after it. */
async function crashedStore(folder: string, before: number, after: number): Promise<void> {
  const directory = join(root, `${folder}-live`);
  const first = await open(directory);
  await first.facts.addMany(Array.from({ length: before }, (_, i) => ({ id: `a${i}`, userId: i % 2 ? 'ana' : 'bo', text: `old fact ${i} about topic ${i % 13}` })));
  await first.close();
  const second = await open(directory);
  for (let i = 0; i < after; i++) await second.facts.add({ id: `b${i}`, userId: 'ana', text: `new fact ${i} on subject ${i}` });
  cpSync(directory, join(root, folder), { recursive: true });
  unlinkSync(join(root, folder, NAME, 'LOCK'));
  await second.close();
}

/** A store never closed: no image, a journal that starts from an empty store. */
async function journalOnlyStore(folder: string, facts: number): Promise<void> {
  const directory = join(root, `${folder}-live`);
  const memory = await open(directory);
  for (let i = 0; i < facts; i++) await memory.facts.add({ id: `j${i}`, userId: 'ana', text: `journal fact ${i} about ${i}` });
  cpSync(directory, join(root, folder), { recursive: true });
  unlinkSync(join(root, folder, NAME, 'LOCK'));
  await memory.close();
}

const filesOf = (folder: string) => ({ image: readFileSync(join(root, folder, NAME, 'image.v8')), journal: readFileSync(join(root, folder, NAME, 'journal.log')) });
const bytes = (b: Buffer | null) => (b ? { kind: 'bytes' as const, bytes: b } : { kind: 'missing' as const });

/** The records of an undamaged file, tiling it from its first byte to its last (which the test checks): the oracle. */
interface Unit {
  offset: number;
  end: number;
  /** Fact ids the record puts (journal transactions, image chunks of `facts`). */
  facts: string[];
}

function journalUnits(journal: Buffer): Unit[] {
  const scan = scanJournal(journal);
  expect(scan).toMatchObject({ format: 2, followsImage: expect.any(Boolean), damaged: [], tornAt: null });
  const units: Unit[] = [{ offset: 0, end: scan.records[0]!.offset, facts: [] }];
  for (const record of scan.records) units.push({ offset: record.offset, end: record.end, facts: factsOfTransaction(record.payload) });
  expectTiling(units, journal.length);
  return units;
}

function imageUnits(image: Buffer): Unit[] {
  const scan = scanImage(image);
  expect(scan.problems).toEqual([]);
  const units: Unit[] = [{ offset: 0, end: scan.chunks[0]!.offset, facts: [] }];
  for (const chunk of scan.chunks) units.push({ offset: chunk.offset, end: chunk.end, facts: chunk.table === 'facts' ? chunk.rows.map((row) => (row as { id: string }).id) : [] });
  expectTiling(units, image.length);
  return units;
}

function expectTiling(units: Unit[], length: number): void {
  expect(units[0]!.offset).toBe(0);
  for (let i = 1; i < units.length; i++) expect(units[i]!.offset).toBe(units[i - 1]!.end);
  expect(units.at(-1)!.end).toBe(length);
}

function factsOfTransaction(payload: Uint8Array): string[] {
  return (deserialize(payload) as JournalOp[]).flatMap((op) => (op.table === 'facts' && op.type === 'put' ? (deserialize(op.values) as { id: string }[]).map((fact) => fact.id) : []));
}

const unitAt = (units: Unit[], at: number): number => units.findIndex((unit) => at >= unit.offset && at < unit.end);
const offsetsOf = (records: { offset: number }[]) => records.map((record) => record.offset);

/** One byte changed (never to itself). */
function flip(original: Buffer, at: number, random: () => number): Buffer {
  const damaged = Buffer.from(original);
  damaged[at] = damaged[at]! ^ (1 + Math.floor(random() * 255));
  return damaged;
}

/** Every file under a folder, with its bytes. */
function tree(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out[relative(folder, path)] = readFileSync(path).toString('base64');
    }
  };
  walk(folder);
  return out;
}

/** The facts a store holds, once createMemory has opened (and closed) it: read from its files as a read-only snapshot. */
async function factIds(directory: string): Promise<string[]> {
  await (await open(directory)).close();
  const store = await openDurableStore(directory, NAME, { readOnly: true });
  const db = new EngramDatabase(NAME, { indexedDB: store.indexedDB, IDBKeyRange: store.IDBKeyRange });
  try {
    return ((await db.facts.toCollection().primaryKeys()) as string[]).sort();
  } finally {
    db.close();
    await store.close();
  }
}

/**
 * The whole way: a copy of `fixture` with `file` replaced by `damaged`, opened with createMemory. Either it opens
 * with `expected` facts, or it is a CorruptionError at (`file`, `offset`) that leaves every file as it was (also
 * read-only), and after repair the store holds `expected`.
 */
async function openDamaged(fixture: string, file: 'journal.log' | 'image.v8', damaged: Buffer, outcome: { opens: boolean; offset: number; expected: string[] }, tag: string): Promise<void> {
  const directory = join(root, `case-${tag}`);
  cpSync(join(root, fixture), directory, { recursive: true });
  writeFileSync(join(directory, NAME, file), damaged);
  const before = tree(directory);
  if (outcome.opens) {
    expect(await factIds(directory)).toEqual(outcome.expected);
    return;
  }
  for (const readOnly of [false, true]) {
    const error = await open(directory, { readOnly }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CorruptionError);
    expect(error).toMatchObject({ code: 'CORRUPTION', file: join(directory, NAME, file), offset: outcome.offset });
    expect(tree(directory)).toEqual(before);
  }
  const report = await repairStore(directory, NAME);
  expect(report.repaired).toBe(true);
  expect(report.keptAside).toContain(join(directory, NAME, `${file}.damaged`));
  // (Buffer.equals: a deep comparison of megabytes, byte by byte, took minutes.)
  expect(readFileSync(join(directory, NAME, `${file}.damaged`)).equals(damaged)).toBe(true);
  expect(await factIds(directory)).toEqual(outcome.expected);
}

const allFacts = (image: Unit[], journal: Unit[]) => [...image, ...journal].flatMap((unit) => unit.facts).sort();
const without = (units: Unit[], i: number) => units.filter((_, j) => j !== i);

describe('durable store: damage never loses a verified record silently', () => {
  beforeAll(async () => {
    await crashedStore('small', 6, 5);
    await journalOnlyStore('journal-only', 5);
  });

  it('a damaged byte anywhere in a small store’s journal: a torn last record opens without it, anything else is a CorruptionError at that record, and repair keeps every other record', async () => {
    const { image, journal } = filesOf('small');
    const units = journalUnits(journal);
    const imageFacts = imageUnits(image).flatMap((unit) => unit.facts);
    expect(units.length).toBe(1 + 5);
    const random = rng(46);
    const sample = new Set(Array.from({ length: 3 }, () => Math.floor(random() * journal.length)).concat([0, units.at(-1)!.offset + 20]));
    for (let at = 0; at < journal.length; at++) {
      const damaged = flip(journal, at, random);
      const u = unitAt(units, at);
      const result = verifyStore({ image: bytes(image), journal: bytes(damaged) });
      const kept = without(units, u).slice(u === 0 ? 0 : 1);
      if (u === units.length - 1) {
        // The last record: what a crash mid-append leaves. The open goes on without it.
        expect(result, `byte ${at}`).toMatchObject({ ok: true, imageLeftOut: null, journal: { tornAt: units[u]!.offset, damaged: [] } });
        expect(result.ok && result.records.map(factsOfTransaction).flat()).toEqual(kept.flatMap((unit) => unit.facts));
      } else {
        expect(result, `byte ${at}`).toEqual({ ok: false, file: 'journal.log', offset: units[u]!.offset, reason: expect.stringContaining('valid records after it') });
      }
      // What repair keeps: every record but the damaged one.
      expect(offsetsOf(scanJournal(damaged).records), `byte ${at}`).toEqual(offsetsOf(kept));
      if (sample.has(at)) {
        const expected = [...imageFacts, ...without(units, u).flatMap((unit) => unit.facts)].sort();
        await openDamaged('small', 'journal.log', damaged, { opens: u === units.length - 1, offset: units[u]!.offset, expected }, `journal-${at}`);
      }
    }
  });

  it('a damaged byte anywhere in a small store’s image: a CorruptionError at that chunk (the journal follows the image), and repair keeps every other chunk and the whole journal', async () => {
    const { image, journal } = filesOf('small');
    const units = imageUnits(image);
    const transactions = journalUnits(journal);
    const random = rng(4646);
    const sample = new Set(Array.from({ length: 3 }, () => Math.floor(random() * image.length)).concat([0]));
    for (let at = 0; at < image.length; at++) {
      const damaged = flip(image, at, random);
      const u = unitAt(units, at);
      expect(verifyStore({ image: bytes(damaged), journal: bytes(journal) }), `byte ${at}`).toMatchObject({ ok: false, file: 'image.v8', offset: units[u]!.offset });
      expect(offsetsOf(scanImage(damaged).chunks), `byte ${at}`).toEqual(offsetsOf(without(units, u).slice(u === 0 ? 0 : 1)));
      if (sample.has(at)) await openDamaged('small', 'image.v8', damaged, { opens: false, offset: units[u]!.offset, expected: allFacts(without(units, u), transactions) }, `image-${at}`);
    }
  });

  it('a journal cut at any length opens with every whole record (a torn tail); an image cut at any length is damage', () => {
    const { image, journal } = filesOf('small');
    const units = journalUnits(journal);
    for (let length = 0; length < journal.length; length++) {
      const result = verifyStore({ image: bytes(image), journal: bytes(journal.subarray(0, length)) });
      const whole = units.filter((unit) => unit.end <= length);
      expect(result, `length ${length}`).toMatchObject({ ok: true, journal: { tornAt: whole.length === 0 ? (length ? 0 : null) : whole.at(-1)!.end === length ? null : whole.at(-1)!.end } });
      expect(result.ok && result.records.length).toBe(Math.max(0, whole.length - 1));
    }
    const chunks = imageUnits(image);
    for (let length = 0; length < image.length; length++) {
      const result = verifyStore({ image: bytes(image.subarray(0, length)), journal: bytes(journal) });
      // Cut inside a chunk: the damage starts at that chunk; cut between chunks: at the end, where rows are missing.
      const inside = chunks.find((unit) => unit.offset < length && length < unit.end);
      expect(result, `length ${length}`).toMatchObject({ ok: false, file: 'image.v8', offset: inside ? inside.offset : length });
    }
  });

  it('an image that is garbage, empty, cut short, a journal, or a folder: rebuilt from a journal that starts from an empty store, else a CorruptionError; never an untyped error', async () => {
    const { image, journal: followsImage } = filesOf('small');
    const fromEmpty = readFileSync(join(root, 'journal-only', NAME, 'journal.log'));
    expect(scanJournal(fromEmpty).followsImage).toBe(false);
    const random = rng(7);
    const garbage = Buffer.from(Array.from({ length: 3000 }, () => Math.floor(random() * 256)));
    const cases: Record<string, Buffer> = { garbage, empty: Buffer.alloc(0), 'cut short': image.subarray(0, image.length >> 1), 'a journal': fromEmpty, 'an unframed v8 value': serialize({ hello: 'world' }) };
    for (const [what, bytesOfImage] of Object.entries(cases)) {
      const rebuilt = verifyStore({ image: bytes(bytesOfImage), journal: bytes(fromEmpty) });
      expect(rebuilt, what).toMatchObject({ ok: true, image: null, imageLeftOut: { offset: expect.any(Number) } });
      expect(rebuilt.ok && rebuilt.records.length, what).toBe(scanJournal(fromEmpty).records.length);
      expect(verifyStore({ image: bytes(bytesOfImage), journal: bytes(followsImage) }), what).toMatchObject({ ok: false, file: 'image.v8' });
    }
    // Every damaged byte of an image whose journal starts from an empty store (a crash between a compaction's rename and its emptying the journal).
    for (let at = 0; at < image.length; at++) {
      expect(verifyStore({ image: bytes(flip(image, at, random)), journal: bytes(fromEmpty) }), `byte ${at}`).toMatchObject({ ok: true, image: null, records: { length: scanJournal(fromEmpty).records.length } });
    }
    // A missing image that the journal follows is damage too (its rows are gone), not an empty store.
    expect(verifyStore({ image: bytes(null), journal: bytes(followsImage) })).toMatchObject({ ok: false, file: 'image.v8', offset: 0, reason: expect.stringContaining('missing') });

    // The whole way: a folder in the image's place, then garbage.
    const rebuilt = join(root, 'image-folder');
    cpSync(join(root, 'journal-only'), rebuilt, { recursive: true });
    mkdirSync(join(rebuilt, NAME, 'image.v8', 'inside'), { recursive: true });
    const memory = await open(rebuilt);
    expect((await memory.facts.list({ userId: 'ana' })).length).toBe(5);
    await memory.close();
    // The folder was kept beside the store; the store now has an image of its own.
    expect(statSync(join(rebuilt, NAME, 'image.v8.damaged')).isDirectory()).toBe(true);
    expect(scanImage(readFileSync(join(rebuilt, NAME, 'image.v8'))).problems).toEqual([]);

    const refused = join(root, 'image-garbage');
    cpSync(join(root, 'small'), refused, { recursive: true });
    writeFileSync(join(refused, NAME, 'image.v8'), garbage);
    const before = tree(refused);
    await expect(open(refused)).rejects.toMatchObject({ name: 'CorruptionError', offset: 0, message: expect.stringContaining(`npx engram repair --dir ${refused} --name agent`) });
    expect(tree(refused)).toEqual(before);
    const report = await repairStore(refused, NAME);
    expect(report).toMatchObject({ repaired: true, kept: { journalRecords: 5 }, dropped: [{ file: 'image.v8', offset: 0, reason: 'is not an engram image' }] });
    expect(await factIds(refused)).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
  });

  it('a 10k store: a sample of damaged bytes of its image and journal, the same rules', async () => {
    await crashedStore('large', 10_000, 4);
    const { image, journal } = filesOf('large');
    const units = imageUnits(image);
    const transactions = journalUnits(journal);
    expect(units.length).toBeGreaterThan(40);
    const random = rng(10_000);
    for (let n = 0; n < 24; n++) {
      const at = Math.floor(random() * image.length);
      const u = unitAt(units, at);
      const damaged = flip(image, at, random);
      expect(verifyStore({ image: bytes(damaged), journal: bytes(journal) })).toMatchObject({ ok: false, file: 'image.v8', offset: units[u]!.offset });
      expect(offsetsOf(scanImage(damaged).chunks)).toEqual(offsetsOf(without(units, u).slice(u === 0 ? 0 : 1)));
    }
    for (let n = 0; n < 12; n++) {
      const at = Math.floor(random() * journal.length);
      const u = unitAt(transactions, at);
      const result = verifyStore({ image: bytes(image), journal: bytes(flip(journal, at, random)) });
      expect(result).toMatchObject(u === transactions.length - 1 ? { ok: true, journal: { tornAt: transactions[u]!.offset } } : { ok: false, file: 'journal.log', offset: transactions[u]!.offset });
    }
    // The whole way, once: a byte of a chunk of facts.
    const factsChunk = units.findIndex((unit) => unit.facts.length > 0);
    const at = units[factsChunk]!.offset + 100;
    await openDamaged('large', 'image.v8', flip(image, at, random), { opens: false, offset: units[factsChunk]!.offset, expected: allFacts(without(units, factsChunk), transactions) }, 'large');
  });

  it('a store written before the current framing (an unframed image, a journal of `length | crc32 | payload`) opens, keeps the same rules, and is rewritten in the current framing by its next compaction', async () => {
    const { image, journal } = filesOf('small');
    const stores = imageOf(scanImage(image));
    const transactions = scanJournal(journal).records.map((record) => record.payload);
    const legacyFrame = (payload: Buffer) => {
      const header = Buffer.alloc(8);
      header.writeUInt32LE(payload.length, 0);
      header.writeUInt32LE(crc32(payload), 4);
      return Buffer.concat([header, payload]);
    };
    const legacyImage = serialize({ ...stores, format: 1 });
    const legacyJournal = Buffer.concat(transactions.map(legacyFrame));
    const ends = transactions.reduce<number[]>((list, payload) => [...list, (list.at(-1) ?? 0) + 8 + payload.length], []);
    const directory = join(root, 'legacy');
    mkdirSync(join(directory, NAME), { recursive: true });
    const write = (journalBytes: Buffer) => {
      writeFileSync(join(directory, NAME, 'image.v8'), legacyImage);
      writeFileSync(join(directory, NAME, 'journal.log'), journalBytes);
    };
    const everything = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'b0', 'b1', 'b2', 'b3', 'b4'];

    // Damage in the second record, with three after it: found, even without a checksummed length.
    const damaged = Buffer.from(legacyJournal);
    damaged.writeUInt32LE(0xffff, ends[0]!);
    write(damaged);
    const before = tree(directory);
    await expect(open(directory)).rejects.toMatchObject({ name: 'CorruptionError', offset: ends[0] });
    expect(tree(directory)).toEqual(before);
    const random = rng(99);
    for (let at = 0; at < ends.at(-2)!; at++) {
      expect(verifyStore({ image: bytes(legacyImage), journal: bytes(flip(legacyJournal, at, random)) }), `byte ${at}`).toMatchObject({ ok: false, file: 'journal.log' });
    }
    // A torn last record is cut; the store then writes on in its framing until a compaction.
    write(legacyJournal.subarray(0, ends.at(-1)! - 10));
    const memory = await open(directory);
    expect((await memory.facts.list({ userId: 'ana', limit: 100 })).map((fact) => fact.id).sort()).toEqual(['a1', 'a3', 'a5', 'b0', 'b1', 'b2', 'b3']);
    expect(statSync(join(directory, NAME, 'journal.log')).size).toBe(ends.at(-2));
    await memory.facts.add({ id: 'c0', userId: 'ana', text: 'written after the torn tail' });
    expect(scanJournal(readFileSync(join(directory, NAME, 'journal.log')))).toMatchObject({ format: 1, records: { length: 5 }, tornAt: null });
    await memory.close();
    expect([...readFileSync(join(directory, NAME, 'image.v8')).subarray(0, 4)]).toEqual([0xee, 0x6a, 0x72, 0xb2]);
    expect(statSync(join(directory, NAME, 'journal.log')).size).toBe(0);
    expect(await factIds(directory)).toEqual([...everything.filter((id) => id !== 'b4'), 'c0'].sort());

    // An unframed image that is not one: typed, never "Unable to deserialize".
    writeFileSync(join(directory, NAME, 'image.v8'), legacyImage.subarray(0, 100));
    await expect(open(directory)).rejects.toBeInstanceOf(CorruptionError);
  });

  it('repair of a store that opens as it is writes nothing; repair of no store is a StorageError that creates nothing', async () => {
    const directory = join(root, 'healthy');
    cpSync(join(root, 'small'), directory, { recursive: true });
    const before = tree(directory);
    expect(await repairStore(directory, NAME)).toMatchObject({ repaired: false, dropped: [] });
    expect(tree(directory)).toEqual(before);
    await expect(repairStore(join(root, 'nowhere'), NAME)).rejects.toBeInstanceOf(StorageError);
    expect(existsSync(join(root, 'nowhere'))).toBe(false);
  });
});
