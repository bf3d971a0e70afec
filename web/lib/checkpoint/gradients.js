// ckpt.gradients: the backward of an opened checkpoint (wasm/src/checkpoint/backward.hpp), after one forward
// (runner.js's run, in this thread, keeping every layer's input stream and activations). The backward reads the
// weights again, top-down: the head by vocabulary chunks (dh = dz W), the final norm, then each layer, turning the
// gradient at the layer's output into the gradient at its input (the skip's g plus each branch's J^T g). Where
// the memory budget does not hold every layer's activations, the backward recomputes a layer's from its input.
// Weight gradients come back as Frobenius norms only.
import { ResidualLabError } from '../errors.js';
import { KEEP_ACTIVATIONS } from './runner.js';
import { align16, heapAllocator } from './heap.js';
import { heapCopier, weightLayout } from './layer-weights.js';
import { runReads } from './run-reads.js';
import { checkTokens } from './run-options.js';
import { checkpointLayout, encodeSpec } from './layout.js';
import { BACKWARD_STAGES, FORWARD_STAGES, groupCall, runStages, stageWords } from './split-stages.js';

const OPTIONS = Object.freeze(['target', 'onProgress', 'signal', 'memoryLimit']);
const invalid = (message) => new ResidualLabError(message, { code: 'invalid_input' });

/** The gradients method of a checkpoint: runner is createRunner's (its run is the forward). */
export function createGradients(Module, model, weights, runner) {
  const { d, L, V } = model.sizes;
  const f = model.forward;
  const w = weightLayout(model, weights);
  const { byLayer, largestLayerRead } = w;
  const { H, headDim, ffn } = model.sizes;
  const layout = checkpointLayout(Module);
  const panelFloats = layout.backwardPanelRows * Math.max(d, H * headDim, ffn);

  return async function gradients(allTokens, options = {}) {
    const { T: fullT, rows, onProgress, signal, memoryLimit } = checkOptions(allTokens, options, V);
    const cancelled = () => {
      if (signal?.aborted) throw new DOMException('the run was cancelled', 'AbortError');
    };
    // Causal attention: position t reads positions <= t only, so the positions after the last one the loss reads
    // change neither the loss nor any gradient before them, and every gradient at them is 0 (no loss term reads
    // them). The run stops at that position; its per-position arrays are padded with those zeros.
    const T = Math.max(...rows.map(([position]) => position)) + 1;
    const tokens = allTokens.slice(0, T);
    const ids = Array.from(tokens, Number);
    const reads = runReads(byLayer, largestLayerRead);

    const { alloc, freeAll, fail } = heapAllocator(Module);
    // split: the forward's workers run the backward's projections too, each its rows (split-stages.js)
    const pool = await runner.pool();
    try {
      const settings = settingsBlocks(Module, alloc, { T, d, L, layout, spec: model.spec });
      const { saved, keptAt } = settings;

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
          bytesRead: forward.reads.bytes + reads.account.bytesRead,
          bytesTotal: 2 * runner.cost(T).bytesRead,
        });

      // the loss and dloss/dz at the logits before the final soft-cap (z capped = cap tanh(z / cap))
      const { loss, dz } = lossGradient(Module, alloc, forward.logits, rows, { T, V, cap: f.finalSoftcap });

      const view = (ptr, n) => Module.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + n);
      const blocks = { ...settings, ...backwardBlocks(alloc, { T, d, V, w, panelFloats, layout }) };
      const { norms } = blocks;
      const copier = heapCopier(Module, layout, w.heapBytes, blocks.staging);
      const rowNorms = (ptr) => {
        Module._rl_ckpt_row_norms(norms, ptr, T, d);
        return Module.HEAPF32.slice(norms >> 2, (norms >> 2) + T);
      };
      const paramSquares = new Map(); // tensor name -> ||dloss/dW||^2
      const bk = { Module, layout, model, w, T, blocks, reads, copier, fail, cancelled, report, view, rowNorms, alloc };
      bk.split = pool && { ...bk, pool, keep: false, blocks: { ...blocks, next: stageWords(alloc) } };
      bk.code = copier.code;

      // reads into two reused buffers, each one's next read started once its bytes are in the heap (fresh
      // buffers cost page faults: docs/checkpoints.md)
      const nextLayer = pool ? null : reads.readLayer(L - 1);
      const headSquare = await headBackward(bk, { dz, finalHidden: forward.finalHidden });
      report('head', 0);

      await finalNormBackward(bk, { hiddenState: forward.hiddenStates[L], paramSquares });
      const layers = await layersBackward(bk, { hiddenStates: forward.hiddenStates, nextLayer, keptAt, paramSquares });

      embeddingSquares(bk, { ids, dz, finalHidden: forward.finalHidden, headSquare, paramSquares });
      const paramGradNorms = {};
      for (const name of weights.keys()) paramGradNorms[name] = Math.sqrt(Math.max(0, paramSquares.get(name) ?? 0));
      const padded = (row) => {
        const full = new Float32Array(fullT);
        full.set(row);
        return full;
      };
      return {
        tokens: Int32Array.from(allTokens, Number),
        loss,
        streamGrads: layers.streamGrads.map(padded),
        midGrads: layers.midGrads.map(padded),
        branchGains: layers.branchGains,
        branchOnly: layers.branchOnly.map(padded),
        paramGradNorms,
        reads: {
          bytes: forward.reads.bytes + reads.account.bytesRead,
          count: forward.reads.count + reads.account.reads,
          peakHeldBytes: forward.reads.peakHeldBytes,
          workerHeapBytes: forward.reads.workerHeapBytes,
        },
      };
    } catch (error) {
      if (pool) runner.dropPool(); // a backward cut short leaves work in the workers
      throw error;
    } finally {
      freeAll();
    }
  };
}

