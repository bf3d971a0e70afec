// What a checkpoint run costs before it starts: the bytes it reads, its FLOPs, a time estimate, the largest read
// it holds in JS memory and the WASM bytes it reserves.
import { byteSize } from './dtypes.js';

// What cost() estimates a run's time from, fitted to npm run bench -- --only=checkpoint (docs/benchmarks.md,
// "Checkpoints"): one worker's WASM SIMD on BF16 weights with its reads from the OS cache overlapped (24.8 GFLOP/s
// on the 8B shapes, 20.8 on Qwen2.5-0.5B's), a split over N workers N x 0.93 as fast (1.87x measured for two),
// plus its four exchanges a layer (their posting and joining, about 2 ms each).
const ESTIMATE_FLOPS_PER_SECOND = 24e9;
const ESTIMATE_SPLIT_EFFICIENCY = 0.93;
const ESTIMATE_EXCHANGE_SECONDS = 2e-3;

/**
 * The cost function of a model (w: its weightLayout, residency: what stays between runs): cost(tokens, { lensRows,
 * workers }) counts the bytes a run of T positions reads from the files (every layer, the final norm, the head
 * whole, T embedding rows; none that residency holds), its multiply-adds as 2 FLOPs (projections, attention
 * scores and values, the head), and the largest single read it needs in JS memory.
 */
export function runCost(model, w, residency, modelBytes) {
  const { d, L, V, H, KV, headDim, ffn } = model.sizes;
  const { kept } = residency;
  return function cost(tokens = 16, { lensRows = 0, workers = 1 } = {}) {
    // tokens: a count, or the ids themselves (then the embedding rows already kept are not counted)
    const ids = typeof tokens === 'number' ? null : Array.from(tokens, Number);
    const T = ids ? ids.length : tokens;
    const q = H * headDim,
      kv = KV * headDim;
    const layerFlops = 2 * T * d * (2 * q + 2 * kv) + 2 * 2 * T * T * q + 2 * 3 * T * d * ffn;
    const headRows = 1 + lensRows;
    const embedRowsRead = residency.keeps() && ids ? new Set(ids.filter((id) => !kept.embedRows.has(id))).size : T;
    const bytesRead =
      (residency.warm(workers > 1)
        ? 0
        : w.byLayer.reduce((n, m) => n + w.fileBytes(m), 0) + w.finalNorm.byteLength + V * w.headRowBytes) +
      embedRowsRead * byteSize(w.embed.dtype, d);
    const flops = L * layerFlops + 2 * headRows * V * d;
    return {
      layers: L,
      modelBytes,
      bytesRead,
      flops,
      estimatedSeconds:
        workers > 1
          ? flops / (ESTIMATE_FLOPS_PER_SECOND * workers * ESTIMATE_SPLIT_EFFICIENCY) +
            4 * L * ESTIMATE_EXCHANGE_SECONDS
          : flops / ESTIMATE_FLOPS_PER_SECOND,
      largestRead: Math.max(w.largestLayerRead, w.chunkRows * w.headRowBytes),
      wasmBytes: w.layerBytes + w.stagingBytes + w.chunkRows * w.headRowBytes + (3 + 2 * L) * T * d * 4,
    };
  };
}
