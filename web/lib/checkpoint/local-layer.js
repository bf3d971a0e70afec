// Layer i of a run in this thread, on its weights copied into the heap (the one-thread path, and the reference for
// the split one): the next layer's bytes are read while this one runs, and the layer's tensors stay in the heap
// where residency keeps them. A layer that variants' streams go through too runs them stacked (split-layer.js's
// layer, its projections computed here): each projection multiplies all their rows at once, and each weight row
// is widened to float32 once for all of them.
import { splitLayers } from './split-layer.js';

// The most heap the stacked projections' four blocks may take (input, up to three outputs: rows x the widest
// projection each); a run whose variants need more, or whose heap cannot spare the stacked blocks (kept weights
// fill it), runs them one stream after the other, each weight still read once.
const STACKED_BYTES = 128 * 2 ** 20;

/**
 * ctx: the run's (runner.js). Returns { readAhead(i), run(i, others) }: readAhead starts layer i's reads (null: none
 * to start); run computes layer i on the run's stream and on `others` (the variants' { stream, spec, normOffset })
 * and resolves to the run stream's [attention norms, MLP norms], T each.
 */
export function localLayers(ctx) {
  const { Module, model, T, blocks, reads, residency, keep, copier, obs, saveActivations } = ctx;
  const { kept } = residency;
  let next = null;
  const readAhead = (i) => {
    next = i === null || kept.layers[i] ? null : reads.readLayer(i);
  };
  const weightsOf = async (i) => {
    if (kept.layers[i]) return kept.layers[i].pointers; // addresses, then dtype codes
    const tensors = await reads.waited('readWait', next);
    ctx.cancelled();
    const keptAt = keep ? residency.keepBlock(ctx.weights.layerBytesOf(i), "one layer's weights") : 0;
    const pointers = copier.copyLayer(tensors, keptAt || blocks.layer);
    for (const [, bytes] of tensors.values()) reads.release(bytes);
    if (keptAt) kept.layers[i] = { pointers };
    return pointers;
  };
  const readNext = async (i) => {
    const pointers = await weightsOf(i);
    readAhead(ctx.nextRun(i)); // read while this layer runs
    return pointers;
  };
  // the stacked layer, made at the first layer with variants; null where its blocks do not fit the heap
  let stacked;
  const stackedLayers = () => {
    const mark = ctx.heap.mark();
    try {
      return splitLayers(ctx, { weightsOf: readNext, project: localProjections(ctx) });
    } catch (error) {
      if (error?.code !== 'out_of_memory') throw error;
      ctx.heap.freeSince(mark);
      return null;
    }
  };
  const stackable = 4 * (1 + ctx.branchCount) * T * widest(model.sizes) * 4 <= STACKED_BYTES;
  const run = async (i, others = []) => {
    if (others.length && !saveActivations && stackable) {
      if (stacked === undefined) stacked = stackedLayers();
      if (stacked) return stacked.run(i, others);
    }
    const pointers = await readNext(i);
    const { x, slots, freq, norms, spec } = blocks;
    Module.HEAPU32.set(pointers, slots >> 2);
    Module.HEAPF32.set(model.layers[i].invFreq, freq >> 2);
    // the run's stream (observed, or its activations saved for the backward), then the variants' through the
    // same weights, already in the heap
    const window = model.layers[i].window;
    let both = null;
    for (const [g, other] of [{ stream: x, spec }, ...others].entries()) {
      const observe = (p) => (g === 0 ? p : 0);
      const stream = other.stream;
      const status =
        saveActivations && g === 0
          ? Module._rl_ckpt_layer_saved(stream, T, spec, slots, freq, window, saveActivations(i), norms, norms + T * 4)
          : Module._rl_ckpt_layer(
              stream,
              T,
              other.spec,
              slots,
              freq,
              window,
              norms,
              norms + T * 4,
              observe(obs.heads),
              observe(obs.norms),
              observe(obs.mid),
            );
      if (status !== 0) throw ctx.fail();
      both ??= Module.HEAPF32.slice(norms >> 2, (norms >> 2) + 2 * T);
    }
    return [both.subarray(0, T), both.subarray(T)];
  };
  return { readAhead, run };
}

/** The widest input or output of a layer's projections. */
const widest = ({ d, H, headDim, ffn }) => Math.max(d, H * headDim, ffn);

/**
 * The projections of a stacked layer in this thread: project(call, input, pointers) multiplies input's rows
 * ([rows, call.inRows]) by each of call.slots' weights (pointers: the layer's, as copyLayer lays them out) and
 * returns their outputs ([rows, outRows] each; a gated call's one: act(gate) * up), as a split run's exchange does.
 */
function localProjections(ctx) {
  const { Module, layout, model, T, alloc } = ctx;
  const rows = (1 + ctx.branchCount) * T,
    width = widest(model.sizes);
  const input = alloc(rows * width * 4, "a projection's input");
  const outs = [0, 1, 2].map(() => alloc(rows * width * 4, "a projection's output"));
  const panel = alloc(layout.panelRows * width * 4, 'a panel of rows');
  const slotCount = layout.slots.length;
  const activation = layout.activations.indexOf(model.spec.activation);
  return (call, values, pointers) => {
    const n = values.length / call.inRows;
    Module.HEAPF32.set(values, input >> 2);
    call.slots.forEach(({ slot, outRows }, s) => {
      const at = layout.slotIndex[slot];
      const status = Module._rl_ckpt_linear(
        outs[s],
        input,
        pointers[at],
        pointers[slotCount + at],
        n,
        call.inRows,
        outRows,
        panel,
      );
      if (status !== 0) throw ctx.fail();
    });
    if (call.gated) Module._rl_ckpt_gated_activation(outs[0], outs[1], n * call.slots[0].outRows, activation);
    const returned = call.gated ? call.slots.slice(0, 1) : call.slots;
    return returned.map(({ outRows }, s) => Module.HEAPF32.slice(outs[s] >> 2, (outs[s] >> 2) + n * outRows));
  };
}
