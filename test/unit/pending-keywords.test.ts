import { describe, expect, it, vi } from 'vitest';
import { KeywordIndex } from '../../src/search/keyword-index.js';
import type { KeywordResult } from '../../src/search/keyword-query.js';
import { PendingKeywords, type LoadedRow } from '../../src/search/pending-keywords.js';
import { readTermLists, termListsOf } from '../../src/search/term-lists.js';
import { rng } from '../../bench/synthetic.js';

/**
 * A query while keyword postings are still queued (src/search/pending-keywords.ts)
 * reads the queue instead of building it, and answers exactly what the index
 * with everything built answers: the same hits in the same order, the same
 * scores bit for bit, the same raw score for every id and the same matches.
 */
const WORDS = ['guitar', 'guitars', 'piano', 'lessons', 'Tuesday', 'Zürich', 'café', 'the', 'hiking', 'Porto', '東京で寿司を食べました', 'x', 'budget', 'flight'];
const QUERIES = ['guitar lessons', 'piano on tuesday', 'zurich cafe', '東京', 'hiking porto x', '#17', 'budget flight guitar piano', 'nothing matches this'];

type Step = { kind: 'page'; ids: string[]; texts: string[] } | { kind: 'texts'; ids: string[]; texts: string[] } | { kind: 'write'; id: string; text: string | null };

function scenario(seed: number): { steps: Step[]; ids: string[] } {
  const random = rng(seed);
  const text = () => `${Array.from({ length: 1 + Math.floor(random() * 10) }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ')} #${Math.floor(random() * 40)}`;
  const steps: Step[] = [];
  const ids: string[] = [];
  let next = 0;
  // Snapshot pages (some ids on two pages: the later wins), a few texts, then replayed writes and removals.
  for (let p = 0; p < 6; p++) {
    const count = 50 + Math.floor(random() * 300);
    const pageIds = Array.from({ length: count }, () => (random() < 0.05 && next > 0 ? `m${Math.floor(random() * next)}` : `m${next++}`));
    steps.push({ kind: 'page', ids: [...new Set(pageIds)], texts: [...new Set(pageIds)].map(() => text()) });
  }
  const textIds = Array.from({ length: 40 }, () => `m${next++}`);
  steps.push({ kind: 'texts', ids: textIds, texts: textIds.map(() => text()) });
  for (let w = 0; w < 120; w++) {
    const id = random() < 0.85 ? `m${Math.floor(random() * next)}` : `m${next++}`;
    steps.push({ kind: 'write', id, text: random() < 0.3 ? null : text() });
  }
  for (let i = 0; i < next + 5; i++) ids.push(`m${i}`);
  return { steps, ids };
}

/** The queue the steps make, as MemoryIndex fills it at open. */
function queue(steps: Step[]): PendingKeywords {
  const pending = new PendingKeywords(new KeywordIndex());
  for (const step of steps) {
    if (step.kind === 'page') pending.add(step.ids, undefined, 0, step.ids.length, readTermLists(termListsOf(step.texts), step.texts.length));
    else if (step.kind === 'texts') pending.add(step.ids, step.texts);
    else pending.add([step.id], [step.text]);
  }
  return pending;
}

/** The index the steps make when applied one by one. */
function reference(steps: Step[]): KeywordIndex {
  const index = new KeywordIndex();
  for (const step of steps) {
    if (step.kind === 'write') {
      if (step.text === null) index.remove(step.id);
      else index.upsert(step.id, step.text);
    } else {
      step.ids.forEach((id, i) => index.upsert(id, step.texts[i]!));
    }
  }
  return index;
}

const even = (id: string) => Number(id.slice(1)) % 2 === 0;

function answer(result: KeywordResult, ids: string[]): unknown {
  const matches: [string, number][] = [];
  result.forEach(0, (id, score) => matches.push([id, score]));
  return { hits: result.hits, best: result.best, scores: ids.map((id) => result.scoreOf(id)), matches };
}

function answers(query: (text: string, options: { limit: number; accept?: (id: string) => boolean }) => KeywordResult, ids: string[]): unknown[] {
  return QUERIES.flatMap((text) => [answer(query(text, { limit: 10 }), ids), answer(query(text, { limit: 3, accept: even }), ids)]);
}

