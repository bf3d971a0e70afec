// The logit lens of a checkpoint run: the stream at one position after every layer (and the embedding), each read
// through the final norm and the output head with the run's own rows (head.js), and its top tokens.

/** The lens's states as a run passes them: keep(i, x) copies the stream x's row at the lens position as state i. */
export function lensStates(Module, lensAt, L, d) {
  if (!lensAt) return { rows: null, keep() {} };
  const rows = new Float32Array((L + 1) * d);
  const keep = (i, x) =>
    rows.set(Module.HEAPF32.subarray((x >> 2) + lensAt.position * d, (x >> 2) + (lensAt.position + 1) * d), i * d);
  return { rows, keep };
}

/** For each state i (0 = the embedding, L = after the last layer): its top-k ids, logits and probabilities. */
export function readLens(logits, rows, V, { k, position }) {
  const layers = [];
  for (let i = 0; i < rows; i++) {
    const row = logits.subarray(i * V, (i + 1) * V);
    let max = -Infinity;
    for (const v of row) max = Math.max(max, v);
    let sum = 0;
    for (const v of row) sum += Math.exp(v - max);
    const order = topK(row, k);
    layers.push({
      state: i,
      ids: Int32Array.from(order),
      logits: Float32Array.from(order, (j) => row[j]),
      probs: Float32Array.from(order, (j) => Math.exp(row[j] - max) / sum),
    });
  }
  return { position, k, layers };
}

function topK(row, k) {
  const best = []; // indices, kept sorted by descending value (ties: lower id first)
  for (let j = 0; j < row.length; j++) {
    if (best.length === k && row[j] <= row[best[k - 1]]) continue;
    let at = best.length;
    while (at > 0 && row[best[at - 1]] < row[j]) at--;
    best.splice(at, 0, j);
    if (best.length > k) best.pop();
  }
  return best;
}
