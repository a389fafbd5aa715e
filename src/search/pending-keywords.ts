import type { KeywordIndex } from './keyword-index.js';
import type { KeywordResult, QueuedPostings } from './keyword-query.js';
import { chunkAt, coalesceWrites, invert, isRemoval, postingsOf, withLists, type Chunk } from './keyword-queue-chunks.js';
import type { TermListsReader } from './term-lists.js';

/**
 * Queued documents in text form (no term lists) that a query may tokenise
 * rather than have every queued document built first: the writes replayed
 * at open are a few hundred; a rebuild from the records queues them all, and
 * then building is no dearer than tokenising.
 */
const MAX_QUEUED_TEXTS = 4096;
/**
 * Writes that may queue behind unbuilt postings: the next one builds
 * everything first. Each is a chunk of its own, which every query and build
 * step walks past, so calls that never pause (a bulk import one `add` at a
 * time right after an open) must not pile up more.
 */
const MAX_QUEUED_WRITES = 1024;
/** The most documents a chunk queued after a look may hold for the look to take it in rather than be taken again. */
const MAX_LOOK_EXTENSION = 256;

/** A document loaded in bulk: the ids of the page it came from (the very array queued), and its row there. */
export interface LoadedRow {
  ids: readonly string[];
  row: number;
}

/** What a query needs of the queue, worked out once per change of the queue (see `look`). */
interface Look {
  /** Position of queued row 0: the first document not built when the look was taken. */
  from: number;
  /**
   * Position of each id's last queued document, for the ids of chunks not `unqueued` (and those of `unqueued` chunks
   * queued again): an `unqueued` chunk's other ids have one queued document each, which counts.
   */
  lastOf: Map<string, number>;
  /** Position of each document of the `unqueued` chunks, by id: made when a write joining the look first needs it. */
  unqueuedAt?: Map<string, number>;
  /** Whether `unqueued` chunks were queued when the look was taken or joined it. */
  hasUnqueued: boolean;
  /** Ids whose last queued document is a removal. */
  removed: Set<string>;
  /** Ids queued more than once. */
  repeated: Set<string>;
  live: number;
  totalLength: number;
}

/**
 * A user's keyword index behind a queue of documents whose postings are
 * not built yet: those loaded in bulk at open (see index-sync/index-loader.ts),
 * kept as references into the arrays they were loaded from rather than one
 * object per document, and the writes since, handed to the index oldest
 * first, in as many steps as the caller likes. A null text is a removal:
 * in order, so a later removal or rewrite of a queued document wins.
 * Documents that come with their term lists (a snapshot page's,
 * search/term-lists.ts) are built from those, without tokenising their
 * texts.
 *
 * Nothing waits for the build (a pass over every document's terms, which
 * the first recall after an open waited for, or else the first
 * write): `query` answers from the postings built so far plus the queued
 * documents' term lists for the query's terms, exactly as the built index
 * would (KeywordIndex.query with `QueuedPostings`), and `write` joins the
 * queue while it is not empty (up to MAX_QUEUED_WRITES of them). That needs the built postings to be only
 * what this queue handed over: true at open, where the index starts empty;
 * otherwise, and when many queued documents are texts without lists, a
 * query builds everything first.
 */
export class PendingKeywords {
  private chunks: Chunk[] = [];
  private count = 0;
  /** Documents ever queued: the position the next one gets. */
  private added = 0;
  /** Term lists were loaded since the queue was last empty: the keyword index trims its lists once it is. */
  private trimDue = false;
  /** The built postings hold only documents this queue handed over (since it was last empty). */
  private ownsBuilt = true;
  /** Documents were built since the queue was last empty (a look taken now would not see them). */
  private builtSome = false;
  private looked: Look | undefined;
  /** Writes queued since the queue was last empty. */
  private writes = 0;

  /**
   * `locate`: where a document still in the form it was loaded in came from, as the ids of its bulk-loaded page and
   * its row there (search/doc-table.ts), or undefined: how a look finds an `unqueued` chunk's document by id without a
   * map of every queued id. Without it, a look maps them when it first needs one.
   */
  constructor(
    private readonly keywords: KeywordIndex,
    private readonly locate?: (id: string) => LoadedRow | undefined,
  ) {}

  get size(): number {
    return this.count;
  }

