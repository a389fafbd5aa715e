import { floorPeer } from './floor-peer.js';

/** The floor: a WebAssembly SIMD f32 scan of one matrix (bench/floor/f32-scan.wat). */
export const wasmFloor = floorPeer('wasm', 'floor: WebAssembly SIMD f32 scan');
