// Where a checkpoint's weights go in the WASM heap, and their copy there, for the forward (runner.js), the split
// runs' coordinator (split-layer.js) and the backward (gradients.js) alike: the projections stay in the file's
// dtype (C++ widens them four rows at a time right before the matmul, checkpoint/forward.hpp), the norm weights
// and biases are widened to float32 once, through a staging block.
import { byteSize, valueCount } from './dtypes.js';
import { HEAD_CHUNK_BYTES, align16 } from './heap.js';

export const PROJECTIONS = new Set(['q', 'k', 'v', 'o', 'gate', 'up', 'down']); // kept in the file's dtype

/**
 * The tensors by layer and slot, each one's heap bytes (projections in the file's dtype, the rest widened to
 * float32), one layer's block, the largest layer read, the head's chunks and the staging block for widening.
 */
export function weightLayout(model, weights) {
  const { d, L, V } = model.sizes;
  const byLayer = Array.from({ length: L }, () => new Map());
  const global = new Map();
  for (const w of weights.values()) (w.layer === null ? global : byLayer[w.layer]).set(w.slot, w);
  const embed = global.get('embed');
  const head = global.get('head') ?? embed;
  const elements = (w) => valueCount(w.dtype, w.byteLength);
  const heapBytes = (w) => align16(PROJECTIONS.has(w.slot) ? w.byteLength : elements(w) * 4);
  const fileBytes = (layer) => [...layer.values()].reduce((n, w) => n + w.byteLength, 0);
  const smallOf = (i) => [...byLayer[i].values()].filter((w) => !PROJECTIONS.has(w.slot));
  // one layer's block: every slot's tensor; split, this thread's share of it: the norms and biases
  const layerBytesOf = (i) => [...byLayer[i].values()].reduce((n, w) => n + heapBytes(w), 0);
  const smallBytesOf = (i) =>
    Math.max(
      16,
      smallOf(i).reduce((n, w) => n + heapBytes(w), 0),
    );
  const headRowBytes = byteSize(head.dtype, d);
  const small = [...weights.values()].filter(
    (w) => !PROJECTIONS.has(w.slot) && w.slot !== 'embed' && w.slot !== 'head',
  );
  const layers = byLayer.map((_, i) => i);
  return {
    byLayer,
    embed,
    head,
    finalNorm: global.get('finalNorm'),
    heapBytes,
    fileBytes,
    smallOf,
    layerBytesOf,
    smallBytesOf,
    layerBytes: Math.max(...layers.map(layerBytesOf)),
    largestLayerRead: Math.max(...byLayer.map(fileBytes)),
    smallLayerBytes: Math.max(...layers.map(smallBytesOf)),
    headRowBytes,
    chunkRows: Math.max(1, Math.min(V, Math.floor(HEAD_CHUNK_BYTES / headRowBytes))),
    stagingBytes: Math.max(d * 4, ...small.map((w) => w.byteLength)),
  };
}

/**
 * The copy into the heap: toF32(dest, w, bytes) widens w's bytes (already read) to float32 at dest through
 * `staging`; copyLayer(tensors, at, { projections }) lays a layer's tensors (Map slot -> [w, bytes]) out from
 * `at` and returns the pointers the raw exports read (checkpoint_bindings.cpp: every slot's address, 0 for none,
 * then its dtype code); `projections: false` copies the norms and biases alone (a split run's share).
 */
export function heapCopier(Module, layout, heapBytes, staging) {
  const code = (dtype) => layout.dtypes[dtype].code;
  const toF32 = (dest, w, bytes) => {
    if (w.dtype === 'F32') {
      Module.HEAPU8.set(bytes, dest);
      return;
    }
    Module.HEAPU8.set(bytes, staging);
    Module._rl_ckpt_to_f32(dest, staging, valueCount(w.dtype, bytes.length), code(w.dtype));
  };
  const copyLayer = (tensors, at, { projections = true } = {}) => {
    const n = layout.slots.length;
    const pointers = new Uint32Array(2 * n);
    for (const [s, slot] of layout.slots.entries()) {
      const [w, bytes] = tensors.get(slot) ?? [];
      if (!w || (!projections && PROJECTIONS.has(slot))) continue;
      if (PROJECTIONS.has(slot)) {
        Module.HEAPU8.set(bytes, at);
        pointers[n + s] = code(w.dtype);
      } else toF32(at, w, bytes);
      pointers[s] = at;
      at += heapBytes(w);
    }
    return pointers;
  };
  return { code, toF32, copyLayer };
}
