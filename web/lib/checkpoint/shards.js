// A checkpoint run split over threads, as Megatron-LM splits a layer but with contiguous reads: every projection
// (q, k, v, o, gate, up, down, and the output head) is cut into row ranges, one per share, and each share reads
// only its rows' bytes from the file (rows of W[out, in] are contiguous), multiplies them by the input it is sent
// and returns its block of output columns. The thread that owns the run (the coordinator) computes the first share
// itself, as llama.cpp's main thread takes part in its thread pool (N shares: this thread and N - 1 lab workers,
// as many threads as shares, none waiting for a core while the others compute); it also keeps the stream, the
// norms, the attention between the projections and the residual adds, and joins the blocks:
//   h = N1(x) -> [q k v] from every share -> attention -> o from every share -> (N2) -> x += a
//   h = N3(x) -> act(gate) * up from every share -> down from every share -> (N4) -> x += m
// Four exchanges a layer, each of T x (a few thousand) floats; no weight is read or held twice. The same kernels
// compute every output element over the same inputs, so the numbers are those of one thread.
import { byteSize } from './dtypes.js';
import { HEAD_CHUNK_BYTES, heapAllocator } from './heap.js';
import { checkpointLayout } from './layout.js';
import { keptRows, keptShareBytes } from './kept-rows.js';
import { readBuffers } from './read-buffers.js';

/** [begin, end) row ranges of `rows` for `parts` workers, multiples of `align` (the kernel's panel rows) but the last. */
export function splitRows(rows, parts, align) {
  const ranges = [];
  const per = Math.ceil(rows / parts / align) * align;
  for (let begin = 0; begin < rows; begin += per) ranges.push([begin, Math.min(rows, begin + per)]);
  while (ranges.length < parts) ranges.push([rows, rows]);
  return ranges;
}

/** How many workers a run uses by default: the cores (up to 4) for weights files on disk, 1 for weights in memory. */
export function defaultWorkers(weightEntries) {
  const inMemory = weightEntries.some((e) => e instanceof ArrayBuffer || ArrayBuffer.isView(e));
  if (inMemory) return 1; // posting bytes to a worker copies them: the model would be held twice
  const cores =
    typeof navigator !== 'undefined' && navigator.hardwareConcurrency
      ? navigator.hardwareConcurrency
      : (globalThis.process?.getBuiltinModule?.('node:os')?.availableParallelism?.() ?? 1);
  return Math.max(1, Math.min(4, cores));
}

const rowBytes = (w) => byteSize(w.dtype, w.shape[1]);
const keyOf = (layer, { slot, begin, end }) => `${layer}:${slot}:${begin}:${end}`;

/**
 * The head's rows of this worker's vocabulary range [begin, end) in pieces: logits[rows, n]; backward: x is the
 * logits' gradient at this range, dz[rows, begin:end], and the block this range's share of dh[rows, K] = dz W.
 */
async function headShare(share, heap, { begin, end }, x, rows, K, keep, backward = false) {
  const { Module, code, weightOf, read, buffers, store } = share;
  const { kept, keepBlock } = store;
  const w = weightOf(null, 'head');
  const n = end - begin;
  const key = keyOf(null, { slot: 'head', begin, end });
  let whole = kept.get(key) ?? 0; // the share kept from an earlier run: nothing to read
  const filled = whole !== 0;
  if (!filled && keep) whole = keepBlock(n * rowBytes(w), "a share of the output head's rows");
  const chunkRows = Math.max(1, Math.min(n, Math.floor(HEAD_CHUNK_BYTES / rowBytes(w))));
  const chunk = whole ? 0 : heap.alloc(chunkRows * rowBytes(w), 'a chunk of the output head');
  const panel = heap.alloc(share.panelRows * K * 4, 'a panel of rows');
  const outFloats = backward ? rows * K : rows * n;
  const out = heap.alloc(
    outFloats * 4,
    backward ? "a share of the head's input gradient" : 'the logits of a share of the vocabulary',
  );
  if (backward) Module.HEAPF32.fill(0, out >> 2, (out >> 2) + outFloats);
  const piece = (v0) => {
    const [from, to] = [v0 * rowBytes(w), Math.min(end, v0 + chunkRows) * rowBytes(w)];
    return read(w, from, to, buffers.take(to - from));
  };
  let pending = filled ? null : piece(begin);
  let bytesRead = 0;
  for (let v0 = begin; v0 < end; v0 += chunkRows) {
    const at = whole ? whole + (v0 - begin) * rowBytes(w) : chunk;
    const v1 = Math.min(end, v0 + chunkRows);
    if (!filled) {
      const bytes = await pending;
      bytesRead += bytes.length;
      Module.HEAPU8.set(bytes, at);
      buffers.give(bytes);
      pending = v1 < end ? piece(v1) : null;
      pending?.catch(() => {});
    }
    const status = backward
      ? Module._rl_ckpt_head_backward(out, x + (v0 - begin) * 4, n, rows, K, at, code(w.dtype), v1 - v0, panel)
      : Module._rl_ckpt_head(
          out + (v0 - begin) * 4,
          n,
          x,
          rows,
          K,
          at,
          code(w.dtype),
          v1 - v0,
          0, // the coordinator caps the logits (runner.js)
          panel,
        );
    if (status !== 0) throw heap.fail();
  }
  if (whole && !filled) kept.set(key, whole);
  return {
    blocks: [Module.HEAPF32.slice(out >> 2, (out >> 2) + outFloats)],
    bytesRead,
    heapBytes: Module.HEAPU8.length,
    keptBytes: store.bytes,
  };
}

