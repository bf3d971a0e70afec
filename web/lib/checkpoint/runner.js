// The forward of an opened checkpoint over the lab's C++ kernels (wasm/bindings/checkpoint_bindings.cpp).
// Memory: the weights stay in their files. A run reads each tensor's byte range when it needs it (files.js
// weightSource) and holds in the WASM heap the stream [T, d], ONE layer's weights (refilled for every layer: the
// projections as the file's bytes, which C++ widens to float32 four rows at a time right before the matmul kernel
// reads them; norm weights and biases in float32), one vocabulary chunk of the output head's bytes, and the
// logits of the rows asked for. The embedding is gathered by rows. In JS a run holds the bytes of the next layer
// (or head chunk), read while the current one runs from the WASM heap. A run whose largest read exceeds
// options.memoryLimit is refused; every WASM block is reserved against the memory budget first: a run that does
// not fit is refused, never aborted.
import { ResidualLabError } from '../errors.js';
import { SLOTS } from './model.js';
import { DTYPE_CODES, byteSize, valueCount } from './dtypes.js';

export const MAX_TOKENS = 4096;
const MAX_VARIANTS = 256; // each holds a stream of its own, T x d
const HEAD_CHUNK_BYTES = 16 << 20; // the output head's rows are read and copied in 16 MB at a time
export const PROJECTIONS = new Set(['q', 'k', 'v', 'o', 'gate', 'up', 'down']); // kept in the file's dtype
const align16 = (bytes) => Math.ceil(bytes / 16) * 16;
// JS bytes a run may hold at once by default (read buffers not yet copied into the WASM heap): one layer of an
// 8B model in BF16 is 436 MB.
export const DEFAULT_MEMORY_LIMIT = 1 << 30;
// What a thread's heap keeps free for a run's own blocks (the stream, one layer, a head chunk, the logits) when
// the weights stay in it; and the device memory assumed where neither navigator.deviceMemory nor node's os tells.
const RESIDENCY_HEADROOM_BYTES = 256 << 20;
const DEFAULT_DEVICE_BYTES = 4 * 2 ** 30;

/**
 * The default residency budget: half the device's memory, and no more than `threads` heaps can hold besides a
 * run's blocks (each heap's memory budget, core/memory_budget.hpp, less RESIDENCY_HEADROOM_BYTES).
 */
export function defaultResidencyBudget(Module, threads) {
  const device =
    (globalThis.navigator?.deviceMemory ?? 0) * 2 ** 30 ||
    globalThis.process?.getBuiltinModule?.('node:os')?.totalmem?.() ||
    DEFAULT_DEVICE_BYTES;
  const perThread = Math.max(0, Module._rl_memory_budget_bytes() - RESIDENCY_HEADROOM_BYTES);
  return Math.min(device / 2, threads * perThread);
}

// What cost() estimates a run's time from, fitted to npm run bench -- --only=checkpoint (docs/benchmarks.md,
// "Checkpoints"): one worker's WASM SIMD on BF16 weights with its reads from the OS cache overlapped (24.8 GFLOP/s
// on the 8B shapes, 20.8 on Qwen2.5-0.5B's), a split over N workers N x 0.93 as fast (1.87x measured for two),
// plus its four exchanges a layer (their posting and joining, about 2 ms each).
const ESTIMATE_FLOPS_PER_SECOND = 24e9;
const ESTIMATE_SPLIT_EFFICIENCY = 0.93;
const ESTIMATE_EXCHANGE_SECONDS = 2e-3;

const abortError = () => new DOMException('the run was cancelled', 'AbortError');

/**
 * Where a checkpoint's weights go in the WASM heap, for a forward and a backward alike: the tensors by layer and
 * slot, each one's heap bytes (projections in the file's dtype, the rest widened to float32), one layer's block,
 * the largest layer read, the head's chunks and the staging block for widening.
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
  const headRowBytes = byteSize(head.dtype, d);
  const small = [...weights.values()].filter(
    (w) => !PROJECTIONS.has(w.slot) && w.slot !== 'embed' && w.slot !== 'head',
  );
  return {
    byLayer,
    embed,
    head,
    finalNorm: global.get('finalNorm'),
    heapBytes,
    fileBytes,
    // one layer's block: every slot's tensor, in SLOTS order
    layerBytes: Math.max(...byLayer.map((m) => [...m.values()].reduce((n, w) => n + heapBytes(w), 0))),
    largestLayerRead: Math.max(...byLayer.map(fileBytes)),
    smallLayerBytes: Math.max(
      16,
      ...byLayer.map((m) =>
        [...m.values()].filter((w) => !PROJECTIONS.has(w.slot)).reduce((n, w) => n + heapBytes(w), 0),
      ),
    ),
    headRowBytes,
    chunkRows: Math.max(1, Math.min(V, Math.floor(HEAD_CHUNK_BYTES / headRowBytes))),
    stagingBytes: Math.max(d * 4, ...small.map((w) => w.byteLength)),
  };
}

/** A run option of gradients.js alone: (layer) => the heap block where that layer's activations are kept. */
export const KEEP_ACTIVATIONS = Symbol('keep activations');

/** A run's WASM blocks: alloc(bytes, what) reserves one against the memory budget (or throws its refusal). */
export function heapBlocks(Module) {
  const blocks = [];
  const alloc = (bytes, what) => {
    const name = Module._malloc(what.length + 1);
    Module.stringToUTF8(what, name, what.length + 1);
    const p = Module._rl_ckpt_alloc(bytes, name);
    Module._free(name);
    if (!p) throw moduleError(Module);
    blocks.push(p);
    return p;
  };
  const freeAll = () => {
    for (const p of blocks.splice(0)) Module._rl_ckpt_free(p);
  };
  return { alloc, freeAll };
}

