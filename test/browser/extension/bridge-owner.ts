/**
 * The bridge test's background service worker: owns the memory (engram
 * bundled in as one file, in-process on the offline model packed in the
 * extension) and serves it to the rest of the extension.
 */
import { createMemory } from 'engram';
import { serveMemory } from 'engram/extension';

serveMemory(createMemory({ name: 'bridge-notes', worker: false, embedder: { model: 'minishlab/potion-base-4M-int8', localModelPath: '/models/' } }));