/**
 * The worker's side: for each part { slot, begin, end } of layer `layer` (null: the output head), rows
 * [begin, end) of that tensor, read from the file, times `input` ([rows, K]); `gated`: two parts (gate, up) of one
 * range joined as act(gate) * up. Starts reading `next`, the calls the coordinator announced to come, before
 * computing. Returns { blocks: Float32Array[] ([rows, end - begin] each), bytesRead }.
 */
export function createShardWorker(Module, model, weightOf, read) {
  const layout = checkpointLayout(Module);
  const code = (dtype) => layout.dtypes[dtype].code;
  const prefetched = new Map(); // key -> Promise<Uint8Array>
  const buffers = readBuffers();
  const store = keptRows(Module);
  const { kept, keepBlock } = store;
  const start = (layer, { slot, begin, end }) => {
    const k = keyOf(layer, { slot, begin, end });
    if (!prefetched.has(k) && !kept.has(k) && end > begin) {
      const w = weightOf(layer, slot);
      const pending = read(w, begin * rowBytes(w), end * rowBytes(w), buffers.take((end - begin) * rowBytes(w)));
      pending.catch(() => {});
      prefetched.set(k, pending);
    }
    return k;
  };
  const take = (layer, part) => {
    const k = start(layer, part);
    const pending = prefetched.get(k);
    prefetched.delete(k);
    return pending;
  };

  const shardRows = timedCalls(projectRows);
  /** Frees the kept rows once the calls in flight settle (the coordinator's own share: its heap stays). */
  shardRows.release = () =>
    shardRows.settled().then(() => {
      prefetched.clear();
      store.release();
    });

  async function projectRows({ layer, parts, rows, input, gated = false, next = null, keep = false, backward = 0 }) {
    // backward: K, the width of the input gradient; input holds each part's whole output gradient [rows, N] in turn
    const K = backward || input.length / rows;
    const heap = heapAllocator(Module);
    let readWaitSeconds = 0;
    const reply = (blocks, bytesRead) => ({
      blocks,
      bytesRead,
      heapBytes: Module.HEAPU8.length,
      keptBytes: store.bytes,
      readWaitSeconds,
    });
    try {
      // keep: the rows read stay in this heap for the next runs (the coordinator's residency decision)
      if (keep && store.arena === undefined && layer !== null && parts[0].end > parts[0].begin)
        store.reserve(keptShareBytes(model, weightOf, layer, parts[0]));
      const x = heap.alloc(input.length * 4, "the projection's input");
      Module.HEAPF32.set(input, x >> 2);
      if (parts[0].slot === 'head') {
        if (parts[0].end <= parts[0].begin) return reply([new Float32Array(0)], 0);
        const panelRows = backward ? layout.backwardPanelRows : layout.panelRows;
        const share = { Module, code, weightOf, read, buffers, store, panelRows };
        return {
          ...(await headShare(share, heap, parts[0], x, rows, K, keep, backward !== 0)),
          readWaitSeconds,
        };
      }
      const waitStart = performance.now();
      const all = await Promise.all(
        parts.map((part) => (kept.has(keyOf(layer, part)) ? null : take(layer, part)) ?? new Uint8Array(0)),
      );
      readWaitSeconds = (performance.now() - waitStart) / 1000;
      for (const call of next ?? []) for (const part of call.parts) start(call.layer, part);
      const panel = heap.alloc((backward ? layout.backwardPanelRows : layout.panelRows) * K * 4, 'a panel of rows');
      let bytesRead = 0;
      const dx = backward ? heap.alloc(rows * K * 4, "a share of an input's gradient") : 0;
      if (dx) Module.HEAPF32.fill(0, dx >> 2, (dx >> 2) + rows * K);
      // backward: each part's columns [begin, end) of its output gradient, [rows, end - begin], one after the other
      const dyAt = [x];
      for (const part of parts) dyAt.push(dyAt.at(-1) + rows * (part.end - part.begin) * 4);
      const outs = parts.map((part, i) => {
        const n = part.end - part.begin;
        const y = heap.alloc(Math.max(1, backward ? 1 : rows * n) * 4, "a share of a projection's output");
        if (n === 0) return y;
        const w = weightOf(layer, part.slot);
        const key = keyOf(layer, part);
        let wp = kept.get(key) ?? 0;
        if (!wp) {
          bytesRead += all[i].length;
          wp = keep ? keepBlock(all[i].length, "a share of a projection's rows") : 0;
          if (wp) kept.set(key, wp);
          else wp = heap.alloc(all[i].length, "a share of a projection's rows");
          Module.HEAPU8.set(all[i], wp);
          buffers.give(all[i]);
        }
        if (backward) {
          // dx += dy[:, begin:end] W[begin:end, :] (this worker's rows of W); the parts' sum over workers is dx
          const status = Module._rl_ckpt_head_backward(dx, dyAt[i], n, rows, K, wp, code(w.dtype), n, panel);
          if (status !== 0) throw heap.fail();
        } else if (Module._rl_ckpt_linear(y, x, wp, code(w.dtype), rows, K, n, panel) !== 0) throw heap.fail();
        return y;
      });
      if (backward) return reply([Module.HEAPF32.slice(dx >> 2, (dx >> 2) + rows * K)], bytesRead);
      const n = (i) => parts[i].end - parts[i].begin;
      if (gated)
        Module._rl_ckpt_gated_activation(
          outs[0],
          outs[1],
          rows * n(0),
          layout.activations.indexOf(model.spec.activation),
        );
      const returned = gated ? [0] : parts.map((_, i) => i);
      return reply(
        returned.map((i) => Module.HEAPF32.slice(outs[i] >> 2, (outs[i] >> 2) + rows * n(i))),
        bytesRead,
      );
    } finally {
      heap.freeAll();
    }
  }
  return shardRows;
}

