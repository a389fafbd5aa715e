/**
 * The model the built-in embedder loads when the app names none: the 128-d
 * static model that ships with engram (models/minishlab/potion-base-4M-int8),
 * read from the package's own files, so nothing is fetched from another host.
 */
export const DEFAULT_EMBEDDING_MODEL = 'minishlab/potion-base-4M-int8';
