import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import * as z from 'zod/mini';
import type { RecallHit } from '../engine.js';
import type { Memory } from '../facade/memory.js';
import type { RecallOptions } from '../schema/query.js';
import { parseInput } from '../schema/parse.js';

/** What a recalled memory carries into a Document's metadata. */
export interface EngramDocumentMetadata {
  id: string;
  type: 'fact' | 'episode' | 'turn';
  userId: string;
  createdAt: number;
  /** The hit's final score and its parts (similarity, keyword, recency, importance, pinned). */
  score: number;
  parts: RecallHit['parts'];
  tags: string[];
}

export interface EngramRetrieverInput extends BaseRetrieverInput {
  /** The memory to recall from (from `createMemory`). */
  memory: Pick<Memory, 'recall'>;
  /** Everything `recall` accepts (`userId`, `k`, `types`, `tags`, `since`, `until`, `filter`, ...); checked by `recall` on each call. */
  recallOptions?: RecallOptions;
}

const inputSchema = z.looseObject({
  memory: z.custom<Pick<Memory, 'recall'>>(
    (value) => typeof value === 'object' && value !== null && typeof (value as { recall?: unknown }).recall === 'function',
    'must be an engram memory (from createMemory)',
  ),
  recallOptions: z.optional(z.record(z.string(), z.unknown())),
});

/**
 * A LangChain.js retriever over `memory.recall`: each recalled fact or
 * episode becomes a `Document` whose `pageContent` is its text and whose
 * metadata says what it is and how it scored, best first.
 *
 *   const retriever = new EngramRetriever({ memory, recallOptions: { userId: 'u1', k: 5 } });
 *   const docs = await retriever.invoke('where does the user live?');
 */
export class EngramRetriever extends BaseRetriever<EngramDocumentMetadata> {
  static override lc_name() {
    return 'EngramRetriever';
  }
  override lc_namespace = ['engram', 'retrievers'];

  private readonly memory: Pick<Memory, 'recall'>;
  private readonly recallOptions: RecallOptions;

  constructor(fields: EngramRetrieverInput) {
    parseInput(inputSchema, fields, 'EngramRetriever', { copy: false });
    super(fields);
    this.memory = fields.memory;
    this.recallOptions = fields.recallOptions ?? {};
  }

  override async _getRelevantDocuments(query: string, _runManager?: CallbackManagerForRetrieverRun): Promise<Document<EngramDocumentMetadata>[]> {
    const hits = await this.memory.recall(query, this.recallOptions);
    return hits.map(
      (hit) =>
        new Document<EngramDocumentMetadata>({
          id: hit.memory.id,
          pageContent: hit.memory.text,
          metadata: {
            id: hit.memory.id,
            type: hit.memory.type,
            userId: hit.memory.userId,
            createdAt: hit.memory.createdAt,
            score: hit.score,
            parts: hit.parts,
            tags: hit.memory.tags ?? [],
          },
        }),
    );
  }
}