/** The final norm's backward: g at h_L from dhf, the gain's gradient's square into paramSquares; branch = g. */
async function finalNormBackward(bk, { hiddenState, paramSquares }) {
  const { Module, T } = bk;
  const { d, eps } = bk.model.sizes;
  const f = bk.model.forward;
  const { finalNorm } = bk.w;
  const { g, branch, xin, dhf, gain, dgain } = bk.blocks;
  const gainBytes = await bk.reads.read(finalNorm);
  bk.copier.toF32(gain, finalNorm, gainBytes);
  bk.view(g, T * d).fill(0);
  bk.view(dgain, d).fill(0);
  Module.HEAPF32.set(hiddenState, xin >> 2);
  Module._rl_ckpt_rmsnorm_backward(g, dgain, dhf, xin, gain, T, d, eps, f.normOffset);
  paramSquares.set(finalNorm.name, sumSquares(bk.view(dgain, d)));
  Module.HEAPF32.copyWithin(branch >> 2, g >> 2, (g >> 2) + T * d);
}

/**
 * The layer's settings (spec, slots, inverse frequencies, norms' rows, the final norm's gain and its gradient) and
 * the activations the forward keeps for the backward where the memory budget allows them (else the backward
 * recomputes them from the layer's input): keptAt(i) is layer i's block, or 0.
 */
function settingsBlocks(Module, alloc, { T, d, L, layout, spec: modelSpec }) {
  const SLOTS = layout.slots;
  const specFloats = Math.ceil(layout.spec.floats / 4) * 4;
  const small = alloc((specFloats + 2 * SLOTS.length + d + 2 * T + 2 * d) * 4, "the layer's settings");
  const spec = small,
    slots = spec + specFloats * 4,
    freq = slots + 2 * SLOTS.length * 4,
    norms = freq + d * 4,
    gain = norms + 2 * T * 4,
    dgain = gain + d * 4;
  Module.HEAPF32.set(encodeSpec(layout, modelSpec), spec >> 2);
  const savedBytes = align16(Module._rl_ckpt_saved_floats(spec, T) * 4);
  let saved = 0;
  try {
    saved = alloc(L * savedBytes, 'the activations kept for the backward');
  } catch (error) {
    if (error.code !== 'out_of_memory') throw error;
  }
  const keptAt = (i) => (saved ? saved + i * savedBytes : 0);
  return { spec, slots, freq, norms, gain, dgain, saved, keptAt };
}

/** The backward's blocks besides the layer's settings: the gradients, a layer's input, the weights' blocks. */
function backwardBlocks(alloc, { T, d, V, w, panelFloats, layout }) {
  const g = alloc(T * d * 4, "the stream's gradient");
  const branch = alloc(T * d * 4, 'the branch-only gradient');
  const xin = alloc(T * d * 4, "a layer's input");
  const dzPtr = alloc(T * V * 4, "the logits' gradient");
  const hf = alloc(T * d * 4, 'the stream after the final norm');
  const dhf = alloc(T * d * 4, "the final norm's output gradient");
  const layer = alloc(w.layerBytes, "one layer's weights");
  const staging = alloc(w.stagingBytes, "the copy of one tensor's bytes");
  const chunk = alloc(w.chunkRows * w.headRowBytes, 'a chunk of the output head');
  const panel = alloc(panelFloats * 4, 'a panel of widened weights');
  const doubles = alloc((4 + layout.slots.length) * 8, 'the layer gradient sums');
  return { g, branch, xin, dzPtr, hf, dhf, layer, staging, chunk, panel, gains: doubles, squares: doubles + 4 * 8 };
}

