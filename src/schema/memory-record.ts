import type { Episode } from './episode.js';
import type { Fact } from './fact.js';
import type { Turn } from './turn.js';

/** A memory recall can return: each has `id`, `type`, `userId`, `text` and the ranking fields. */
export type MemoryRecord = Episode | Fact | Turn;
