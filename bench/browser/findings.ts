/**
 * The analysis that goes with the figures: why engram is slower where it is,
 * and what would fix it. Written from measured runs (see bench/results/);
 * update it when the figures change.
 */
export const WHY_SLOWER: Record<string, string> = {};

export const CLOSING_NOTE = 'To be written from the first full run.';
