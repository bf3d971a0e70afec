// The forward of an opened checkpoint over the lab's C++ kernels (wasm/bindings/checkpoint_bindings.cpp).
// Memory: the weights stay in their files. A run reads each tensor's byte range when it needs it (files.js
// weightSource) and holds in the WASM heap the stream [T, d], ONE layer's weights (refilled for every layer: the
// projections as the file's bytes, which C++ widens to float32 four rows at a time right before the matmul kernel
// reads them; norm weights and biases in float32), one vocabulary chunk of the output head's bytes, and the
// logits of the rows asked for. The embedding is gathered by rows. In JS a run holds the bytes of the next layer
// (or head chunk), read while the current one runs from the WASM heap. A run whose largest read exceeds
// options.memoryLimit is refused; every WASM block is reserved against the memory budget first: a run that does
// not fit is refused, never aborted.
// A run is a loop over parts with one job each: its options (run-options.js), its heap blocks (heap.js,
// run-blocks.js), its reads (run-reads.js), the embedding (embedding.js), the copy of a layer's weights
// (layer-weights.js), a layer here (local-layer.js) or split over workers (split-layer.js), the final norm and
// the head (head.js), the lens (lens.js), residency (residency.js) and the cost beforehand (cost.js).
import { ResidualLabError } from '../errors.js';
import { runCost } from './cost.js';
import { embed } from './embedding.js';
import { headLayout, runHead } from './head.js';
import { heapAllocator } from './heap.js';
import { checkpointLayout, encodeSpec } from './layout.js';
import { heapCopier, weightLayout } from './layer-weights.js';
import { lensStates, readLens } from './lens.js';
import { localLayers } from './local-layer.js';
import { createResidency } from './residency.js';
import { collectedLists, keepObservations, observationBlocks, runBlocks } from './run-blocks.js';
import { checkRunOptions } from './run-options.js';
import { runReads } from './run-reads.js';
import { splitLayers, splitWeights } from './split-layer.js';
import { savedSplitLayers } from './split-stages.js';

export { defaultResidencyBudget } from './residency.js';
export { COLLECTABLE, DEFAULT_MEMORY_LIMIT, MAX_TOKENS } from './run-options.js';

/** A run option of gradients.js alone: (layer) => the heap block where that layer's activations are kept. */
export const KEEP_ACTIVATIONS = Symbol('keep activations');

const megabytes = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/**
 * model: describeModel's; weights: name -> { slot, layer, shape, dtype, source, offset, byteLength };
 * checkUnchanged(): rejects when a file changed since opening; shards: { get(): Promise<pool | null>, drop() } (the
 * workers a run is split over, shards.js; null: this thread alone).
 */
export function createRunner(
  Module,
  model,
  weights,
  checkUnchanged = async () => {},
  shards = null,
  { residencyBudget = 0 } = {},
) {
  const w = weightLayout(model, weights);
  const modelBytes = [...weights.values()].reduce((n, t) => n + t.byteLength, 0);
  const residency = createResidency(Module, { L: model.sizes.L, modelBytes, residencyBudget });
  const cost = runCost(model, w, residency, modelBytes);
  const runner = { Module, layout: checkpointLayout(Module), model, w, residency, cost, checkUnchanged, shards };
  runner.lastPool = null; // the workers of the last run, whose kept bytes residency() reports
  return {
    run: (ids, options = {}) => forward(runner, ids, options),
    cost,
    /** The workers runs are split over (shards.js), or null: this thread alone. */
    pool: async () => (await shards?.get()) ?? null,
    /** Ends the workers after a run cut short (their memory and what they kept with them). */
    dropPool() {
      shards?.drop();
      residency.forgetWorkers();
      runner.lastPool = null;
    },
    /** Which mode the model runs in and what stays between runs (docs/checkpoints.md, "Residency"). */
    residency: (pool = runner.lastPool) => residency.report(pool),
    dispose() {
      residency.forget();
      runner.lastPool = null;
      Module._rl_ckpt_release_workspace();
      shards?.drop();
    },
  };
}

