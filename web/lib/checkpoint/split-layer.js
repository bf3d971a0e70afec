// Layer i of a run split over the pool's shares (shards.js): they compute the projections, this thread the norms,
// the attention between the projections and the residual adds. G streams at most (the run's and its variants'),
// stacked: each projection multiplies G x T rows at once.

// How far ahead the shares read: the calls after the current one while their bytes (all the shares') stay
// within READ_AHEAD_BYTES, and always the next one. With one call ahead, where the file is slower than the
// arithmetic (a browser's picked file), each read waited for the call before it to be computed and exchanged.
export const READ_AHEAD_BYTES = 64 << 20;
const GROUP_ORDER = ['qkv', 'o', 'gateUp', 'down'];

/** The four exchanges of layer i: { qkv, o, gateUp, down }, each a call for pool.rows. */
function projections(i, { d, H, KV, headDim, ffn }) {
  return {
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
  };
}

/**
 * weightsOf(i): the pointers of layer i's norms and biases in this thread's heap (kept, or copied into
 * blocks.layer); the shares hold the projections. Every layer's are read at once at the start (a few KB a
 * layer), not one await per tensor on the layers' critical path.
 */
export function splitWeights(ctx) {
  const { blocks, reads, residency, keep, copier } = ctx;
  const { kept } = residency;
  const { smallOf } = ctx.weights;
  const smallReads = new Map(
    ctx.order
      .filter((i) => !kept.small[i])
      .map((i) => {
        const pending = Promise.all(smallOf(i).map((w) => reads.read(w)));
        pending.catch(() => {});
        return [i, pending];
      }),
  );
  const weightsOf = async (i) => {
    if (kept.small[i]) return kept.small[i].pointers;
    const keptAt = keep ? residency.keepBlock(ctx.weights.smallBytesOf(i), "one layer's norms and biases") : 0;
    const read = await reads.waited('readWait', smallReads.get(i));
    smallReads.delete(i);
    const tensors = new Map(smallOf(i).map((w, j) => [w.slot, [w, read[j]]]));
    const pointers = copier.copyLayer(tensors, keptAt || blocks.layer, { projections: false });
    for (const bytes of read) reads.release(bytes);
    if (keptAt) kept.small[i] = { pointers };
    return pointers;
  };
  return weightsOf;
}

/**
 * ctx: the run's (runner.js), with its pool. Returns { exchange(call, input), run(i, others) }: exchange sends a
 * call to every share and joins their outputs; run computes layer i on the run's stream and the `others`
 * ({ stream, spec, normOffset }: a variant's stream and the layer spec and norm offset it reads) and resolves to
 * the run stream's [attention norms, MLP norms], T each. In one thread (local-layer.js's stacked variants),
 * `weightsOf` gives the layer's pointers in this heap and `project(call, input, pointers)` computes the call's
 * outputs here.
 */
