import type { StaticTable } from './static-table.js';

/** Token ids of a batch, padded to its longest row, and which positions are real tokens (./static-tokenizer.ts). */
export type BatchTokenizer = (texts: string[]) => { input_ids: { data: ArrayLike<number>; dims: number[] }; attention_mask: { data: ArrayLike<number> } };

/**
 * Embeds a batch as transformers.js's feature-extraction pipeline does for a
 * static model (the same token ids, mean pooling over the attention mask, L2
 * normalisation), with the table read directly. The mean's divisor
 * cancels in the normalisation, so only the weighted sum is computed.
 */
export function embedWithTable(table: StaticTable, tokenizer: BatchTokenizer, texts: string[]): Float32Array[] {
  const { input_ids: ids, attention_mask: mask } = tokenizer(texts);
  const length = ids.dims[1] ?? 0;
  const sum = new Float64Array(table.dimension);
  return texts.map((_, row) => {
    sum.fill(0);
    for (let t = row * length; t < (row + 1) * length; t++) {
      if (mask.data[t] === 0) continue;
      const id = ids.data[t]!;
      if (id < 0 || id >= table.vocabularySize) continue;
      const weight = table.tokenWeight(id);
      if (weight !== 0) table.addRow(id, weight, sum);
    }
    let norm = 0;
    for (let d = 0; d < sum.length; d++) norm += sum[d]! * sum[d]!;
    norm = Math.sqrt(norm);
    const out = new Float32Array(table.dimension);
    if (norm > 0) for (let d = 0; d < sum.length; d++) out[d] = sum[d]! / norm;
    return out;
  });
}