/** One run: options checked, the heap's blocks reserved, the embedding, every layer, the head; then the result. */
async function forward(runner, ids, options) {
  const { Module, layout, model, w, residency, shards } = runner;
  const { d, L, V, H } = model.sizes;
  const opts = checkRunOptions(ids, options, { L, d, V, normOffset: model.forward.normOffset });
  const { tokens, T, signal, hooks, order } = opts;
  const cancelled = () => {
    if (signal?.aborted) throw new DOMException('the run was cancelled', 'AbortError');
  };
  cancelled();
  await runner.checkUnchanged();
  // a forward for the backward (gradients.js) keeps every layer's activations here, in this thread; split, its
  // projections run in the workers (split-stages.js)
  const saveActivations = options?.[KEEP_ACTIVATIONS] ?? null;
  const pool = (await shards?.get()) ?? null;
  runner.lastPool = pool;
  // split, the shares keep the model where it is kept (this thread its own share, shards.js), not this runner
  const keep = residency.keeps() && !(saveActivations && shards && !pool);
  checkMemoryLimit(opts.memoryLimit, pool, w, V);

  const reads = runReads(w.byLayer, w.largestLayerRead);
  const started = performance.now();
  const busyBefore = pool ? [...pool.busySeconds] : [];
  const heap = heapAllocator(Module);
  try {
    const blocks = runBlocks(heap.alloc, { T, d, V, layout, w, pool, headRows: opts.headRows });
    const obs = observationBlocks(heap.alloc, opts.wanted, { T, H, headStats: layout.headStats });
    const normOffset = hooks.normOffset ?? model.forward.normOffset;
    const ctx = { Module, layout, model, T, opts, blocks, reads, residency, keep, pool, obs, normOffset };
    Object.assign(ctx, { weights: w, heap, alloc: heap.alloc, fail: heap.fail, cancelled, saveActivations, order });
    Object.assign(ctx, { branchCount: opts.branches.length, nextRun: (i) => order[order.indexOf(i) + 1] ?? null });
    ctx.copier = heapCopier(Module, layout, w.heapBytes, blocks.staging);
    const bytesTotal = runner.cost(tokens, { workers: pool ? pool.count : 1 }).bytesRead; // before the run keeps any
    ctx.report = (stage, done) =>
      opts.onProgress?.({ stage, layer: done, layers: L, bytesRead: reads.account.bytesRead, bytesTotal });

    // the first layer's reads start before the embedding's rows are gathered
    const local = pool ? null : localLayers(ctx);
    local?.readAhead(order[0] ?? null);
    if (hooks.from) Module.HEAPF32.set(hooks.from.stream, blocks.x >> 2);
    else await embed(ctx, tokens);
    // the layer spec with each norm offset the run and its variants read (a variant's own: an offset apart)
    ctx.specs = new Map([[normOffset, blocks.spec]]);
    for (const { normOffset: offset } of opts.branches)
      if (!ctx.specs.has(offset)) ctx.specs.set(offset, heap.alloc(layout.spec.floats * 4, "a variant's layer spec"));
    for (const [offset, at] of ctx.specs)
      Module.HEAPF32.set(encodeSpec(layout, { ...model.spec, norm_offset: offset }), at >> 2);
    ctx.split = pool ? splitLayers(ctx) : null;
    const collected = collectedLists(opts.wanted, L);
    const lens = lensStates(Module, opts.lensAt, L, d);
    const variantLens = opts.branches.map(() => lensStates(Module, opts.lensAt, L, d));
    const split = pool && (saveActivations ? savedSplitLayers(ctx, splitWeights) : ctx.split);
    const layers = await runLayers(ctx, pool ? split.run : local.run, { lens, variantLens, collected, heap });
    const head = await runHead(ctx, {
      lensRows: lens.rows,
      variantLensRows: variantLens.map((l) => l.rows),
      variantStreams: layers.variantStreams,
      collected,
    });
    ctx.report('head', L);
    const { account } = reads;
    return {
      tokens: Int32Array.from(tokens),
      streamNorms: layers.streamNorms,
      attnNorms: layers.attnNorms,
      mlpNorms: layers.mlpNorms,
      finalNorms: head.finalNorms,
      logits: opts.logitRows ? head.allLogits.slice(0, opts.logitRows * V) : null,
      reads: {
        bytes: account.bytesRead,
        count: account.reads,
        peakHeldBytes: account.peakHeld,
        workerHeapBytes: pool ? [...pool.heapBytes] : [],
      },
      // where this thread's time went: waiting for reads, waiting for the workers' projections, the rest its own
      timings: {
        seconds: (performance.now() - started) / 1000,
        readWaitSeconds: account.readWait / 1000,
        exchangeWaitSeconds: account.exchangeWait / 1000,
        workerBusySeconds: pool ? pool.busySeconds.map((b, i) => b - busyBefore[i]) : [],
      },
      residency: residency.report(pool),
      ...(opts.hiddenStates ? { hiddenStates: layers.states, finalHidden: head.finalHidden } : {}),
      ...headRows(opts, head, { L, V }),
      ...(opts.wanted.size ? { collected } : {}),
    };
  } catch (error) {
    if (pool) {
      shards.drop(); // a run cut short leaves work in the workers: end them, the next run starts anew
      residency.forgetWorkers(); // and what they kept with them
      runner.lastPool = null;
    }
    throw error;
  } finally {
    heap.freeAll();
  }
}

