/**
 * The version of engram's system prompts (./prompts.ts): bump it when a
 * prompt changes; it is stored on every episode the prompts produce. Its own
 * module so that exporting it does not put the prompts' text on the page.
 */
export const PROMPT_VERSION = 'engram-2026-11-2';
