// The first stream of a forward run: the embedding's rows of the tokens, read from the file (or kept from an
// earlier run where residency keeps them) and widened to float32.
import { byteSize } from './dtypes.js';

/** The embedding, gathered by rows into blocks.x (scaled as the family's forward scales it), as layer 0 reads it. */
export async function embed(ctx, tokens) {
  const { Module, blocks, reads, residency, keep, model } = ctx;
  const { kept } = residency;
  const { d } = model.sizes;
  const { embed: w } = ctx.weights;
  const { x } = blocks;
  const rowBytes = byteSize(w.dtype, d);
  const rows = tokens.every((id) => kept.embedRows.has(id))
    ? tokens.map((id) => kept.embedRows.get(id))
    : await reads.waited(
        'readWait',
        Promise.all(tokens.map((id) => kept.embedRows.get(id) ?? reads.read(w, id * rowBytes, (id + 1) * rowBytes))),
      );
  rows.forEach((bytes, t) => {
    ctx.copier.toF32(x + t * d * 4, w, bytes);
    if (kept.embedRows.has(tokens[t])) return;
    reads.release(bytes);
    if (keep) kept.embedRows.set(tokens[t], bytes.slice());
  });
  const scale = model.forward.embedScale;
  if (scale !== 1) {
    const view = Module.HEAPF32.subarray(x >> 2, (x >> 2) + tokens.length * d);
    for (let i = 0; i < view.length; i++) view[i] = Math.fround(view[i] * scale);
  }
}
