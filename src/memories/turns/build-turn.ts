import { newId } from '../../ids.js';
import type { WithUser } from '../../schema/default-user.js';
import type { Turn, TurnInput } from '../../schema/turn.js';

/** Builds a stored turn from validated input, filling every default; its `seq` is set when it is written (turn-store.ts). */
export function buildTurn(input: WithUser<TurnInput>, now: number): Turn {
  return {
    id: input.id ?? newId(),
    type: 'turn',
    userId: input.userId,
    sessionId: input.sessionId ?? null,
    speaker: input.speaker,
    text: input.text,
    seq: 0,
    importance: input.importance ?? 0.5,
    pinned: input.pinned ?? false,
    tags: input.tags ?? [],
    metadata: input.metadata ?? {},
    createdAt: input.createdAt ?? now,
    updatedAt: now,
    lastAccessedAt: now,
  };
}
