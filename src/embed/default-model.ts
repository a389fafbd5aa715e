/** The model the built-in embedder loads when the app names none (from the Hugging Face hub). */
export const DEFAULT_EMBEDDING_MODEL = 'Xenova/all-MiniLM-L6-v2';
