/**
 * The page of `npm run bench:paired:text` (bench/browser/paired-text.ts):
 * engram's `recall(text)` (its Web Worker embeds the query, default
 * ranking, records read) against the complete end-to-end floor on this
 * page: the query embedded by the same model (`loadTransformersEmbedder`),
 * a WebAssembly SIMD f32 scan, then its k records read from IndexedDB in
 * one read-only transaction (../peers/complete-vector-floor.ts).
 * - `pairedText.build(config)`: both stores from the same texts, engram's
 *   embedded by its worker, the floor's by the page's embedder; both closed.
 * - `pairedText.run(config)`: both reopened as a page load finds them, 5
 *   warm-up questions each, then the questions in blocks taking turns
 *   (which system goes first alternates), so both meet the same load.
 */
import { createMemory, loadTransformersEmbedder, type Embedder, type Memory } from 'engram';
import { buildCompleteFloor, openCompleteFloor } from '../peers/complete-vector-floor.js';
import { syntheticTexts } from '../../synthetic.js';
import { percentiles, yieldToPage } from '../page/metrics.js';

const K = 10;
const WARMUP = 5;
/** Texts per addMany call and per floor batch while building. */
const BUILD_BATCH = 1000;

interface Config {
  name: string;
  model: string;
  size: number;
}

const embedderOptions = (model: string) => ({ model, localModelPath: `${location.origin}/models/`, allowRemoteModels: false, wasmPaths: `${location.origin}/ort/` });

const openEngram = (config: Config): Promise<Memory> => createMemory({ name: config.name, embedder: embedderOptions(config.model), workerStartTimeoutMs: 600_000 });

async function floorEmbedder(config: Config): Promise<Embedder> {
  return loadTransformersEmbedder(embedderOptions(config.model));
}

const pairedText = {
  async build(config: Config) {
    const texts = syntheticTexts(config.size, 11);
    const memory = await openEngram(config);
    for (let at = 0; at < texts.length; at += BUILD_BATCH) {
      await memory.facts.addMany(texts.slice(at, at + BUILD_BATCH).map((text) => ({ text })), { merge: false, returnRecords: false });
    }
    const { indexed, embedder } = await memory.info();
    await memory.close();
    const model = await floorEmbedder(config);
    const vectors: Float32Array[] = [];
    for (let at = 0; at < texts.length; at += BUILD_BATCH) vectors.push(...(await model.embed(texts.slice(at, at + BUILD_BATCH))));
    const floor = await buildCompleteFloor(model.dimension, config.size, texts, vectors);
    floor.close();
    return { indexed, dimension: embedder.dimension, floorDimension: model.dimension };
  },

  async run(config: Config & { questions: string[]; block: number; touch: boolean }) {
    const memory = await openEngram(config);
    const model = await floorEmbedder(config);
    const floor = await openCompleteFloor(model.dimension, config.size);
    const { indexed, embedder } = await memory.info();
    if (indexed !== config.size || floor.size !== config.size) throw new Error(`a reopened store lost memories: engram ${indexed}, floor ${floor.size} of ${config.size}`);
    if (embedder.dimension !== model.dimension) throw new Error(`engram embeds ${embedder.dimension}-d, the floor ${model.dimension}-d`);
    const systems = [
      (q: string) => memory.recall(q, config.touch ? {} : { touch: false }),
      async (q: string) => floor.query((await model.embed([q]))[0]!, K),
    ];
    for (const ask of systems) for (const q of config.questions.slice(0, WARMUP)) await ask(q);
    const latencies: number[][] = [[], []];
    const timed = config.questions.slice(WARMUP);
    for (let start = 0, turn = 0; start < timed.length; start += config.block, turn++) {
      const block = timed.slice(start, start + config.block);
      for (const s of turn % 2 === 0 ? [0, 1] : [1, 0]) {
        for (const q of block) {
          const t0 = performance.now();
          await systems[s]!(q);
          latencies[s]!.push(performance.now() - t0);
        }
      }
      await yieldToPage();
    }
    await memory.close();
    floor.close();
    return { engram: percentiles(latencies[0]!), floor: percentiles(latencies[1]!), dimension: model.dimension };
  },
};

Object.assign(globalThis, { pairedText });