/** tokens and options of gradients(), checked: { T, rows (the loss's, lossRows), onProgress, signal, memoryLimit }. */
function checkOptions(tokens, options, V) {
  const opts = options ?? {};
  if (typeof opts !== 'object') throw invalid('the options must be an object');
  for (const key of Object.keys(opts))
    if (!OPTIONS.includes(key)) throw invalid(`options.${key} is not one of ${OPTIONS.join(', ')}`);
  const { target, onProgress = null, signal = null, memoryLimit } = opts;
  if (onProgress !== null && typeof onProgress !== 'function') throw invalid('options.onProgress must be a function');
  const T = checkTokens(tokens, V).length; // every id, those after the loss's last position too
  return { T, rows: lossRows(tokens, target, T, V), onProgress, signal, memoryLimit }; // rows: [position, id, weight]
}

/** The head's backward, chunk by chunk: dhf = dz W; returns ||dW||^2 = <dz dz^T, hf hf^T>. */
async function headBackward(bk, { dz, finalHidden }) {
  const { Module, T, blocks, reads, w } = bk;
  const { d, V } = bk.model.sizes;
  const { head, chunkRows, headRowBytes } = w;
  const { dzPtr, hf, dhf, chunk, panel } = blocks;
  const chunkScratch = new Uint8Array(chunkRows * headRowBytes);
  const readChunk = (v0) => {
    const [from, to] = [v0 * headRowBytes, Math.min(V, v0 + chunkRows) * headRowBytes];
    const pending = reads.read(head, from, to, chunkScratch.subarray(0, to - from));
    pending.catch(() => {});
    return pending;
  };
  Module.HEAPF32.set(dz, dzPtr >> 2);
  Module.HEAPF32.set(finalHidden, hf >> 2);
  if (bk.split) {
    // each worker its vocabulary rows of the head, as in the forward: dhf, the sum of their dz W
    const call = { layer: null, slots: [{ slot: 'head', outRows: V }], rows: T, backward: d, keep: false };
    call.next = [groupCall(bk.model.sizes.L - 1, 'down', bk.model.sizes)];
    const { outputs, bytesRead } = await reads.waited('exchangeWait', bk.split.pool.rows(call, dz));
    reads.account.bytesRead += bytesRead;
    Module.HEAPF32.set(outputs[0], dhf >> 2);
    return Module._rl_ckpt_gram_product(dzPtr, V, hf, d, T);
  }
  bk.view(dhf, T * d).fill(0);
  let nextChunk = readChunk(0);
  for (let v0 = 0; v0 < V; v0 += chunkRows) {
    const n = Math.min(chunkRows, V - v0);
    const bytes = await nextChunk;
    bk.cancelled();
    Module.HEAPU8.set(bytes, chunk);
    nextChunk = v0 + chunkRows < V ? readChunk(v0 + chunkRows) : null;
    const status = Module._rl_ckpt_head_backward(dhf, dzPtr + v0 * 4, V, T, d, chunk, bk.code(head.dtype), n, panel);
    if (status !== 0) throw bk.fail();
  }
  return Module._rl_ckpt_gram_product(dzPtr, V, hf, d, T);
}

/**
 * Each layer's backward, top-down (layer i's weights read while layer i + 1 runs): g from the layer's output to its
 * input in blocks.g, and the branch part alone in blocks.branch. Returns { streamGrads, midGrads, branchGains,
 * branchOnly }; each layer's weight gradients' squares go into paramSquares.
 */
async function layersBackward(bk, { hiddenStates, nextLayer, keptAt, paramSquares }) {
  const { Module, model, T, blocks } = bk;
  const { L } = model.sizes;
  const { g, branch, gains, norms } = blocks;
  const streamGrads = Array(L + 1),
    midGrads = Array(L),
    branchGains = Array(L),
    branchOnly = Array(L + 1);
  streamGrads[L] = bk.rowNorms(g);
  branchOnly[L] = streamGrads[L].slice();
  for (let i = L - 1; i >= 0; i--) {
    bk.cancelled();
    if (bk.split) await splitLayerBackward(bk, i, { hiddenStates, keptAt, paramSquares });
    else nextLayer = await localLayerBackward(bk, i, { hiddenStates, nextLayer, keptAt, paramSquares });
    const [attnOut, attnIn, mlpOut, mlpIn] = Module.HEAPF64.slice(gains >> 3, (gains >> 3) + 4);
    midGrads[i] = Module.HEAPF32.slice((norms >> 2) + T, (norms >> 2) + 2 * T);
    branchGains[i] = { attn: ratio(attnOut, attnIn), mlp: ratio(mlpOut, mlpIn) };
    streamGrads[i] = bk.rowNorms(g);
    branchOnly[i] = bk.rowNorms(branch);
    bk.report('layer', L - i);
  }
  return { streamGrads, midGrads, branchGains, branchOnly };
}