/**
 * projectRows with each reply's busySeconds (the call's time less its wait for the file's bytes: the coordinator's
 * view of the share) and settled(), which resolves once every call in flight has (they write to the heap until then).
 */
function timedCalls(projectRows) {
  const inFlight = new Set();
  const shardRows = async (call) => {
    const t0 = performance.now();
    const pending = projectRows(call);
    inFlight.add(pending);
    try {
      const reply = await pending;
      return { ...reply, busySeconds: (performance.now() - t0) / 1000 - reply.readWaitSeconds };
    } finally {
      inFlight.delete(pending);
    }
  };
  shardRows.settled = () => Promise.allSettled([...inFlight]);
  return shardRows;
}

/**
 * A backward call's input for one worker: input holds each slot's output gradient [rows, outRows] in turn; the
 * worker multiplies only its rows [begin, end) of each W, so it gets the columns [begin, end) of each, in turn.
 */
function columnShares(input, rows, parts, slots) {
  const share = new Float32Array(rows * parts.reduce((n, p) => n + p.end - p.begin, 0));
  let from = 0,
    to = 0;
  parts.forEach(({ begin, end }, s) => {
    const N = slots[s].outRows;
    for (let t = 0; t < rows; t++, to += end - begin)
      share.set(input.subarray(from + t * N + begin, from + t * N + end), to);
    from += rows * N;
  });
  return share;
}

/**
 * The coordinator's side: `count` shares, the first computed by `local` (this thread's createShardWorker), the
 * others by lab workers (createWorker()), each with the checkpoint opened from the same files (a File or a path is
 * posted as a handle, not a copy). rows(call, input) sends every worker its ranges, computes the first share here
 * and joins the blocks. terminate() ends the workers, and their memory with them, and frees what `local` kept.
 */
