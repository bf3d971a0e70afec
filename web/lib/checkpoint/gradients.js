// ckpt.gradients: the backward of an opened checkpoint (wasm/src/checkpoint/backward.hpp), after one forward
// (runner.js's run, in this thread, keeping every layer's input stream and activations). The backward reads the
// weights again, top-down: the head by vocabulary chunks (dh = dz W), the final norm, then each layer, turning the
// gradient at the layer's output into the gradient at its input (the skip's g plus each branch's J^T g). Where
// the memory budget does not hold every layer's activations, the backward recomputes a layer's from its input.
// Weight gradients come back as Frobenius norms only.
import { ResidualLabError } from '../errors.js';
import { SLOTS } from './model.js';
import { KEEP_ACTIVATIONS, PROJECTIONS, heapBlocks, moduleError, weightLayout } from './runner.js';
import { DTYPE_CODES, valueCount } from './dtypes.js';

const OPTIONS = Object.freeze(['target', 'onProgress', 'signal', 'memoryLimit']);
const align16 = (bytes) => Math.ceil(bytes / 16) * 16;
const invalid = (message) => new ResidualLabError(message, { code: 'invalid_input' });

/** The gradients method of a checkpoint: runner is createRunner's (its run is the forward). */
export function createGradients(Module, model, weights, runner) {
  const { d, L, V, eps } = model.sizes;
  const f = model.forward;
  const {
    byLayer,
    embed,
    head,
    finalNorm,
    heapBytes,
    layerBytes,
    largestLayerRead,
    stagingBytes,
    headRowBytes,
    chunkRows,
  } = weightLayout(model, weights);
  const { H, headDim, ffn } = model.sizes;
  const panelFloats = Module._rl_ckpt_backward_panel_rows() * Math.max(d, H * headDim, ffn);
  const fail = () => moduleError(Module);

  return async function gradients(tokens, options = {}) {
    const opts = options ?? {};
    if (typeof opts !== 'object') throw invalid('the options must be an object');
    for (const key of Object.keys(opts))
      if (!OPTIONS.includes(key)) throw invalid(`options.${key} is not one of ${OPTIONS.join(', ')}`);
    const { target, onProgress = null, signal = null, memoryLimit } = opts;
    if (onProgress !== null && typeof onProgress !== 'function') throw invalid('options.onProgress must be a function');
    if (!(Array.isArray(tokens) || ArrayBuffer.isView(tokens)))
      throw invalid('the input must be a list of token ids (or a text, with tokenizer.json)');
    const T = tokens.length;
    const rows = lossRows(tokens, target, T, V); // [position, token id, weight]
    const cancelled = () => {
      if (signal?.aborted) throw new DOMException('the run was cancelled', 'AbortError');
    };

    const ids = Array.from(tokens, Number);
    const reads = { bytes: 0, count: 0 };
    const read = async (w, from = 0, to = w.byteLength, into = undefined) => {
      const bytes = await w.source.read(w.offset + from, w.offset + to, into);
      reads.bytes += bytes.length;
      reads.count += 1;
      return bytes;
    };

    const { alloc, freeAll } = heapBlocks(Module);
    try {
      const small = alloc((16 + 2 * SLOTS.length + d + 2 * T + 2 * d) * 4, "the layer's settings");
      const spec = small,
        slots = spec + 16 * 4,
        freq = slots + 2 * SLOTS.length * 4,
        norms = freq + d * 4,
        gain = norms + 2 * T * 4,
        dgain = gain + d * 4;
      Module.HEAPF32.set(model.spec, spec >> 2);
      // each layer's activations, kept by the forward for the backward where the memory budget allows them; else
      // the backward recomputes them from the layer's input
      const savedBytes = align16(Module._rl_ckpt_saved_floats(spec, T) * 4);
      let saved = 0;
      try {
        saved = alloc(L * savedBytes, 'the activations kept for the backward');
      } catch (error) {
        if (error.code !== 'out_of_memory') throw error;
      }
      const keptAt = (i) => (saved ? saved + i * savedBytes : 0);

      // the forward: every layer's input and (where kept) activations, and every position's logits
      const forward = await runner.run(tokens, {
        logits: 'all',
        hiddenStates: true,
        signal,
        ...(memoryLimit === undefined ? {} : { memoryLimit }),
        ...(onProgress ? { onProgress: (p) => onProgress({ ...p, pass: 'forward' }) } : {}),
        ...(saved ? { [KEEP_ACTIVATIONS]: keptAt } : {}),
      });
      const report = (stage, done) =>
        onProgress?.({
          pass: 'backward',
          stage,
          layer: done,
          layers: L,
          bytesRead: forward.reads.bytes + reads.bytes,
          bytesTotal: 2 * runner.cost(T).bytesRead,
        });

      // the loss and dloss/dz at the logits before the final soft-cap (z capped = cap tanh(z / cap))
      const { loss, dz } = lossGradient(forward.logits, rows, T, V, f.finalSoftcap);

      const view = (ptr, n) => Module.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + n);
      const g = alloc(T * d * 4, "the stream's gradient");
      const branch = alloc(T * d * 4, 'the branch-only gradient');
      const xin = alloc(T * d * 4, "a layer's input");
      const dzPtr = alloc(T * V * 4, "the logits' gradient");
      const hf = alloc(T * d * 4, 'the stream after the final norm');
      const dhf = alloc(T * d * 4, "the final norm's output gradient");
      const layer = alloc(layerBytes, "one layer's weights");
      const staging = alloc(stagingBytes, "the copy of one tensor's bytes");
      const chunk = alloc(chunkRows * headRowBytes, 'a chunk of the output head');
      const panel = alloc(panelFloats * 4, 'a panel of widened weights');
      const doubles = alloc((4 + SLOTS.length) * 8, 'the layer gradient sums');
      const gains = doubles,
        squares = doubles + 4 * 8;
      const toF32 = (dest, w, bytes) => {
        if (w.dtype === 'F32') Module.HEAPU8.set(bytes, dest);
        else {
          Module.HEAPU8.set(bytes, staging);
          Module._rl_ckpt_to_f32(dest, staging, valueCount(w.dtype, bytes.length), DTYPE_CODES[w.dtype]);
        }
      };
      const rowNorms = (ptr) => {
        Module._rl_ckpt_row_norms(norms, ptr, T, d);
        return Module.HEAPF32.slice(norms >> 2, (norms >> 2) + T);
      };
      const paramSquares = new Map(); // tensor name -> ||dloss/dW||^2

      // reads into two reused buffers, each one's next read started once its bytes are in the heap (fresh
      // buffers cost page faults: docs/checkpoints.md)
      const layerScratch = new Uint8Array(largestLayerRead);
      const readLayer = (i) => {
        let at = 0;
        const pending = Promise.all(
          [...byLayer[i].entries()].map(([slot, w]) => {
            const into = layerScratch.subarray(at, (at += w.byteLength));
            return read(w, 0, w.byteLength, into).then((bytes) => [slot, w, bytes]);
          }),
        );
        pending.catch(() => {});
        return pending;
      };
      let nextLayer = readLayer(L - 1);
      const chunkScratch = new Uint8Array(chunkRows * headRowBytes);
      const readChunk = (v0) => {
        const [from, to] = [v0 * headRowBytes, Math.min(V, v0 + chunkRows) * headRowBytes];
        const pending = read(head, from, to, chunkScratch.subarray(0, to - from));
        pending.catch(() => {});
        return pending;
      };

      // the head: dhf = dz W, chunk by chunk; ||dW||^2 = <dz dz^T, hf hf^T>
      Module.HEAPF32.set(dz, dzPtr >> 2);
      Module.HEAPF32.set(forward.finalHidden, hf >> 2);
      view(dhf, T * d).fill(0);
      let nextChunk = readChunk(0);
      for (let v0 = 0; v0 < V; v0 += chunkRows) {
        const n = Math.min(chunkRows, V - v0);
        const bytes = await nextChunk;
        cancelled();
        Module.HEAPU8.set(bytes, chunk);
        nextChunk = v0 + chunkRows < V ? readChunk(v0 + chunkRows) : null;
        const status = Module._rl_ckpt_head_backward(
          dhf,
          dzPtr + v0 * 4,
          V,
          T,
          d,
          chunk,
          DTYPE_CODES[head.dtype],
          n,
          panel,
        );
        if (status !== 0) throw fail();
      }
      const headSquare = Module._rl_ckpt_gram_product(dzPtr, V, hf, d, T);
      report('head', 0);

      // the final norm: g at h_L
      const gainBytes = await read(finalNorm);
      toF32(gain, finalNorm, gainBytes);
      view(g, T * d).fill(0);
      view(dgain, d).fill(0);
      Module.HEAPF32.set(forward.hiddenStates[L], xin >> 2);
      Module._rl_ckpt_rmsnorm_backward(g, dgain, dhf, xin, gain, T, d, eps, f.normOffset);
      paramSquares.set(finalNorm.name, sumSquares(view(dgain, d)));
      Module.HEAPF32.copyWithin(branch >> 2, g >> 2, (g >> 2) + T * d);

      const streamGrads = Array(L + 1),
        midGrads = Array(L),
        branchGains = Array(L),
        branchOnly = Array(L + 1);
      streamGrads[L] = rowNorms(g);
      branchOnly[L] = streamGrads[L].slice();
      for (let i = L - 1; i >= 0; i--) {
        cancelled();
        const fetched = await nextLayer;
        cancelled();
        const pointers = new Uint32Array(2 * SLOTS.length); // addresses, then dtype codes
        let at = layer;
        for (const [slot, w, bytes] of fetched) {
          const s = SLOTS.indexOf(slot);
          if (PROJECTIONS.has(slot)) {
            Module.HEAPU8.set(bytes, at);
            pointers[SLOTS.length + s] = DTYPE_CODES[w.dtype];
          } else toF32(at, w, bytes);
          pointers[s] = at;
          at += heapBytes(w);
        }
        nextLayer = i > 0 ? readLayer(i - 1) : null; // read while this layer runs
        Module.HEAPU32.set(pointers, slots >> 2);
        Module.HEAPF32.set(model.layers[i].invFreq, freq >> 2);
        Module.HEAPF32.set(forward.hiddenStates[i], xin >> 2);
        const status = Module._rl_ckpt_layer_backward(
          g,
          branch,
          xin,
          T,
          spec,
          slots,
          freq,
          model.layers[i].window,
          norms + T * 4,
          gains,
          squares,
          keptAt(i),
        );
        if (status !== 0) throw fail();
        midGrads[i] = Module.HEAPF32.slice((norms >> 2) + T, (norms >> 2) + 2 * T);
        const [attnOut, attnIn, mlpOut, mlpIn] = Module.HEAPF64.slice(gains >> 3, (gains >> 3) + 4);
        branchGains[i] = { attn: ratio(attnOut, attnIn), mlp: ratio(mlpOut, mlpIn) };
        const sq = Module.HEAPF64.slice(squares >> 3, (squares >> 3) + SLOTS.length);
        for (const [slot, w] of fetched) paramSquares.set(w.name, sq[SLOTS.indexOf(slot)]);
        streamGrads[i] = rowNorms(g);
        branchOnly[i] = rowNorms(branch);
        report('layer', L - i);
      }

      // the embedding: h_0[t] = scale * E[id_t], so dE[v] = scale * sum over t with id_t = v of g_0[t]; a tied
      // head's two uses add: dE[v] + dW_head[v], dW_head[v] = sum_s dz[s, v] hf[s]
      const g0 = Module.HEAPF32.slice(g >> 2, (g >> 2) + T * d);
      const hfRows = forward.finalHidden;
      let embedSquare = 0,
        cross = 0;
      for (const v of new Set(ids)) {
        const row = new Float64Array(d);
        ids.forEach((id, t) => {
          if (id === v) for (let j = 0; j < d; j++) row[j] += f.embedScale * g0[t * d + j];
        });
        embedSquare += sumSquares(row);
        if (head === embed)
          for (let s = 0; s < T; s++) {
            const z = dz[s * V + v];
            if (z !== 0) for (let j = 0; j < d; j++) cross += row[j] * z * hfRows[s * d + j];
          }
      }
      if (head === embed) paramSquares.set(embed.name, embedSquare + headSquare + 2 * cross);
      else {
        paramSquares.set(embed.name, embedSquare);
        paramSquares.set(head.name, headSquare);
      }
      const paramGradNorms = {};
      for (const name of weights.keys()) paramGradNorms[name] = Math.sqrt(Math.max(0, paramSquares.get(name) ?? 0));
      return {
        tokens: Int32Array.from(ids),
        loss,
        streamGrads,
        midGrads,
        branchGains,
        branchOnly,
        paramGradNorms,
        reads: {
          bytes: forward.reads.bytes + reads.bytes,
          count: forward.reads.count + reads.count,
          peakHeldBytes: forward.reads.peakHeldBytes,
          workerHeapBytes: forward.reads.workerHeapBytes,
        },
      };
    } finally {
      freeAll();
    }
  };
}

