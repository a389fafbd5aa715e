/**
 * engram's Node build (package.json's `node` export condition): everything
 * in ./index.ts, with a `createMemory()` that also opens durable stores on
 * disk (`directory`). Kept apart so browser bundles never see node:fs.
 */
export * from './index.js';
export { createMemory } from './facade/create-memory-node.js';