export function splitLayers(ctx, { weightsOf = splitWeights(ctx), project = null } = {}) {
  const { Module, layout, model, T, blocks, reads, residency, keep, obs, pool, alloc } = ctx;
  const { d, H, KV, headDim, eps } = model.sizes;
  const f = model.forward;
  const { kept } = residency;
  const G = 1 + ctx.branchCount;
  // the one row of a variant's stream read after the last layer: its logits' (variantPosition) and its lens's
  const { lensAt, variantPosition } = ctx.opts;
  const variantReadRow = lensAt && lensAt.position !== variantPosition ? null : variantPosition;
  const split = {
    h: alloc(G * T * d * 4, 'the normed stream'),
    q: alloc(G * T * H * headDim * 4, 'the queries'),
    k: alloc(G * T * KV * headDim * 4, 'the keys'),
    v: alloc(G * T * KV * headDim * 4, 'the values'),
    y: alloc(G * T * H * headDim * 4, "the heads' outputs"),
    branch: alloc(G * T * d * 4, "a sublayer's output"),
    scores: alloc(2 * T * T * 4, "one head's attention scores and probabilities"),
  };
  const heapView = (ptr, n) => Module.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + n);
  const exchange = async (call, input, pointers) => {
    if (project) return project(call, input, pointers);
    const { outputs, bytesRead } = await reads.waited(
      'exchangeWait',
      pool.rows({ rows: input.length / call.inRows, keep, ...call }, input),
    );
    reads.account.bytesRead += bytesRead;
    ctx.cancelled();
    return outputs;
  };

  const run = async (i, others = []) => {
    const { x, slots, freq, norms, spec } = blocks;
    const streams = [x, ...others.map((o) => o.stream)];
    const specs = [spec, ...others.map((o) => o.spec)];
    const offsets = [ctx.normOffset, ...others.map((o) => o.normOffset)];
    const n = streams.length;
    const pointers = await weightsOf(i);
    Module.HEAPU32.set(pointers, slots >> 2);
    Module.HEAPF32.set(model.layers[i].invFreq, freq >> 2);
    const weight = (slot) => pointers[layout.slotIndex[slot]];
    if (obs.norms) Module.HEAPF32.fill(0, obs.norms >> 2, (obs.norms >> 2) + 6 * T);
    // stream g's rows through the layer's norm `slot`, with that stream's offset; the run's observed
    const norm = (out, input, slot, g, rows = T) => {
      if (obs.norms && g === 0)
        Module._rl_ckpt_row_mean_squares(obs.norms + layout.observedNorms.indexOf(slot) * T * 4, input, T, d);
      Module._rl_ckpt_rmsnorm(out, input, weight(slot), rows, d, eps, offsets[g]);
    };
    // the rows [first, first + count) of stream g a sublayer computes: all T, but after the last layer a variant's
    // stream is read at one row (its logits' and its lens's), so the last MLP computes that row alone
    const lastRow = i === model.sizes.L - 1 ? variantReadRow : null;
    const mlpRows = (g) => (g > 0 && lastRow !== null ? [lastRow, 1] : [0, T]);
    const { qkv, o, gateUp, down } = projections(i, model.sizes);
    const ahead = (group) => readAhead(ctx, i, group);
    const pre = f.placement === 'pre';
    const { stacked, residual } = streamRows(Module, heapView, { split, streams, norm, norms, T, d, pre });
    // attention: h = N1(x); q, k, v from the shares; the heads here, per stream; o from the shares
    const [q, k, v] = await exchange(
      { ...qkv, next: ahead('qkv') },
      stacked(f.placement === 'olmo2' ? null : 'attnNormBefore'),
      pointers,
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
        specs[g],
        slots,
        freq,
        model.layers[i].window,
        split.scores,
        g === 0 ? obs.heads : 0,
        g === 0 && obs.norms ? obs.norms + layout.observedNorms.length * T * 4 : 0, // q/k_norm's after N1 .. N4's
      );
      if (status !== 0) throw ctx.fail();
    }
    const [a] = await exchange({ ...o, next: ahead('o') }, heapView(split.y, n * T * H * headDim).slice(), pointers);
    const oBias = weight('oBias') ? heapView(weight('oBias'), d) : null;
    if (oBias) for (let j = 0; j < a.length; j++) a[j] += oBias[j % d];
    Module.HEAPF32.set(a, split.branch >> 2);
    const attnAdded = residual('attnNormAfter');
    if (obs.mid) Module._rl_ckpt_row_norms(obs.mid, x, T, d);
    // MLP: h = N3(x); act(gate) * up from the shares; down from the shares
    const [act] = await exchange(
      { ...gateUp, next: ahead('gateUp') },
      stacked(f.placement === 'olmo2' ? null : 'mlpNormBefore', mlpRows),
      pointers,
    );
    const [m] = await exchange({ ...down, next: ahead('down') }, act, pointers);
    if (keep && !project) kept.workerLayers.add(i);
    Module.HEAPF32.set(m, split.branch >> 2);
    const mlpAdded = residual('mlpNormAfter', mlpRows);
    return [attnAdded, mlpAdded];
  };
  return { exchange, run };
}

/**
 * A layer's steps over its streams' rows, stacked in split.h and split.branch as spanOf(g) = [first, count] lays
 * them out (all T rows by default): stacked(slot, spanOf) norms each stream's rows into h with norm `slot` (null:
 * the rows as they are) and returns a copy; residual(normAfter, spanOf) norms the branch's rows where the layout
 * norms them, adds them to each stream and returns the run stream's increments' norms, T of them.
 */
function streamRows(Module, heapView, { split, streams, norm, norms, T, d, pre }) {
  const allRows = () => [0, T];
  const stacked = (slot, spanOf = allRows) => {
    let at = split.h;
    streams.forEach((stream, g) => {
      const [first, count] = spanOf(g);
      const from = stream + first * d * 4;
      if (slot) norm(at, from, slot, g, count);
      else Module.HEAPU8.copyWithin(at, from, from + count * d * 4);
      at += count * d * 4;
    });
    return heapView(split.h, (at - split.h) >> 2).slice();
  };
  const residual = (normAfter, spanOf = allRows) => {
    const spans = streams.map((_, g) => spanOf(g));
    if (!pre)
      spans.reduce((at, [, count], g) => {
        norm(at, at, normAfter, g, count);
        return at + count * d * 4;
      }, split.branch);
    Module._rl_ckpt_row_norms(norms, split.branch, T, d);
    const added = Module.HEAPF32.slice(norms >> 2, (norms >> 2) + T);
    spans.reduce((at, [first, count], g) => {
      const stream = heapView(streams[g] + first * d * 4, count * d),
        branch = heapView(at, count * d);
      for (let j = 0; j < stream.length; j++) stream[j] += branch[j];
      return at + count * d * 4;
    }, split.branch);
    return added;
  };
  return { stacked, residual };
}

/**
 * The calls after layer i's `group` that the shares start reading now: the run's next ones in order (ctx.order)
 * while their file bytes stay within READ_AHEAD_BYTES, at least one while any is left.
 */
export function readAhead(ctx, i, group) {
  const { model, weights } = ctx;
  const calls = [];
  let bytes = 0;
  for (let layer = i, k = GROUP_ORDER.indexOf(group) + 1; layer !== null; layer = ctx.nextRun(layer), k = 0) {
    const groups = projections(layer, model.sizes);
    for (; k < GROUP_ORDER.length; k++) {
      const call = groups[GROUP_ORDER[k]];
      bytes += call.slots.reduce((n, { slot }) => n + weights.byLayer[layer].get(slot).byteLength, 0);
      if (calls.length && bytes > READ_AHEAD_BYTES) return calls;
      calls.push(call);
    }
  }
  return calls;
}
