/**
 * Embeds many texts in fixed-size batches. Texts are grouped by length first
 * so each batch pads to a similar length (padding is wasted work for the
 * model), then results are put back in the caller's order.
 */
export async function embedInBatches(
  texts: string[],
  batchSize: number,
  embedBatch: (batch: string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  if (texts.length <= batchSize) return embedBatch(texts);
  const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
  const out = new Array<Float32Array>(texts.length);
  for (let start = 0; start < order.length; start += batchSize) {
    const slice = order.slice(start, start + batchSize);
    const vectors = await embedBatch(slice.map((i) => texts[i]!));
    slice.forEach((originalIndex, j) => {
      out[originalIndex] = vectors[j]!;
    });
  }
  return out;
}