/**
 * The layers from opts.start on, each by `layer` (here or split) on the run's stream and the variants' that compute
 * it; the stream's norms (and states, the lens's rows, the observations asked for) after each.
 */
async function runLayers(ctx, layer, { lens, variantLens, collected, heap }) {
  const { Module, T, blocks, opts } = ctx;
  const { d, L, H } = ctx.model.sizes;
  const { hooks, branches, start } = opts;
  const { x } = blocks;
  const heapRows = (ptr, rows) => Module.HEAPF32.slice(ptr >> 2, (ptr >> 2) + rows * d);
  const rowNorms = (ptr, rows) => {
    Module._rl_ckpt_row_norms(blocks.norms, ptr, rows, d);
    return Module.HEAPF32.slice(blocks.norms >> 2, (blocks.norms >> 2) + rows);
  };
  // states before `start` were not computed by this run: null
  const streamNorms = [...Array(start).fill(null), rowNorms(x, T)];
  const states = opts.hiddenStates ? [...Array(start).fill(null), heapRows(x, T)] : null;
  const attnNorms = Array(start).fill(null),
    mlpNorms = Array(start).fill(null);
  lens.keep(0, x);
  // each variant's stream, from the layer where it leaves the run's (null: it has not left)
  const variantStreams = branches.map(() => null);
  variantLens.forEach((l) => l.keep(0, x));
  for (let i = start; i < L; i++) {
    if (hooks.skip.has(i)) {
      // the layer's two increments are not added: the stream passes unchanged
      attnNorms.push(null);
      mlpNorms.push(null);
    } else {
      ctx.cancelled();
      // variants leaving the run here keep its stream as it is before this layer, which they skip
      branches.forEach((b, k) => {
        if (b.at !== i) return;
        variantStreams[k] = heap.alloc(T * d * 4, "a variant's stream");
        Module.HEAPU8.copyWithin(variantStreams[k], x, x + T * d * 4);
      });
      const others = [];
      branches.forEach((b, k) => {
        const stream = variantStreams[k];
        if (stream && !b.skip.has(i))
          others.push({ stream, spec: ctx.specs.get(b.normOffset), normOffset: b.normOffset });
      });
      const [attn, mlp] = await layer(i, others);
      attnNorms.push(attn);
      mlpNorms.push(mlp);
      keepObservations(Module, ctx.obs, collected, i, { T, H, headStats: ctx.layout.headStats });
    }
    streamNorms.push(rowNorms(x, T));
    states?.push(heapRows(x, T));
    lens.keep(i + 1, x);
    variantLens.forEach((l, k) => l.keep(i + 1, variantStreams[k] ?? x));
    ctx.report('layer', i + 1);
  }
  return { streamNorms, states, attnNorms, mlpNorms, variantStreams };
}

/**
 * The rows read through the head besides the run's own logits: the lens, headInputLogits, variantLogits and, with a
 * lens, each variant's (variantLens).
 */
function headRows(opts, { allLogits }, { L, V }) {
  const { logitRows, lensCount, lensAt, headInputs, branches } = opts;
  const { variantsAt, variantLensAt } = headLayout(opts);
  const out = {};
  if (lensAt) out.lens = readLens(allLogits.subarray(logitRows * V), L + 1, V, lensAt);
  if (headInputs) out.headInputLogits = allLogits.slice((logitRows + lensCount) * V, variantsAt * V);
  if (branches.length) out.variantLogits = allLogits.slice(variantsAt * V, (variantsAt + branches.length) * V);
  if (branches.length && lensAt)
    out.variantLens = branches.map((_, k) =>
      readLens(allLogits.subarray((variantLensAt + k * lensCount) * V), L + 1, V, lensAt),
    );
  return out;
}

/** Refuses a run whose largest read exceeds memoryLimit: a layer's bytes here, or a worker's share of one. */
function checkMemoryLimit(memoryLimit, pool, w, V) {
  const needed = Math.max(
    pool ? Math.ceil(w.largestLayerRead / pool.count) : w.largestLayerRead,
    Math.min(w.chunkRows, V) * w.headRowBytes,
  );
  if (needed > memoryLimit)
    throw new ResidualLabError(
      `a run reads ${megabytes(needed)} at once (${pool ? "a worker's share of a layer" : "one layer's weights"}), more than the memory limit of ${megabytes(memoryLimit)}`,
      { code: 'out_of_memory' },
    );
}
