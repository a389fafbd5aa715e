/**
 * In a browser, transformers.js (and the ONNX runtime's 26.9 MB .wasm) is
 * reached only through engram/transformers: without it a transformer model
 * is an EmbedderError that says how to ask for it; with it, the loader it
 * hands in is used. (A browser is simulated: a `document` global.)
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmbedderError } from '../../src/errors.js';
import { importTransformers, provideTransformers } from '../../src/embed/import-transformers.js';

afterEach(() => vi.unstubAllGlobals());

describe('importTransformers in a browser', () => {
  it('refuses a transformer model until engram/transformers provides the runtime, then loads it from there', async () => {
    vi.stubGlobal('document', {});
    const error = await importTransformers('Xenova/all-MiniLM-L6-v2').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbedderError);
    expect((error as EmbedderError).details).toEqual({ reason: 'transformers-not-bundled', model: 'Xenova/all-MiniLM-L6-v2' });
    expect((error as Error).message).toContain("import { transformersWorker } from 'engram/transformers'");
    expect((error as Error).message).toContain("import { loadTransformersEmbedder } from 'engram/transformers'");

    const runtime = { pipeline: () => undefined } as unknown as typeof import('@huggingface/transformers');
    const load = vi.fn(async () => runtime);
    provideTransformers(load);
    expect(await importTransformers('Xenova/all-MiniLM-L6-v2')).toBe(runtime);
    expect(load).toHaveBeenCalledTimes(1);
  });
});
