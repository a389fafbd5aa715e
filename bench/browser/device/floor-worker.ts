/// <reference lib="webworker" />
import * as Comlink from 'comlink';
import { CompleteFloor } from './complete-floor.js';
import { syntheticTexts } from '../../synthetic.js';

/** The complete floor in its own Web Worker (engram's engine runs in one too), over Comlink as engram's is. */
let floor: CompleteFloor | undefined;
const api = {
  /** The same texts engram's store is built from (bench/browser/page/dataset.ts: seed 11). */
  build: (name: string, size: number) => CompleteFloor.build(name, syntheticTexts(size, 11)),
  async open(name: string) {
    floor = await CompleteFloor.open(name);
  },
  recall: (text: string) => floor!.recall(text),
  write: (texts: string[]) => floor!.write(texts),
  info: () => floor!.info(),
  close: () => floor!.close(),
};
export type FloorWorkerApi = typeof api;
Comlink.expose(api);
