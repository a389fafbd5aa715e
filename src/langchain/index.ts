/**
 * engram/langchain: engram with LangChain.js (`@langchain/core`, an optional
 * peer dependency, major 1).
 *
 *   import { EngramRetriever } from 'engram/langchain';
 *   const retriever = new EngramRetriever({ memory, recallOptions: { userId: 'u1', k: 5 } });
 */
export { EngramRetriever, type EngramRetrieverInput, type EngramDocumentMetadata } from './engram-retriever.js';
