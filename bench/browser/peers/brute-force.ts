import { floorPeer } from './floor-peer.js';

/**
 * Brute force in plain JS: one Float32Array, a dot product per row with four
 * accumulators, and a threshold check before the k best are touched (the
 * tuned loop of bench/floor/f32-floor.ts; the first version of this peer
 * searched its top 10 for the worst on every row, at half this speed).
 */
export const bruteForce = floorPeer('js', 'brute force (tuned JS loop)');