/** The ResidualLabError of the C++ side's last refusal (rl_error_message, rl_error_code). */
export function moduleError(Module) {
  const message = Module.UTF8ToString(Module._rl_error_message());
  const code = Module.UTF8ToString(Module._rl_error_code());
  return new ResidualLabError(message, { code });
}

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
  const { d, L, V, eps, H, KV, headDim, ffn } = model.sizes;
  const f = model.forward;
  const {
    byLayer,
    embed,
    head,
    finalNorm,
    heapBytes,
    fileBytes,
    layerBytes,
    largestLayerRead,
    smallLayerBytes,
    headRowBytes,
    chunkRows,
    stagingBytes,
  } = weightLayout(model, weights);
  const panelFloats = Module._rl_ckpt_panel_rows() * d;

  const fail = () => moduleError(Module);

  // Residency: while the model's bytes fit residencyBudget, what a run copies into the heap stays there for the
  // next runs (split: each worker keeps its own rows, shards.js; this thread the norms and biases), and the
  // embedding's rows stay as read, by token id. A block the heap's budget refuses is read per run instead.
  const modelBytes = [...weights.values()].reduce((n, w) => n + w.byteLength, 0);
  const keptHeap = heapBlocks(Module);
  const kept = {
    layers: Array(L).fill(null), // { pointers } of a layer copied whole (one thread)
    small: Array(L).fill(null), // { pointers } of a layer's norms and biases (split: the workers hold the rest)
    finalNorm: 0,
    head: 0, // the output head's block, its rows all copied once headFilled
    headFilled: false,
    embedRows: new Map(), // token id -> the row's bytes in the file's dtype
    bytes: 0,
    workerLayers: new Set(), // the layers whose projections the workers hold
    workerHead: false,
  };
  const keepBlock = (bytes, what) => {
    try {
      const p = keptHeap.alloc(bytes, what);
      kept.bytes += bytes;
      return p;
    } catch {
      return 0;
    }
  };
  const keeps = () => residencyBudget >= modelBytes;
  let lastPool = null; // the workers of the last run, whose kept bytes residency() reports
  const layerBytesOf = (i) => [...byLayer[i].values()].reduce((n, w) => n + heapBytes(w), 0);
  const smallBytesOf = (i) =>
    Math.max(
      16,
      [...byLayer[i].values()].filter((w) => !PROJECTIONS.has(w.slot)).reduce((n, w) => n + heapBytes(w), 0),
    );
  // every weight a run reads held, here (one thread) or in the workers (split)
  const warm = (split) =>
    keeps() &&
    kept.finalNorm !== 0 &&
    (split
      ? kept.workerHead && kept.workerLayers.size === L && kept.small.every((l) => l !== null)
      : kept.headFilled && kept.layers.every((l) => l !== null));
  const forgetKept = () => {
    keptHeap.freeAll();
    Object.assign(kept, { layers: Array(L).fill(null), small: Array(L).fill(null), finalNorm: 0, head: 0 });
    Object.assign(kept, { headFilled: false, bytes: 0 });
    kept.workerHead = false;
    kept.embedRows.clear();
    kept.workerLayers.clear();
  };

  /**
   * What a run of T positions costs before it starts: the bytes it reads from the files (every layer, the final
   * norm, the head whole, T embedding rows), its multiply-adds counted as 2 FLOPs (projections, attention scores
   * and values, the head), and the largest single read it needs in JS memory.
   */
  function cost(tokens = 16, { lensRows = 0, workers = 1 } = {}) {
    // tokens: a count, or the ids themselves (then the embedding rows already kept are not counted)
    const ids = typeof tokens === 'number' ? null : Array.from(tokens, Number);
    const T = ids ? ids.length : tokens;
    const q = H * headDim,
      kv = KV * headDim;
    const layerFlops = 2 * T * d * (2 * q + 2 * kv) + 2 * 2 * T * T * q + 2 * 3 * T * d * ffn;
    const headRows = 1 + lensRows;
    const embedRowsRead = keeps() && ids ? new Set(ids.filter((id) => !kept.embedRows.has(id))).size : T;
    const bytesRead =
      (warm(workers > 1)
        ? 0
        : byLayer.reduce((n, m) => n + fileBytes(m), 0) + finalNorm.byteLength + V * headRowBytes) +
      embedRowsRead * byteSize(embed.dtype, d);
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
      largestRead: Math.max(largestLayerRead, chunkRows * headRowBytes),
      wasmBytes: layerBytes + stagingBytes + chunkRows * headRowBytes + (3 + 2 * L) * T * d * 4,
    };
  }

  async function run(ids, options = {}) {
    const tokens = checkTokens(ids, V);
    const T = tokens.length;
    const {
      logits: logitsOption = 'last',
      hiddenStates = false,
      lens = null,
      onProgress = null,
      signal = null,
      memoryLimit = DEFAULT_MEMORY_LIMIT,
      intervene = {},
      collect = [],
      headInputs = null,
      variants = [],
      variantPosition = T - 1,
    } = options ?? {};
    const hooks = checkInterventions(intervene ?? {}, { L, T, d, lens });
    const branches = checkVariants(variants ?? [], { L, start: hooks.from?.layer ?? 0, skip: hooks.skip });
    const wanted = checkCollect(collect ?? []);
    if (!Number.isInteger(variantPosition) || variantPosition < 0 || variantPosition >= T)
      throw new ResidualLabError(`options.variantPosition must be a position 0 .. ${T - 1}, is ${variantPosition}`, {
        code: 'invalid_input',
      });
    const normOffset = hooks.normOffset ?? f.normOffset;
    // the layers this run computes, in order: from hooks.from.layer on, without the skipped ones
    const order = [];
    for (let i = hooks.from?.layer ?? 0; i < L; i++) if (!hooks.skip.has(i)) order.push(i);
    const nextRun = (i) => order[order.indexOf(i) + 1] ?? null;
    if (logitsOption !== 'last' && logitsOption !== 'all' && logitsOption !== 'none')
      throw new ResidualLabError(`options.logits must be 'last', 'all' or 'none', is ${JSON.stringify(logitsOption)}`, {
        code: 'invalid_input',
      });
    // stream rows of other runs read through this run's final norm and head, after its own rows: a sweep's
    // runs skip the head (logits: 'none') and their last rows share one pass over its V x d weights
    if (
      headInputs !== null &&
      !(headInputs instanceof Float32Array && headInputs.length > 0 && headInputs.length % d === 0)
    )
      throw new ResidualLabError(`options.headInputs must be a Float32Array of n x d (d = ${d}) stream values`, {
        code: 'invalid_input',
      });
    const extraRows = (headInputs ? headInputs.length / d : 0) + branches.length;
    if (onProgress !== null && typeof onProgress !== 'function')
      throw new ResidualLabError('options.onProgress must be a function', { code: 'invalid_input' });
    if (!(memoryLimit > 0))
      throw new ResidualLabError(`options.memoryLimit must be a positive number of bytes, is ${memoryLimit}`, {
        code: 'invalid_input',
      });
    const lensAt = lens ? checkLens(lens, T, V) : null;
    const logitRows = { all: T, last: 1, none: 0 }[logitsOption];
    const lensCount = lensAt ? L + 1 : 0;
    const headRows = logitRows + lensCount + extraRows;
    const cancelled = () => {
      if (signal?.aborted) throw abortError();
    };
    cancelled();
    await checkUnchanged();
    // a forward for the backward (gradients.js) keeps every layer's activations here, in this thread
    const saveActivations = options?.[KEEP_ACTIVATIONS] ?? null;
    const pool = saveActivations ? null : ((await shards?.get()) ?? null);
    if (!saveActivations) lastPool = pool;
    // the backward's forward runs here even when runs are split: it uses what this thread keeps, and keeps nothing
    // more (the model is held in the workers, or does not fit this thread's heap)
    const keep = keeps() && !(saveActivations && shards);
    // what one thread holds at once: a layer's bytes here, or a worker's share of a layer when split
    const needed = Math.max(
      pool ? Math.ceil(largestLayerRead / pool.count) : largestLayerRead,
      Math.min(chunkRows, V) * headRowBytes,
    );
    if (needed > memoryLimit)
      throw new ResidualLabError(
        `a run reads ${megabytes(needed)} at once (${pool ? "a worker's share of a layer" : "one layer's weights"}), more than the memory limit of ${megabytes(memoryLimit)}`,
        { code: 'out_of_memory' },
      );

    // JS memory held by reads not yet copied into the heap, and its peak: the run's own account.
    const account = { bytesRead: 0, held: 0, peakHeld: 0, reads: 0, readWait: 0, exchangeWait: 0 };
    const started = performance.now();
    const busyBefore = pool ? [...pool.busySeconds] : [];
    // milliseconds this thread waits on `pending`, added to account[what]
    const waited = async (what, pending) => {
      const t0 = performance.now();
      try {
        return await pending;
      } finally {
        account[what] += performance.now() - t0;
      }
    };
    const read = async (w, from = 0, to = w.byteLength, into = undefined) => {
      account.held += to - from;
      account.peakHeld = Math.max(account.peakHeld, account.held);
      try {
        const bytes = await w.source.read(w.offset + from, w.offset + to, into);
        account.bytesRead += bytes.length;
        account.reads += 1;
        return bytes;
      } catch (error) {
        account.held -= to - from;
        throw error;
      }
    };
    const release = (bytes) => {
      account.held -= bytes.length;
    };
    // One layer's tensors, read together (the reads run concurrently) into one reused buffer where the source
    // can; a rejected read is kept for the await.
    const layerScratch = new Uint8Array(largestLayerRead);
    const readLayer = (i) => {
      let at = 0;
      const entries = [...byLayer[i].entries()].map(([slot, w]) => {
        const into = layerScratch.subarray(at, at + w.byteLength);
        at += w.byteLength;
        return [slot, w, into];
      });
      const pending = Promise.all(
        entries.map(([slot, w, into]) => read(w, 0, w.byteLength, into).then((bytes) => [slot, bytes])),
      );
      pending.catch(() => {});
      return pending;
    };

    const { alloc, freeAll } = heapBlocks(Module);
    try {
      const x = alloc(T * d * 4, 'the residual stream');
      // split over workers, this thread holds a layer's norms and biases only, and the attention's blocks
      const layer = alloc(pool ? smallLayerBytes : layerBytes, "one layer's weights");
      const staging = alloc(stagingBytes, "the copy of one tensor's bytes");
      const chunk = alloc(chunkRows * headRowBytes, 'a chunk of the output head');
      const settings = alloc((16 + 2 * SLOTS.length + d + 2 * T + d + panelFloats) * 4, "the layer's settings");
      const spec = settings,
        slots = spec + 16 * 4,
        freq = slots + 2 * SLOTS.length * 4,
        norms = freq + d * 4;
      const gain = norms + 2 * T * 4,
        panel = gain + d * 4;
      const final = alloc(T * d * 4, 'the stream after the final norm');
      const headIn = alloc(Math.max(1, headRows) * d * 4, 'the rows read through the output head');
      const logits = alloc(Math.max(1, headRows) * V * 4, 'the logits');
      // what the layer reports when asked (LayerObservations in forward.hpp): head stats, norm inputs, mid norms
      const observing = wanted.has('attnScores') || wanted.has('normInputs') || wanted.has('residMid');
      const obs = observing ? alloc((4 * H + 7 * T + 4) * 4, 'the observations of a layer') : 0;
      const obsHeads = wanted.has('attnScores') ? obs : 0,
        obsNorms = wanted.has('normInputs') ? obs + 4 * H * 4 : 0,
        obsMid = wanted.has('residMid') ? obs + (4 * H + 6 * T) * 4 : 0;
      const collected = {};
      if (wanted.has('attnScores')) collected.attnScores = Array(L).fill(null);
      if (wanted.has('normInputs')) collected.normInputs = Array(L).fill(null);
      if (wanted.has('residMid')) collected.residMid = Array(L).fill(null);
      const keepObservations = (i) => {
        if (obsHeads) collected.attnScores[i] = Module.HEAPF32.slice(obsHeads >> 2, (obsHeads >> 2) + 4 * H);
        if (obsNorms) collected.normInputs[i] = Module.HEAPF32.slice(obsNorms >> 2, (obsNorms >> 2) + 6 * T);
        if (obsMid) collected.residMid[i] = Module.HEAPF32.slice(obsMid >> 2, (obsMid >> 2) + T);
      };

      // count values of w's bytes (already read) widened to float32 at dest
      const toF32 = (dest, w, bytes) => {
        if (w.dtype === 'F32') {
          Module.HEAPU8.set(bytes, dest);
          return;
        }
        Module.HEAPU8.set(bytes, staging);
        Module._rl_ckpt_to_f32(dest, staging, valueCount(w.dtype, bytes.length), DTYPE_CODES[w.dtype]);
      };
      const heapRows = (ptr, rows) => Module.HEAPF32.slice(ptr >> 2, (ptr >> 2) + rows * d);
      const rowNorms = (ptr, rows) => {
        Module._rl_ckpt_row_norms(norms, ptr, rows, d);
        return Module.HEAPF32.slice(norms >> 2, (norms >> 2) + rows);
      };
      const bytesTotal = cost(tokens, { workers: pool ? pool.count : 1 }).bytesRead; // before the run keeps anything
      const report = (stage, done) =>
        onProgress?.({ stage, layer: done, layers: L, bytesRead: account.bytesRead, bytesTotal });

      // the first layer's reads start before the embedding's rows are gathered
      const readAhead = (i) => (pool || i === null || kept.layers[i] ? null : readLayer(i));
      let next = readAhead(order[0] ?? null);
      const start = hooks.from?.layer ?? 0;
      if (hooks.from) Module.HEAPF32.set(hooks.from.stream, x >> 2);
      else {
        // the embedding, gathered by rows, as the first layer reads it
        const rowBytes = byteSize(embed.dtype, d);
        const rows = tokens.every((id) => kept.embedRows.has(id))
          ? tokens.map((id) => kept.embedRows.get(id))
          : await waited(
              'readWait',
              Promise.all(
                tokens.map((id) => kept.embedRows.get(id) ?? read(embed, id * rowBytes, (id + 1) * rowBytes)),
              ),
            );
        rows.forEach((bytes, t) => {
          toF32(x + t * d * 4, embed, bytes);
          if (kept.embedRows.has(tokens[t])) return;
          release(bytes);
          if (keep) kept.embedRows.set(tokens[t], bytes.slice());
        });
        if (f.embedScale !== 1) {
          const view = Module.HEAPF32.subarray(x >> 2, (x >> 2) + T * d);
          for (let i = 0; i < view.length; i++) view[i] = Math.fround(view[i] * f.embedScale);
        }
      }
      // states before `start` were not computed by this run: null
      const streamNorms = [...Array(start).fill(null), rowNorms(x, T)];
      const states = hiddenStates ? [...Array(start).fill(null), heapRows(x, T)] : null;
      const lensRows = lensAt ? new Float32Array((L + 1) * d) : null;
      const keepLensRow = (i) =>
        lensRows?.set(
          Module.HEAPF32.subarray((x >> 2) + lensAt.position * d, (x >> 2) + (lensAt.position + 1) * d),
          i * d,
        );
      keepLensRow(0);

      Module.HEAPF32.set(model.spec, spec >> 2);
      Module.HEAPF32[(spec >> 2) + 6] = normOffset; // LayerSpec.norm_offset: the weight convention
      const attnNorms = [],
        mlpNorms = [];
      /** Layer i here, on its weights copied into the heap (the one-thread path, and the reference for the rest). */
      const localLayer = async (i, others = []) => {
        let pointers = kept.layers[i]?.pointers; // addresses, then dtype codes
        if (!pointers) {
          const tensorBytes = new Map(await waited('readWait', next));
          cancelled();
          const keptAt = keep ? keepBlock(layerBytesOf(i), "one layer's weights") : 0;
          pointers = new Uint32Array(2 * SLOTS.length);
          let at = keptAt || layer;
          SLOTS.forEach((slot, s) => {
            const w = byLayer[i].get(slot);
            if (!w) return;
            const bytes = tensorBytes.get(slot);
            if (PROJECTIONS.has(slot)) {
              Module.HEAPU8.set(bytes, at);
              pointers[SLOTS.length + s] = DTYPE_CODES[w.dtype];
            } else toF32(at, w, bytes);
            release(bytes);
            pointers[s] = at;
            at += heapBytes(w);
          });
          tensorBytes.clear();
          if (keptAt) kept.layers[i] = { pointers };
        }
        next = readAhead(nextRun(i)); // read while this layer runs
        Module.HEAPU32.set(pointers, slots >> 2);
        Module.HEAPF32.set(model.layers[i].invFreq, freq >> 2);
        // the run's stream (observed, or its activations saved for the backward), then the variants' through the
        // same weights, already in the heap
        const window = model.layers[i].window;
        let both = null;
        for (const [g, stream] of [x, ...others].entries()) {
          const observe = (p) => (g === 0 ? p : 0);
          const status =
            saveActivations && g === 0
              ? Module._rl_ckpt_layer_saved(
                  stream,
                  T,
                  spec,
                  slots,
                  freq,
                  window,
                  saveActivations(i),
                  norms,
                  norms + T * 4,
                )
              : Module._rl_ckpt_layer(
                  stream,
                  T,
                  spec,
                  slots,
                  freq,
                  window,
                  norms,
                  norms + T * 4,
                  observe(obsHeads),
                  observe(obsNorms),
                  observe(obsMid),
                );
          if (status !== 0) throw fail();
          both ??= Module.HEAPF32.slice(norms >> 2, (norms >> 2) + 2 * T);
        }
        return [both.subarray(0, T), both.subarray(T)];
      };

      // Layer i split over the pool's workers (shards.js): they compute the projections, this thread the rest.
      // G streams at most (the run's and its variants'), stacked: each projection multiplies G x T rows at once
      const G = 1 + branches.length;
      const split = pool && {
        h: alloc(G * T * d * 4, 'the normed stream'),
        q: alloc(G * T * H * headDim * 4, 'the queries'),
        k: alloc(G * T * KV * headDim * 4, 'the keys'),
        v: alloc(G * T * KV * headDim * 4, 'the values'),
        y: alloc(G * T * H * headDim * 4, "the heads' outputs"),
        branch: alloc(G * T * d * 4, "a sublayer's output"),
        scores: alloc(2 * T * T * 4, "one head's attention scores and probabilities"),
      };
      const heapView = (ptr, n) => Module.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + n);
      const exchange = async (call, input) => {
        const { outputs, bytesRead } = await waited(
          'exchangeWait',
          pool.rows({ rows: input.length / call.inRows, keep, ...call }, input),
        );
        account.bytesRead += bytesRead;
        cancelled();
        return outputs;
      };
      const projections = (i) => ({
        qkv: {
          inRows: d,
          layer: i,
          slots: [
            { slot: 'q', outRows: H * headDim },
            { slot: 'k', outRows: KV * headDim },
            { slot: 'v', outRows: KV * headDim },
          ],
        },
        o: { inRows: H * headDim, layer: i, slots: [{ slot: 'o', outRows: d }] },
        gateUp: {
          inRows: d,
          layer: i,
          slots: [
            { slot: 'gate', outRows: ffn },
            { slot: 'up', outRows: ffn },
          ],
          gated: true,
        },
        down: { inRows: ffn, layer: i, slots: [{ slot: 'down', outRows: d }] },
      });
      // split, this thread's tensors of every layer (norms and biases, a few KB a layer) are read at once at the
      // start, not one await per tensor on the layers' critical path
      const smallOf = (i) => [...byLayer[i].values()].filter((w) => !PROJECTIONS.has(w.slot));
      const smallReads = new Map(
        pool
          ? order
              .filter((i) => !kept.small[i])
              .map((i) => {
                const pending = Promise.all(smallOf(i).map((w) => read(w)));
                pending.catch(() => {});
                return [i, pending];
              })
          : [],
      );
      // streams: the run's (x) first, then the variants' computing this layer; observations are the run's alone
      const shardedLayer = async (i, others = []) => {
        const streams = [x, ...others];
        const n = streams.length;
        let pointers = kept.small[i]?.pointers;
        if (!pointers) {
          const keptAt = keep ? keepBlock(smallBytesOf(i), "one layer's norms and biases") : 0;
          pointers = new Uint32Array(2 * SLOTS.length);
          let at = keptAt || layer;
          const read = new Map(
            (await waited('readWait', smallReads.get(i))).map((bytes, j) => [smallOf(i)[j].slot, bytes]),
          );
          smallReads.delete(i);
          for (const [s, slot] of SLOTS.entries()) {
            const w = byLayer[i].get(slot);
            if (!w || PROJECTIONS.has(slot)) continue;
            const bytes = read.get(slot);
            toF32(at, w, bytes);
            release(bytes);
            pointers[s] = at;
            at += heapBytes(w);
          }
          if (keptAt) kept.small[i] = { pointers };
        }
        Module.HEAPU32.set(pointers, slots >> 2);
        Module.HEAPF32.set(model.layers[i].invFreq, freq >> 2);
        const weight = (slot) => pointers[SLOTS.indexOf(slot)];
        // N1 .. N4 in forward.hpp's order, for the mean squares at their inputs
        const NORM_SLOTS = ['attnNormBefore', 'attnNormAfter', 'mlpNormBefore', 'mlpNormAfter'];
        if (obsNorms) Module.HEAPF32.fill(0, obsNorms >> 2, (obsNorms >> 2) + 6 * T);
        const norm = (out, input, slot, rows = T, observe = true) => {
          if (obsNorms && observe)
            Module._rl_ckpt_row_mean_squares(obsNorms + NORM_SLOTS.indexOf(slot) * T * 4, input, T, d);
          Module._rl_ckpt_rmsnorm(out, input, weight(slot), rows, d, eps, normOffset);
        };
        // every stream's rows normed into h, stacked (olmo2: the streams themselves, stacked)
        const stacked = (slot) => {
          streams.forEach((stream, g) => {
            const at = split.h + g * T * d * 4;
            if (slot) norm(at, stream, slot, T, g === 0);
            else Module.HEAPU8.copyWithin(at, stream, stream + T * d * 4);
          });
          return heapView(split.h, n * T * d).slice();
        };
        const { qkv, o, gateUp, down } = projections(i);
        const after = nextRun(i) === null ? null : projections(nextRun(i)).qkv;
        const residual = (normAfter) => {
          if (f.placement !== 'pre') norm(split.branch, split.branch, normAfter, n * T);
          Module._rl_ckpt_row_norms(norms, split.branch, T, d);
          const added = Module.HEAPF32.slice(norms >> 2, (norms >> 2) + T);
          streams.forEach((at, g) => {
            const stream = heapView(at, T * d),
              branch = heapView(split.branch + g * T * d * 4, T * d);
            for (let j = 0; j < stream.length; j++) stream[j] += branch[j];
          });
          return added;
        };
        // attention: h = N1(x); q, k, v from the workers; the heads here, per stream; o from the workers
        const [q, k, v] = await exchange(
          { ...qkv, next: o },
          stacked(f.placement === 'olmo2' ? null : 'attnNormBefore'),
        );
        Module.HEAPF32.set(q, split.q >> 2);
        Module.HEAPF32.set(k, split.k >> 2);
        Module.HEAPF32.set(v, split.v >> 2);
        for (let g = 0; g < n; g++) {
          const status = Module._rl_ckpt_attention_core(
            split.y + g * T * H * headDim * 4,
            split.q + g * T * H * headDim * 4,
            split.k + g * T * KV * headDim * 4,
            split.v + g * T * KV * headDim * 4,
            T,
            spec,
            slots,
            freq,
            model.layers[i].window,
            split.scores,
            g === 0 ? obsHeads : 0,
            g === 0 && obsNorms ? obsNorms + 4 * T * 4 : 0, // q_norm's and k_norm's inputs after N1 .. N4's
          );
          if (status !== 0) throw fail();
        }
        const [a] = await exchange({ ...o, next: gateUp }, heapView(split.y, n * T * H * headDim).slice());
        const oBias = weight('oBias') ? heapView(weight('oBias'), d) : null;
        if (oBias) for (let j = 0; j < a.length; j++) a[j] += oBias[j % d];
        Module.HEAPF32.set(a, split.branch >> 2);
        const attnAdded = residual('attnNormAfter');
        if (obsMid) Module._rl_ckpt_row_norms(obsMid, x, T, d);
        // MLP: h = N3(x); act(gate) * up from the workers; down from the workers
        const [act] = await exchange(
          { ...gateUp, next: down },
          stacked(f.placement === 'olmo2' ? null : 'mlpNormBefore'),
        );
        const [m] = await exchange({ ...down, next: after }, act);
        if (keep) kept.workerLayers.add(i);
        Module.HEAPF32.set(m, split.branch >> 2);
        const mlpAdded = residual('mlpNormAfter');
        return [attnAdded, mlpAdded];
      };
      // each variant's stream, from the layer where it leaves the run's (null: it has not left)
      const variantStreams = branches.map(() => null);

      for (let i = 0; i < start; i++) (attnNorms.push(null), mlpNorms.push(null));
      for (let i = start; i < L; i++) {
        if (hooks.skip.has(i)) {
          // the layer's two increments are not added: the stream passes unchanged
          attnNorms.push(null);
          mlpNorms.push(null);
        } else {
          cancelled();
          // variants leaving the run here keep its stream as it is before this layer, which they skip
          branches.forEach((b, k) => {
            if (b.at !== i) return;
            variantStreams[k] = alloc(T * d * 4, "a variant's stream");
            Module.HEAPU8.copyWithin(variantStreams[k], x, x + T * d * 4);
          });
          const others = variantStreams.filter((stream, k) => stream && !branches[k].skip.has(i));
          const [attn, mlp] = pool ? await shardedLayer(i, others) : await localLayer(i, others);
          attnNorms.push(attn);
          mlpNorms.push(mlp);
          keepObservations(i);
        }
        streamNorms.push(rowNorms(x, T));
        states?.push(heapRows(x, T));
        keepLensRow(i + 1);
        report('layer', i + 1);
      }

      if (kept.finalNorm) Module.HEAPU8.copyWithin(gain, kept.finalNorm, kept.finalNorm + d * 4);
      else {
        const gainBytes = await waited('readWait', read(finalNorm));
        toF32(gain, finalNorm, gainBytes);
        release(gainBytes);
        kept.finalNorm = keep ? keepBlock(d * 4, 'the final norm') : 0;
        if (kept.finalNorm) Module.HEAPU8.copyWithin(kept.finalNorm, gain, gain + d * 4);
      }
      if (wanted.has('normInputs')) {
        Module._rl_ckpt_row_mean_squares(norms, x, T, d);
        collected.finalNormInput = Module.HEAPF32.slice(norms >> 2, (norms >> 2) + T);
      }
      if (wanted.has('finalNormBf16')) {
        // the final norm with every step rounded to bfloat16 (kernels/norms.hpp), beside the float32 one
        const bf16 = alloc(T * d * 4, 'the final norm in bfloat16');
        Module._rl_ckpt_rmsnorm_bf16(bf16, norms, x, gain, T, d, eps, normOffset);
        collected.finalNormBf16 = {
          hidden: heapRows(bf16, T),
          meanSquare: Module.HEAPF32.slice(norms >> 2, (norms >> 2) + T),
        };
      }
      // the final norm, y = x / sqrt(mean(x^2) + eps) * (offset + w), or what the intervention leaves of it
      const gainOnly = (at, rows) => {
        const y = heapView(at, rows * d),
          g = heapView(gain, d);
        for (let j = 0; j < y.length; j++) y[j] *= normOffset + g[j % d];
      };
      const applyFinalNorm = (out, input, rows) => {
        if (!hooks.noFinalNorm) Module._rl_ckpt_rmsnorm(out, input, gain, rows, d, eps, normOffset);
        else if (out !== input) Module.HEAPF32.copyWithin(out >> 2, input >> 2, (input >> 2) + rows * d);
        if (hooks.noFinalNorm === 'division') gainOnly(out, rows);
      };
      applyFinalNorm(final, x, T);
      const finalNorms = rowNorms(final, T);
      const finalHidden = hiddenStates ? heapRows(final, T) : null;
      // the head's input: the final rows asked for, then each lens state through the final norm with its own rstd
      Module.HEAPF32.copyWithin(headIn >> 2, (final >> 2) + (T - logitRows) * d, (final >> 2) + T * d);
      if (lensRows) Module.HEAPF32.set(lensRows, (headIn >> 2) + logitRows * d);
      if (headInputs) Module.HEAPF32.set(headInputs, (headIn >> 2) + (logitRows + lensCount) * d);
      // each variant's row at variantPosition (the run's own where it never left it)
      branches.forEach((_, k) => {
        const from = (variantStreams[k] ?? x) + variantPosition * d * 4;
        Module.HEAPU8.copyWithin(headIn + (headRows - branches.length + k) * d * 4, from, from + d * 4);
      });
      if (headRows > logitRows)
        applyFinalNorm(headIn + logitRows * d * 4, headIn + logitRows * d * 4, headRows - logitRows);
      if (headRows === 0) {
        // logits: 'none' and nothing else to read: the head is not read
      } else if (pool) {
        const [all] = await exchange(
          { layer: null, slots: [{ slot: 'head', outRows: V }], rows: headRows },
          heapView(headIn, headRows * d).slice(),
        );
        Module.HEAPF32.set(all, logits >> 2);
        if (keep) kept.workerHead = true;
      } else {
        // the head's rows kept from an earlier run, or read in chunks (kept as they arrive when the model stays)
        const filled = kept.headFilled;
        if (keep && !kept.head) kept.head = keepBlock(V * headRowBytes, "the output head's rows");
        const whole = kept.head;
        const chunkScratch = filled ? null : new Uint8Array(chunkRows * headRowBytes);
        const readChunk = (v0) => {
          const [from, to] = [v0 * headRowBytes, Math.min(V, v0 + chunkRows) * headRowBytes];
          return read(head, from, to, chunkScratch.subarray(0, to - from));
        };
        let nextChunk = filled ? null : readChunk(0);
        for (let v0 = 0; v0 < V; v0 += chunkRows) {
          const n = Math.min(chunkRows, V - v0);
          const at = whole ? whole + v0 * headRowBytes : chunk;
          if (!filled) {
            const bytes = await waited('readWait', nextChunk);
            cancelled();
            Module.HEAPU8.set(bytes, at);
            release(bytes);
            nextChunk = v0 + chunkRows < V ? readChunk(v0 + chunkRows) : null;
            nextChunk?.catch(() => {});
          }
          const status = Module._rl_ckpt_head(
            logits + v0 * 4,
            V,
            headIn,
            headRows,
            d,
            at,
            DTYPE_CODES[head.dtype],
            n,
            0, // capped below, with what the cap did observed
            panel,
          );
          if (status !== 0) throw fail();
        }
        if (whole) kept.headFilled = true;
      }
      // the final soft-cap, on the logits asked for (observed when asked) and on the lens's rows
      const capStats = wanted.has('finalSoftcap') && logitRows ? alloc(4 * 4, 'the soft-cap statistics') : 0;
      if (logitRows) Module._rl_ckpt_softcap(logits, logitRows * V, f.finalSoftcap, capStats);
      if (capStats) {
        const [maxBefore, maxAfter, bent, count] = Module.HEAPF32.slice(capStats >> 2, (capStats >> 2) + 4);
        collected.finalSoftcap = { cap: f.finalSoftcap, maxBefore, maxAfter, bent, count };
      }
      if (headRows > logitRows)
        Module._rl_ckpt_softcap(logits + logitRows * V * 4, (headRows - logitRows) * V, f.finalSoftcap, 0);
      report('head', L);
      const allLogits = Module.HEAPF32.slice(logits >> 2, (logits >> 2) + headRows * V);
      const result = {
        tokens: Int32Array.from(tokens),
        streamNorms,
        attnNorms,
        mlpNorms,
        finalNorms,
        logits: logitRows ? allLogits.slice(0, logitRows * V) : null,
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
        residency: residency(pool),
      };
      if (hiddenStates) Object.assign(result, { hiddenStates: states, finalHidden });
      if (lensAt) result.lens = readLens(allLogits.subarray(logitRows * V), L + 1, V, lensAt);
      if (headInputs)
        result.headInputLogits = allLogits.slice((logitRows + lensCount) * V, (headRows - branches.length) * V);
      if (branches.length) result.variantLogits = allLogits.slice((headRows - branches.length) * V);
      if (wanted.size) result.collected = collected;
      return result;
    } catch (error) {
      if (pool) {
        shards.drop(); // a run cut short leaves work in the workers: end them, the next run starts anew
        kept.workerLayers.clear(); // and what they kept with them
        kept.workerHead = false;
        lastPool = null;
      }
      throw error;
    } finally {
      freeAll();
    }
  }

  /** Which mode the model runs in and what stays between runs (docs/checkpoints.md, "Residency"). */
  function residency(pool = lastPool) {
    return {
      mode: keeps() ? 'resident' : 'streamed',
      budgetBytes: residencyBudget,
      modelBytes,
      keptBytes: kept.bytes + (pool ? pool.keptBytes.reduce((a, b) => a + b, 0) : 0),
      workerKeptBytes: pool ? [...pool.keptBytes] : [],
      embeddingRows: kept.embedRows.size,
      warm: warm(pool !== null),
    };
  }

  return {
    run,
    cost,
    residency,
    dispose() {
      forgetKept();
      lastPool = null;
      Module._rl_ckpt_release_workspace();
      shards?.drop();
    },
  };
}