/** Layer i's backward here on its weights (read while layer i + 1 ran); starts layer i - 1's read, returned. */
async function localLayerBackward(bk, i, { hiddenStates, nextLayer, keptAt, paramSquares }) {
  const { Module, layout, model, T, blocks, reads } = bk;
  const { g, branch, xin, layer, gains, squares, spec, slots, freq, norms } = blocks;
  const fetched = await nextLayer;
  bk.cancelled();
  const pointers = bk.copier.copyLayer(fetched, layer);
  nextLayer = i > 0 ? reads.readLayer(i - 1) : null; // read while this layer runs
  Module.HEAPU32.set(pointers, slots >> 2);
  Module.HEAPF32.set(model.layers[i].invFreq, freq >> 2);
  Module.HEAPF32.set(hiddenStates[i], xin >> 2);
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
  if (status !== 0) throw bk.fail();
  const sq = Module.HEAPF64.slice(squares >> 3, (squares >> 3) + layout.slots.length);
  for (const [slot, [w]] of fetched) paramSquares.set(w.name, sq[layout.slotIndex[slot]]);
  return nextLayer;
}

/**
 * Layer i's backward split over the workers: its norms and biases read here, its projections in the workers (the
 * activations recomputed the same way where the forward kept none); the workers read layer i - 1's first rows ahead.
 */
async function splitLayerBackward(bk, i, { hiddenStates, keptAt, paramSquares }) {
  const { Module, layout, model, T, blocks, reads, w, split } = bk;
  const { g, branch, xin, layer, gains, squares, slots, freq, norms } = blocks;
  const small = w.smallOf(i);
  const bytes = await reads.waited('readWait', Promise.all(small.map((t) => reads.read(t))));
  bk.cancelled();
  const pointers = bk.copier.copyLayer(new Map(small.map((t, j) => [t.slot, [t, bytes[j]]])), layer, {
    projections: false,
  });
  for (const b of bytes) reads.release(b);
  Module.HEAPU32.set(pointers, slots >> 2);
  Module.HEAPF32.set(model.layers[i].invFreq, freq >> 2);
  Module.HEAPF32.set(hiddenStates[i], xin >> 2);
  let saved = keptAt(i);
  if (!saved) {
    const floats = Module._rl_ckpt_saved_floats(blocks.spec, T);
    bk.recompute ??= {
      saved: bk.alloc(floats * 4, "a layer's activations"),
      x: bk.alloc(T * model.sizes.d * 4, 'a copy of its input'),
    };
    ({ saved } = bk.recompute);
    Module.HEAPF32.set(hiddenStates[i], bk.recompute.x >> 2); // the forward's add writes over its x
    await runStages(split, i, FORWARD_STAGES, { x: bk.recompute.x, saved }, groupCall(i, 'down', model.sizes));
  }
  const after = i > 0 ? groupCall(i - 1, 'down', model.sizes) : null;
  const args = { x: xin, g, branch, saved, midGrads: norms + T * 4, gains, squares };
  await runStages(split, i, BACKWARD_STAGES, args, after);
  const sq = Module.HEAPF64.slice(squares >> 3, (squares >> 3) + layout.slots.length);
  for (const t of w.byLayer[i].values()) paramSquares.set(t.name, sq[layout.slotIndex[t.slot]]);
}

/** The embedding's weight gradient's square (and a tied head's, its two uses added) into paramSquares. */
function embeddingSquares(bk, { ids, dz, finalHidden, headSquare, paramSquares }) {
  const { Module, T, blocks } = bk;
  const { d, V } = bk.model.sizes;
  const f = bk.model.forward;
  const { embed, head } = bk.w;
  const { g } = blocks;
  // the embedding: h_0[t] = scale * E[id_t], so dE[v] = scale * sum over t with id_t = v of g_0[t]; a tied
  // head's two uses add: dE[v] + dW_head[v], dW_head[v] = sum_s dz[s, v] hf[s]
  const g0 = Module.HEAPF32.slice(g >> 2, (g >> 2) + T * d);
  const hfRows = finalHidden;
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
 * before the cap, row by row in C++ (wasm/src/checkpoint/loss.hpp; the cap's backward is the kernels').
 */
function lossGradient(Module, alloc, logits, rows, { T, V, cap }) {
  const dz = new Float32Array(T * V);
  const [z, dzRow, scratch] = ['a row of logits', 'its gradient', 'the softmax'].map((what) => alloc(V * 4, what));
  let loss = 0;
  for (const [t, token, weight] of rows) {
    Module.HEAPF32.set(logits.subarray(t * V, (t + 1) * V), z >> 2);
    loss += Module._rl_ckpt_cross_entropy_backward(dzRow, z, V, token, weight, cap, scratch);
    dz.set(Module.HEAPF32.subarray(dzRow >> 2, (dzRow >> 2) + V), t * V);
  }
  return { loss, dz };
}