  /**
   * Queues documents `start` to `end` of parallel `ids` and `texts` (the
   * arrays must not change afterwards), and of `lists`, their terms, when
   * given (then no document is a removal, and `texts` may be left out).
   * `unqueued` (with `lists`): these ids are distinct, and none has a live
   * queued document (each earlier one is followed by a queued removal), as
   * a bulk load's pages (index-sync/index-loader.ts): queries then need no
   * map of every queued id.
   */
  add(ids: readonly string[], texts: readonly (string | null)[] | undefined, start = 0, end = ids.length, lists?: TermListsReader, unqueued = false): void {
    if (!texts && !lists) throw new RangeError('queued documents need their texts or their term lists');
    if (end <= start) return;
    if (this.count === 0) this.ownsBuilt = this.keywords.size === 0;
    const chunk: Chunk = { ids, texts, lists, next: start, end, base: this.added - start, ...(unqueued && lists ? { unqueued: true } : {}) };
    this.chunks.push(chunk);
    this.count += end - start;
    this.added += end - start;
    if (this.looked && !this.extendLook(this.looked, chunk)) this.looked = undefined;
  }

  /**
   * A write: built into the index at once when nothing is queued, else
   * queued behind what is (so a write never waits for the queue to be built,
   * and queries stay exact). A null text removes the document.
   */
  write(id: string, text: string | null): void {
    if (this.count > 0 && this.writes >= MAX_QUEUED_WRITES) this.drainInto();
    if (this.count > 0) {
      this.add([id], [text]);
      this.writes++;
    } else if (text === null) this.keywords.remove(id);
    else this.keywords.upsert(id, text);
  }

  /**
   * The best `limit` keyword matches for `text`, as the keyword index would
   * give them with every queued document built (see the class comment).
   */
  query(text: string, options: { limit: number; accept?: (id: string) => boolean }): KeywordResult {
    const look = this.count > 0 && this.ownsBuilt ? this.look() : undefined;
    if (!look) {
      this.drainInto();
      return this.keywords.query(text, options);
    }
    const from = this.position();
    const chunks = this.chunks;
    const queued: QueuedPostings = {
      size: this.added - from,
      live: look.live,
      totalLength: look.totalLength,
      *replaced() {
        for (const id of look.repeated) if (look.lastOf.get(id)! >= from) yield id;
      },
      idAt: (row) => {
        const chunk = chunkAt(chunks, row + from);
        return chunk.ids[row + from - chunk.base]!;
      },
      rowOf: (id) => {
        const at = look.lastOf.get(id) ?? (look.hasUnqueued ? this.unqueuedPosition(look, id, Infinity) : undefined);
        return at === undefined || at < from || look.removed.has(id) ? undefined : at - from;
      },
      postings: (tokens) => postingsOf(chunks, tokens, from),
    };
    return this.keywords.query(text, options, queued);
  }

  /**
   * Turns queued chunks' term lists around (term → documents), about eight
   * documents' worth for one of `budget` (and at least one chunk), so the
   * chunks no query has read yet are ready for one. Returns whether any
   * chunk is left to turn.
   */
  turnAround(budget: number): boolean {
    let turned = 0;
    for (const chunk of this.chunks) {
      if (!chunk.lists || chunk.inverted) continue;
      if (turned > 0 && turned >= budget * 8) return true;
      chunk.inverted = invert(chunk.lists, chunk.next, chunk.end);
      turned += chunk.end - chunk.next;
    }
    return false;
  }