const megabytes = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/**
 * options.variants, checked: each a list of layers skipped beside the run's own skips; a variant follows the run
 * until the first of them (`at`) and then keeps a stream of its own. Returns [{ skip: Set, at }].
 */
function checkVariants(variants, { L, start, skip }) {
  if (!Array.isArray(variants) || variants.length > MAX_VARIANTS)
    throw new ResidualLabError(`options.variants must be a list of at most ${MAX_VARIANTS} lists of layers to skip`, {
      code: 'invalid_input',
    });
  return variants.map((layers, k) => {
    if (!Array.isArray(layers) || !layers.every((l) => Number.isInteger(l) && l >= start && l < L))
      throw new ResidualLabError(`options.variants[${k}] must list layers ${start} .. ${L - 1} to skip`, {
        code: 'invalid_input',
      });
    const own = layers.filter((l) => !skip.has(l));
    return { skip: new Set([...skip, ...layers]), at: own.length ? Math.min(...own) : L };
  });
}

/** What a run may observe (options.collect), each one name; docs/checkpoints.md says what each returns. */
export const COLLECTABLE = Object.freeze(['attnScores', 'normInputs', 'residMid', 'finalSoftcap', 'finalNormBf16']);

function checkCollect(collect) {
  if (!Array.isArray(collect))
    throw new ResidualLabError('options.collect must be a list of names', { code: 'invalid_input' });
  for (const name of collect)
    if (!COLLECTABLE.includes(name))
      throw new ResidualLabError(`options.collect: ${JSON.stringify(name)} is not one of ${COLLECTABLE.join(', ')}`, {
        code: 'invalid_input',
      });
  return new Set(collect);
}