export async function createShardPool(files, count, { createWorker, rowAlign, local }) {
  const workers = [];
  try {
    for (let i = 1; i < count; i++) workers.push(createWorker());
    const remote = await Promise.all(workers.map((w) => w.call('openCheckpoint', [files, { workers: 1 }])));
    const partsOf = (slots, i) =>
      slots.map(({ slot, outRows }) => {
        const [begin, end] = splitRows(outRows, count, rowAlign)[i];
        return { slot, begin, end };
      });
    // per share, this thread's first:
    const heapBytes = new Array(count).fill(0); // its thread's WASM heap (a heap never shrinks: its peak)
    const keptBytes = new Array(count).fill(0); // the weights' bytes it keeps between runs
    const busySeconds = new Array(count).fill(0); // its time computing (shardRows), summed over calls
    return {
      count,
      heapBytes,
      keptBytes,
      busySeconds,
      /**
       * call: { layer, slots: [{ slot, outRows }], rows (T), gated, next: [{ layer, slots }] (the calls to read
       * ahead for) }; input [rows, K]. Resolves to { outputs: Float32Array[] ([rows, outRows] each; one when gated), bytesRead }.
       * call.backward = K: the input is each slot's output gradient [rows, outRows] in turn, and the one output
       * is the input's gradient [rows, K], sum over slots of dy W.
       */
      async rows(call, input) {
        const shareCall = (i) => ({
          layer: call.layer,
          parts: partsOf(call.slots, i),
          rows: call.rows,
          // each worker its own copy, given away (transferred, not cloned), this thread's share the input itself
          // (only read); a backward share only its columns
          input: call.backward
            ? columnShares(input, call.rows, partsOf(call.slots, i), call.slots)
            : i === 0
              ? input
              : input.slice(),
          gated: call.gated ?? false,
          backward: call.backward ?? 0,
          next: (call.next ?? []).map((n) => ({ layer: n.layer, parts: partsOf(n.slots, i) })),
          keep: call.keep ?? false,
        });
        // the workers' calls are posted first, then this thread computes its share while they compute theirs
        const posted = remote.map((handle, i) => handle.shardRows(shareCall(i + 1)));
        const replies = await Promise.all([local(shareCall(0)), ...posted]);
        replies.forEach((r, i) => {
          heapBytes[i] = Math.max(heapBytes[i], r.heapBytes ?? 0);
          keptBytes[i] = r.keptBytes ?? 0;
          busySeconds[i] += r.busySeconds ?? 0;
        });
        const bytesRead = replies.reduce((sum, r) => sum + r.bytesRead, 0);
        if (call.backward) {
          // each worker's rows' share of the input's gradient, summed in the workers' order into the first (each
          // block is a fresh copy, this thread's own)
          const blocks = replies.map((r) => r.blocks[0]).filter((b) => b.length);
          const sum = blocks[0] ?? new Float32Array(call.rows * call.backward);
          for (const block of blocks.slice(1)) for (let j = 0; j < sum.length; j++) sum[j] += block[j];
          return { outputs: [sum], bytesRead };
        }
        const kept = call.gated ? [call.slots[0]] : call.slots;
        const outputs = kept.map(({ outRows: N }, b) => {
          const out = new Float32Array(call.rows * N);
          const ranges = splitRows(N, count, rowAlign);
          replies.forEach(({ blocks }, i) => {
            const [begin, end] = ranges[i];
            const n = end - begin;
            for (let t = 0; t < call.rows && n > 0; t++) out.set(blocks[b].subarray(t * n, (t + 1) * n), t * N + begin);
          });
          return out;
        });
        return { outputs, bytesRead };
      },
      terminate() {
        for (const w of workers) w.terminate();
        local.release();
      },
    };
  } catch (error) {
    for (const w of workers) w.terminate();
    throw error;
  }
}

/**
 * The shares a run is split over: shards.get() starts the workers with the first run, the first share this
 * thread's (localShard(): a new createShardWorker, its kept rows its own; a pool that cannot start, where no
 * workers run, leaves one thread: workers() says 1), shards.drop() ends them and frees that share's rows.
 */
export function splitPool(Module, map, workers, localShard) {
  let usedWorkers = workers;
  let pool = null;
  const shards = {
    // started with the first run; a pool that cannot start (no workers where the page runs) leaves one thread
    get: () =>
      (pool ??= import('../worker-client.js')
        .then(({ createLabWorker }) =>
          createShardPool(Object.fromEntries(map), workers, {
            createWorker: () => createLabWorker(),
            rowAlign: checkpointLayout(Module).panelRows,
            local: localShard(),
          }),
        )
        .catch(() => {
          usedWorkers = 1;
          return null;
        })),
    drop: () => {
      pool?.then((p) => p?.terminate());
      pool = null;
    },
  };
  return { shards, workers: () => usedWorkers };
}

/** This checkpoint's side of another's split run (shards.js): its tensors by layer and slot, read by rows. */
export function shardWorker(Module, model, weights) {
  const bySlot = new Map([...weights.values()].map((w) => [`${w.layer}:${w.slot}`, w]));
  const weightOf = (layer, slot) =>
    slot === 'head' ? (bySlot.get('null:head') ?? bySlot.get('null:embed')) : bySlot.get(`${layer}:${slot}`);
  const readTensor = (w, from, to, into) => w.source.read(w.offset + from, w.offset + to, into);
  return createShardWorker(Module, model, weightOf, readTensor);
}