  /**
   * Builds the postings of up to `budget` queued documents into the keyword
   * index; returns the work done, in documents. Every queued chunk's term
   * lists are counted first (`KeywordIndex.expectLists`, a chunk's
   * documents worth of budget each), so the postings are built into arrays
   * of their final size; then the documents are built in order.
   */
  drainInto(budget = Infinity): number {
    const keywords = this.keywords;
    let counted = 0;
    for (const chunk of this.chunks) {
      if (!chunk.lists || chunk.counted === chunk.end) continue;
      if (counted >= budget) return counted;
      chunk.counted ??= chunk.next;
      const stop = Math.min(chunk.end, chunk.counted + (budget - counted));
      keywords.expectLists(chunk.lists, chunk.counted, stop);
      counted += stop - chunk.counted;
      chunk.counted = stop;
      if (stop < chunk.end) return counted;
    }
    let built = 0;
    budget -= counted;
    while (built < budget && this.chunks.length > 0) {
      const chunk = this.chunks[0]!;
      const stop = Math.min(chunk.end, chunk.next + (budget - built));
      // Built documents leave what a look counts as queued.
      if (this.looked && chunk.last) {
        const { from, flags } = chunk.last;
        for (let i = chunk.next; i < stop; i++) {
          if (flags[i - from] === 0) continue;
          this.looked.live--;
          this.looked.totalLength -= chunk.lists!.length[i]!;
        }
      }
      if (chunk.lists) {
        keywords.upsertLists(chunk.ids, chunk.lists, chunk.next, stop);
        this.trimDue = true;
      } else {
        for (let i = chunk.next; i < stop; i++) {
          const text = chunk.texts![i]!;
          if (text === null) keywords.remove(chunk.ids[i]!);
          else keywords.upsert(chunk.ids[i]!, text);
        }
      }
      built += stop - chunk.next;
      this.builtSome = true;
      chunk.next = stop;
      if (chunk.next === chunk.end) this.chunks.shift();
    }
    this.count -= built;
    if (this.count === 0) {
      this.looked = undefined;
      this.builtSome = false;
      this.writes = 0;
      if (this.trimDue) {
        keywords.trim();
        this.trimDue = false;
      }
    }
    return counted + built;
  }

  /** Position of the first document not built yet. */
  private position(): number {
    const first = this.chunks[0];
    return first ? first.base + first.next : this.added;
  }

  /**
   * Works out, once per change of the queue, each queued id's last document,
   * the ids queued more than once, and the count and length of the
   * documents a query counts; queued texts get their term lists here (the
   * build then uses them too). Undefined when too many texts would need
   * tokenising, or when documents were built since the queue was last
   * empty (a look sees only what is queued, so it could not tell which
   * built rows a queued document replaces; the index builds everything).
   */
  private look(): Look | undefined {
    if (this.looked) return this.looked;
    if (this.builtSome) return undefined;
    let texts = 0;
    for (const chunk of this.chunks) {
      if (chunk.lists) continue;
      let removals = 0;
      for (let i = chunk.next; i < chunk.end; i++) if (isRemoval(chunk, i)) removals++;
      // A chunk is all texts or all removals (MemoryIndex queues removals one by one).
      if (removals > 0 && removals < chunk.end - chunk.next) return undefined;
      if (removals === 0) texts += chunk.end - chunk.next;
    }
    if (texts > MAX_QUEUED_TEXTS) return undefined;
    this.chunks = coalesceWrites(this.chunks);
    for (const chunk of this.chunks) withLists(chunk);
    const from = this.position();
    const look: Look = { from, lastOf: new Map(), removed: new Set(), repeated: new Set(), live: 0, totalLength: 0, hasUnqueued: false };
    // Only ids of chunks not `unqueued` can have more than one document queued: an `unqueued` chunk's id is mapped
    // only when one of those holds it too (a Set lookup per id, not a map entry per id).
    const others = new Set<string>();
    for (const chunk of this.chunks) {
      if (chunk.unqueued) look.hasUnqueued = true;
      else for (let i = chunk.next; i < chunk.end; i++) others.add(chunk.ids[i]!);
    }
    // Oldest first, so each id ends at its last document; an id whose set leaves the size as it was is repeated.
    const repeated = look.repeated;
    // Per `unqueued` chunk, its documents whose ids are mapped (the only ones of it that may not count).
    const mapped = new Map<Chunk, number[]>();
    for (const chunk of this.chunks) {
      if (chunk.unqueued && others.size === 0) continue;
      for (let i = chunk.next; i < chunk.end; i++) {
        if (chunk.unqueued) {
          if (!others.has(chunk.ids[i]!)) continue;
          let list = mapped.get(chunk);
          if (!list) mapped.set(chunk, (list = []));
          list.push(i);
        }
        const size = look.lastOf.size;
        look.lastOf.set(chunk.ids[i]!, chunk.base + i);
        if (look.lastOf.size === size) repeated.add(chunk.ids[i]!);
      }
    }
    for (const chunk of this.chunks) {
      const flags = new Uint8Array(chunk.end - chunk.next);
      const last = (chunk.last = { from: chunk.next, flags, dead: 0 });
      if (chunk.unqueued) {
        // Every document counts but those whose id is queued again later (an `unqueued` chunk holds no removal).
        flags.fill(1);
        const length = chunk.lists!.length;
        let sum = 0;
        for (let i = chunk.next; i < chunk.end; i++) sum += length[i]!;
        for (const i of mapped.get(chunk) ?? []) {
          if (look.lastOf.get(chunk.ids[i]!) === chunk.base + i) continue;
          flags[i - chunk.next] = 0;
          last.dead++;
          sum -= length[i]!;
        }
        look.live += chunk.end - chunk.next - last.dead;
        look.totalLength += sum;
        continue;
      }
      for (let i = chunk.next; i < chunk.end; i++) {
        if (isRemoval(chunk, i)) {
          if (look.lastOf.get(chunk.ids[i]!) === chunk.base + i) look.removed.add(chunk.ids[i]!);
          last.dead++;
          continue;
        }
        if (repeated.size > 0 && repeated.has(chunk.ids[i]!) && look.lastOf.get(chunk.ids[i]!) !== chunk.base + i) {
          last.dead++;
          continue;
        }
        flags[i - chunk.next] = 1;
        look.live++;
        look.totalLength += chunk.lists!.length[i]!;
      }
    }
    this.looked = look;
    return look;
  }