/**
 * options.intervene, checked: { skip: Set of layers whose increments are not added, from: { layer, stream } or
 * undefined (the run starts at that layer from that stream, T x d: a previous run's hiddenStates[layer]),
 * noFinalNorm (true: the whole final norm left out; 'division': its division alone, the gain kept), normOffset
 * (0: every norm multiplies by w; 1: by 1 + w) }.
 */
function checkInterventions(intervene, { L, T, d, lens }) {
  const bad = (message) => new ResidualLabError(`options.intervene.${message}`, { code: 'invalid_input' });
  const known = ['skipLayers', 'from', 'noFinalNorm', 'normOffset'];
  for (const key of Object.keys(intervene))
    if (!known.includes(key)) throw bad(`${key} is not one of ${known.join(', ')}`);
  const { skipLayers = [], from, noFinalNorm = false, normOffset } = intervene;
  if (!Array.isArray(skipLayers) || !skipLayers.every((l) => Number.isInteger(l) && l >= 0 && l < L))
    throw bad(`skipLayers must list layers 0 .. ${L - 1}`);
  if (typeof noFinalNorm !== 'boolean' && noFinalNorm !== 'division')
    throw bad(`noFinalNorm must be true, false or 'division', is ${JSON.stringify(noFinalNorm)}`);
  if (normOffset !== undefined && normOffset !== 0 && normOffset !== 1)
    throw bad(`normOffset must be 0 (w) or 1 (1 + w), is ${normOffset}`);
  if (from !== undefined) {
    if (!Number.isInteger(from?.layer) || from.layer < 0 || from.layer > L)
      throw bad(`from.layer must be a layer 0 .. ${L}`);
    if (!(from.stream instanceof Float32Array) || from.stream.length !== T * d)
      throw bad(`from.stream must be a Float32Array of T x d = ${T * d} values`);
    if (lens) throw bad('from does not go with a logit lens: the states before from.layer are not computed');
  }
  return { skip: new Set(skipLayers), from, noFinalNorm, normOffset };
}

