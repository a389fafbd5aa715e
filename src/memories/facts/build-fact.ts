import { newId } from '../../ids.js';
import { DEFAULT_USER_ID } from '../../schema/common.js';
import type { Fact, FactInput } from '../../schema/fact.js';

/** Builds a stored fact from validated input, filling every default. */
export function buildFact(input: FactInput, now: number, source: Fact['source'] = 'manual'): Fact {
  const createdAt = input.createdAt ?? now;
  return {
    id: input.id ?? newId(),
    type: 'fact',
    userId: input.userId ?? DEFAULT_USER_ID,
    sessionId: input.sessionId ?? null,
    text: input.text,
    category: input.category ?? 'other',
    importance: input.importance ?? 0.5,
    pinned: input.pinned ?? false,
    tags: input.tags ?? [],
    source,
    status: 'current',
    validFrom: createdAt,
    validUntil: null,
    supersededBy: null,
    metadata: input.metadata ?? {},
    createdAt,
    updatedAt: now,
    lastAccessedAt: now,
  };
}