  /**
   * The position of `id`'s document in an `unqueued` chunk still queued before position `before` (the chunk joining
   * the look), if any, for an id not in the look's `lastOf` (then that document is its only one queued): by `locate`,
   * when given and it places the id in such a chunk; else by a map of those chunks' documents, made once per look.
   */
  private unqueuedPosition(look: Look, id: string, before: number): number | undefined {
    if (this.locate) {
      const loaded = this.locate(id);
      if (!loaded) return undefined;
      for (const chunk of this.chunks) {
        if (chunk.unqueued && chunk.ids === loaded.ids && loaded.row >= chunk.next && loaded.row < chunk.end) return chunk.base + loaded.row < before ? chunk.base + loaded.row : undefined;
      }
      return undefined;
    }
    return this.unqueuedAt(look, before).get(id);
  }

  /** The look's map of the `unqueued` chunks' documents still queued before `before`, by id (made once, when first needed). */
  private unqueuedAt(look: Look, before: number): Map<string, number> {
    if (look.unqueuedAt) return look.unqueuedAt;
    const at = new Map<string, number>();
    for (const chunk of this.chunks) {
      if (!chunk.unqueued || chunk.base + chunk.next >= before) continue;
      for (let i = chunk.next; i < chunk.end; i++) at.set(chunk.ids[i]!, chunk.base + i);
    }
    return (look.unqueuedAt = at);
  }

  /**
   * Takes a chunk queued after `look` into it: its documents count, and
   * the earlier queued documents of their ids stop counting. False when
   * the chunk is too big for that to be cheaper than a fresh look, or mixes
   * texts and removals.
   */
  private extendLook(look: Look, chunk: Chunk): boolean {
    if (chunk.end - chunk.next > MAX_LOOK_EXTENSION || !withLists(chunk)) return false;
    const from = this.position();
    const flags = new Uint8Array(chunk.end - chunk.next);
    const last = (chunk.last = { from: chunk.next, flags, dead: 0 });
    if (chunk.unqueued) look.hasUnqueued = true;
    for (let i = chunk.next; i < chunk.end; i++) {
      const id = chunk.ids[i]!;
      let previous = look.lastOf.get(id);
      if (previous === undefined && look.hasUnqueued) {
        previous = this.unqueuedPosition(look, id, chunk.base + chunk.next);
        // Its document may have been built since the look (then a build's row, which `replaced` names).
        look.repeated.add(id);
      }
      if (previous !== undefined) {
        look.repeated.add(id);
        if (previous >= from && !look.removed.has(id)) {
          const earlier = chunkAt(this.chunks, previous);
          const at = previous - earlier.base;
          earlier.last!.flags[at - earlier.last!.from] = 0;
          earlier.last!.dead++;
          look.live--;
          look.totalLength -= earlier.lists!.length[at]!;
        }
      }
      look.lastOf.set(id, chunk.base + i);
      if (isRemoval(chunk, i)) {
        look.removed.add(id);
        last.dead++;
        continue;
      }
      look.removed.delete(id);
      flags[i - chunk.next] = 1;
      look.live++;
      look.totalLength += chunk.lists!.length[i]!;
    }
    return true;
  }
}
