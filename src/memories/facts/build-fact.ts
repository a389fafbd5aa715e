import { newId } from '../../ids.js';
import type { WithUser } from '../../schema/default-user.js';
import type { Fact, FactInput } from '../../schema/fact.js';

/** Builds a stored fact from validated input, filling every default. */
export function buildFact(input: WithUser<FactInput>, now: number, source: Fact['source'] = 'manual'): Fact {
  const createdAt = input.createdAt ?? now;
  return {
    id: input.id ?? newId(),
    type: 'fact',
    userId: input.userId,
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

