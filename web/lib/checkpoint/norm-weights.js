// ckpt.normWeights(): every norm tensor's statistics, and for the (1 + w) convention those of the multiplier
// actually applied, 1 + w. A GGUF of Gemma stores 1 + w itself (storedOffset 1): its values are the multiplier.
import { decodeFloats } from './dtypes.js';

function stats(values) {
  let sum = 0,
    min = Infinity,
    max = -Infinity;
  for (const v of values) {
    sum += v;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  const mean = sum / values.length;
  let squares = 0;
  for (const v of values) squares += (v - mean) ** 2;
  return { mean, std: Math.sqrt(squares / values.length), min, max };
}

/**
 * [{ name, layer, slot, size, mean, std, min, max, multiplier: { mean, std, min, max } | null }], each norm tensor
 * read from its file, all reads at once (a browser's File read waits milliseconds before its first byte, and a
 * model has two or more norms a layer).
 */
export async function normWeightStats(weights, model) {
  const offset = model.forward.normOffset;
  const storedOffset = model.forward.storedNormOffset ?? 0;
  const norms = [...weights.values()].filter((w) => /norm/i.test(w.slot));
  const read = await Promise.all(norms.map((w) => w.source.read(w.offset, w.offset + w.byteLength)));
  const rows = [];
  for (const [i, w] of norms.entries()) {
    const values = decodeFloats(w.dtype, read[i]);
    const multiplier = offset
      ? stats(Array.from(values, (v) => Math.fround(offset + v)))
      : storedOffset
        ? stats(values)
        : null;
    rows.push({
      name: w.name,
      layer: w.layer,
      slot: w.slot,
      size: values.length,
      ...stats(values),
      multiplier,
      storedOffset,
    });
  }
  return rows;
}
