// Layer i of a run in this thread, on its weights copied into the heap (the one-thread path, and the reference for
// the split one): the next layer's bytes are read while this one runs, and the layer's tensors stay in the heap
// where residency keeps them.

/**
 * ctx: the run's (runner.js). Returns { readAhead(i), run(i, others) }: readAhead starts layer i's reads (null: none
 * to start); run computes layer i on the run's stream and then on each of `others` (the variants' streams) and
 * resolves to the run stream's [attention norms, MLP norms], T each.
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
  const run = async (i, others = []) => {
    const pointers = await weightsOf(i);
    readAhead(ctx.nextRun(i)); // read while this layer runs
    const { x, slots, freq, norms, spec } = blocks;
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
          ? Module._rl_ckpt_layer_saved(stream, T, spec, slots, freq, window, saveActivations(i), norms, norms + T * 4)
          : Module._rl_ckpt_layer(
              stream,
              T,
              spec,
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