const ratio = (num, den) => (den > 0 ? Math.sqrt(num / den) : 0);
const sumSquares = (v) => v.reduce((s, x) => s + x * x, 0);

/** The rows the loss reads, [position, token, weight]: the next-token loss's T - 1, or the one target. */
function lossRows(tokens, target, T, V) {
  if (target === undefined) {
    if (T < 2)
      throw invalid(
        'the next-token loss needs at least two tokens (one to read, one to predict); give options.target for one',
      );
    return Array.from({ length: T - 1 }, (_, t) => [t, Number(tokens[t + 1]), 1 / (T - 1)]);
  }
  if (target === null || typeof target !== 'object') throw invalid('options.target must be { position, token }');
  for (const key of Object.keys(target))
    if (key !== 'position' && key !== 'token') throw invalid(`options.target.${key} is not one of position, token`);
  const { position, token } = target;
  if (!Number.isInteger(position) || position < 0 || position >= T)
    throw invalid(`options.target.position must be a position 0 .. ${T - 1}, is ${position}`);
  if (!Number.isInteger(token) || token < 0 || token >= V)
    throw invalid(`options.target.token must be a token id 0 .. ${V - 1}, is ${token}`);
  return [[position, token, 1]];
}

/**
 * The mean cross-entropy over `rows` (natural log) of the capped logits [T, V], and its gradient at the logits
 * before the cap: softmax - onehot, times the row's weight, times the cap's slope 1 - (z / cap)^2.
 */
function lossGradient(logits, rows, T, V, cap) {
  const dz = new Float32Array(T * V);
  let loss = 0;
  for (const [t, token, weight] of rows) {
    const z = logits.subarray(t * V, (t + 1) * V);
    const out = dz.subarray(t * V, (t + 1) * V);
    let max = -Infinity;
    for (let j = 0; j < V; j++) if (z[j] > max) max = z[j];
    let sum = 0;
    for (let j = 0; j < V; j++) sum += out[j] = Math.exp(z[j] - max); // exp(z - max), kept
    loss += weight * (max + Math.log(sum) - z[token]);
    for (let j = 0; j < V; j++) {
      const slope = cap > 0 ? 1 - (z[j] / cap) ** 2 : 1;
      out[j] = weight * (out[j] / sum - (j === token ? 1 : 0)) * slope;
    }
  }
  return { loss, dz };
}
