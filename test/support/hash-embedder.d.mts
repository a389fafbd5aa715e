import type { Embedder } from '../../src/index.js';
export declare const hashEmbedder: Embedder;