describe('keyword queries over queued postings', () => {
  it('answer as the built index does, before, during and after the build, with writes joining the queue, without building anything', () => {
    for (const seed of [1, 2, 3]) {
      const { steps, ids } = scenario(seed);
      const built = reference(steps);
      const pending = queue(steps);
      const queued = pending.size;
      const same = () => expect(answers((text, options) => pending.query(text, options), ids)).toEqual(answers((text, options) => built.query(text, options), ids));
      same();
      // Reading the queue built nothing.
      expect(pending.size).toBe(queued);
      const random = rng(seed + 100);
      let writes = 0;
      while (pending.size > 0) {
        if (writes < 30 && random() < 0.8) {
          // A write meanwhile (a rewrite, a removal, a new id, twice the same id): it joins the queue, the reference takes it at once.
          const id = ids[Math.floor(random() * ids.length)]!;
          const text = random() < 0.3 ? null : `${WORDS[writes % WORDS.length]} guitar written ${writes}`;
          const before = pending.size;
          pending.write(id, text);
          expect(pending.size).toBe(before + 1);
          if (text === null) built.remove(id);
          else built.upsert(id, text);
          writes++;
        } else {
          pending.drainInto(1 + Math.floor(random() * 300));
        }
        same();
      }
      expect(writes).toBe(30);
    }
  });

  it('answer the same when the queue grows after part of it was built, or over postings built before it (then they build first)', () => {
    const { steps, ids } = scenario(7);
    const half = Math.floor(steps.length / 2);
    const expected = answers((text, options) => reference(steps).query(text, options), ids);

    // Part built, then more queued: the query builds the rest first.
    const growing = queue(steps.slice(0, half));
    // In steps, as the background build goes, until some documents are built.
    const queued = growing.size;
    while (growing.size === queued) growing.drainInto(64);
    expect(growing.size).toBeGreaterThan(0);
    expect(growing.size).toBeLessThan(queued);
    for (const step of steps.slice(half)) {
      if (step.kind === 'page') growing.add(step.ids, undefined, 0, step.ids.length, readTermLists(termListsOf(step.texts), step.texts.length));
      else if (step.kind === 'texts') growing.add(step.ids, step.texts);
      else growing.add([step.id], [step.text]);
    }
    expect(answers((text, options) => growing.query(text, options), ids)).toEqual(expected);
    expect(growing.size).toBe(0);

    // Postings built by writes before anything was queued: the same.
    const index = reference(steps.slice(0, half));
    const after = new PendingKeywords(index);
    for (const step of steps.slice(half)) {
      if (step.kind === 'write') after.add([step.id], [step.text]);
      else after.add(step.ids, step.texts);
    }
    expect(answers((text, options) => after.query(text, options), ids)).toEqual(expected);
  });

  it('build everything before a write that would queue more than 1,024 writes (calls that never pause)', () => {
    const { steps, ids } = scenario(5);
    const built = reference(steps);
    const pending = queue(steps);
    pending.query('guitar', { limit: 5 });
    const queued = pending.size;
    for (let i = 0; i < 1024; i++) pending.write(ids[i % ids.length]!, i % 5 === 0 ? null : `piano write ${i}`);
    expect(pending.size).toBe(queued + 1024);
    pending.write('m1', 'the 1,025th write');
    expect(pending.size).toBe(0);
    for (let i = 0; i < 1024; i++) {
      const id = ids[i % ids.length]!;
      if (i % 5 === 0) built.remove(id);
      else built.upsert(id, `piano write ${i}`);
    }
    built.upsert('m1', 'the 1,025th write');
    expect(answers((text, options) => pending.query(text, options), ids)).toEqual(answers((text, options) => built.query(text, options), ids));
  });

  it('read lists an older engram saved in first-seen order', () => {
    const { steps, ids } = scenario(11);
    const expected = answers((text, options) => reference(steps).query(text, options), ids);
    const pending = new PendingKeywords(new KeywordIndex());
    for (const step of steps) {
      if (step.kind === 'page') {
        const lists = readTermLists(termListsOf(step.texts), step.texts.length)!;
        // The same lists with their terms numbered in reverse: unsorted, as first-seen order mostly is.
        const last = lists.terms.length - 1;
        const unsorted = { ...lists, terms: [...lists.terms].reverse(), term: lists.term.map((n) => last - n), sorted: false };
        pending.add(step.ids, undefined, 0, step.ids.length, unsorted);
      } else if (step.kind === 'texts') pending.add(step.ids, step.texts);
      else pending.add([step.id], [step.text]);
    }
    const queued = pending.size;
    expect(answers((text, options) => pending.query(text, options), ids)).toEqual(expected);
    expect(pending.size).toBe(queued);
  });

  /** Where each id's document sits while it is as a page loaded it, as MemoryIndex's DocTable answers (`loadedAt`). */
  function loadedRows() {
    const at = new Map<string, LoadedRow>();
    return { at, locate: (id: string) => at.get(id) };
  }

  for (const located of [true, false]) {
    it(`answer the same from pages queued as a bulk load queues them (ids not queued already), with writes to their ids after the first query (${located ? 'found by where they were loaded' : 'mapped by the queue'})`, () => {
      for (const seed of [21, 22]) {
        const { steps, ids } = scenario(seed);
        // As index-sync/index-loader.ts queues a snapshot's pages: an id already queued is removed (a queued removal) first.
        const bulk: Step[] = [];
        const live = new Set<string>();
        for (const step of steps) {
          if (step.kind === 'page') {
            for (const id of step.ids) if (live.has(id)) bulk.push({ kind: 'write', id, text: null });
            step.ids.forEach((id) => live.add(id));
          }
          bulk.push(step);
        }
        expect(bulk.length).toBeGreaterThan(steps.length);
        const built = reference(bulk);
        const rows = loadedRows();
        const pending = new PendingKeywords(new KeywordIndex(), located ? rows.locate : undefined);
        for (const step of bulk) {
          if (step.kind === 'page') {
            pending.add(step.ids, undefined, 0, step.ids.length, readTermLists(termListsOf(step.texts), step.texts.length), true);
            step.ids.forEach((id, row) => rows.at.set(id, { ids: step.ids, row }));
          } else if (step.kind === 'texts') {
            pending.add(step.ids, step.texts);
            step.ids.forEach((id) => rows.at.delete(id));
          } else {
            pending.add([step.id], [step.text]);
            rows.at.delete(step.id);
          }
        }
        const same = () => expect(answers((text, options) => pending.query(text, options), ids)).toEqual(answers((text, options) => built.query(text, options), ids));
        same();
        // Writes joining the look, some to ids only a page holds; builds in between (a build's rows, then written again).
        const random = rng(seed + 200);
        let writes = 0;
        while (pending.size > 0) {
          if (writes < 30 && random() < 0.7) {
            const id = ids[Math.floor(random() * ids.length)]!;
            const text = random() < 0.25 ? null : `${WORDS[writes % WORDS.length]} piano written ${writes}`;
            // The write reaches the queue before the table lets go of the loaded row (MemoryIndex.upsert and remove).
            pending.write(id, text);
            rows.at.delete(id);
            if (text === null) built.remove(id);
            else built.upsert(id, text);
            writes++;
          } else pending.drainInto(1 + Math.floor(random() * 200));
          same();
        }
      }
    });
  }

  it('map no page id for the first query after a bulk load: only the ids written since', () => {
    const { steps } = scenario(31);
    const pages = steps.filter((step): step is Extract<Step, { kind: 'page' }> => step.kind === 'page');
    const rows = loadedRows();
    const pending = new PendingKeywords(new KeywordIndex(), rows.locate);
    const seen = new Set<string>();
    let queued = 0;
    for (const page of pages) {
      const fresh = page.ids.filter((id) => !seen.has(id));
      fresh.forEach((id) => seen.add(id));
      pending.add(fresh, undefined, 0, fresh.length, readTermLists(termListsOf(fresh.map((id) => `${id} guitar`)), fresh.length), true);
      fresh.forEach((id, row) => rows.at.set(id, { ids: fresh, row }));
      queued += fresh.length;
    }
    const written = ['m1', 'm2', 'new1'];
    for (const id of written) {
      pending.add([id], [`${id} piano`]);
      rows.at.delete(id);
    }
    expect(queued).toBeGreaterThan(500);
    const set = vi.spyOn(Map.prototype, 'set');
    try {
      const result = pending.query('nothing matches this', { limit: 10 });
      expect(result.hits).toEqual([]);
      expect(result.scoreOf('m7')).toBe(0);
      expect(result.scoreOf('m1')).toBe(0);
      // No map entry for a page's id unless it was written since.
      const pageIdsMapped = set.mock.calls.filter(([key]) => typeof key === 'string' && seen.has(key) && !written.includes(key));
      expect(pageIdsMapped).toEqual([]);
    } finally {
      set.mockRestore();
    }
    const guitar = pending.query('guitar', { limit: 3 });
    expect(guitar.hits).toHaveLength(3);
    expect(guitar.scoreOf('m1')).toBe(0);
    expect(guitar.scoreOf('m7')).toBeGreaterThan(0);
  });

  it('take a page of documents by their term lists alone (a snapshot page keeps no texts), and refuse documents with neither', () => {
    const pending = new PendingKeywords(new KeywordIndex());
    expect(() => pending.add(['a'], undefined)).toThrow(RangeError);
    expect(pending.size).toBe(0);
  });
});