function checkTokens(ids, V) {
  if (!(Array.isArray(ids) || ArrayBuffer.isView(ids)))
    throw new ResidualLabError('the input must be a list of token ids (or a text, with tokenizer.json)', {
      code: 'invalid_input',
    });
  if (ids.length === 0) throw new ResidualLabError('the input has no tokens', { code: 'invalid_input' });
  if (ids.length > MAX_TOKENS)
    throw new ResidualLabError(`the input has ${ids.length} tokens; at most ${MAX_TOKENS} are run`, {
      code: 'too_long',
    });
  const tokens = Array.from(ids, Number);
  const bad = tokens.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= V);
  if (bad >= 0)
    throw new ResidualLabError(`token ${bad} is ${ids[bad]}, not an id in 0 .. ${V - 1}`, {
      code: 'invalid_input',
      position: bad,
    });
  return tokens;
}

function checkLens({ k = 10, position } = {}, T, V) {
  const p = position ?? T - 1;
  if (!Number.isInteger(p) || p < 0 || p >= T)
    throw new ResidualLabError(`lens.position must be a position 0 .. ${T - 1}, is ${position}`, {
      code: 'invalid_input',
    });
  if (!Number.isInteger(k) || k < 1 || k > V)
    throw new ResidualLabError(`lens.k must be a whole number 1 .. ${V}, is ${k}`, { code: 'invalid_input' });
  return { k, position: p };
}

/** For each state i (0 = the embedding, L = after the last layer): its top-k ids, logits and probabilities. */
function readLens(logits, rows, V, { k, position }) {
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
