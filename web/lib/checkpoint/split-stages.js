// A layer's forward (its activations kept) and backward split over the pool's workers (shards.js), in the stages of
// wasm/src/checkpoint/backward.hpp (LayerStage): this thread runs each stage (the norms, the heads, the residual adds
// and their backward) and the workers the projection between two stages, each its rows of each matrix, as in the
// forward's split run (split-layer.js). A forward projection joins the workers' output columns; a backward one,
// dx = dy W, sums their shares (rows of W times the matching columns of dy). The stages are the ones the one-thread
// backward runs with its projections in this thread, so the numbers are its own up to the order of that sum.

// stage numbers (LayerStage): the forward's 0 .. 4, the backward's 5 .. 9; after stage k, the projection of
// GROUP_AFTER[k] (the workers read it ahead)
export const FORWARD_STAGES = [0, 1, 2, 3, 4];
export const BACKWARD_STAGES = [5, 6, 7, 8, 9];
const GROUP_AFTER = { 0: 'qkv', 1: 'o', 2: 'gateUp', 3: 'down', 5: 'down', 6: 'gateUp', 7: 'o', 8: 'qkv' };
const GROUPS = { qkv: ['q', 'k', 'v'], o: ['o'], gateUp: ['gate', 'up'], down: ['down'] };
const NEXT_WORDS = 16; // rl_ckpt_layer_stage's description of the next projection

/** The call a worker reads ahead for: group's slots of layer i, { layer, slots: [{ slot, outRows }] }. */
export function groupCall(i, group, { d, H, KV, headDim, ffn }) {
  const outRows = { q: H * headDim, k: KV * headDim, v: KV * headDim, o: d, gate: ffn, up: ffn, down: d };
  return { layer: i, slots: GROUPS[group].map((slot) => ({ slot, outRows: outRows[slot] })) };
}

/**
 * env: { Module, layout, model, T, pool, keep, reads, fail, cancelled, blocks: { spec, slots, freq, next } } with
 * layer i's norms and biases at blocks.slots and its frequencies at blocks.freq. Runs `stages` of layer i;
 * args: heap addresses { x, g, branch, saved, attnNorms, mlpNorms, midGrads, gains, squares } (0: none); after: the
 * call to read ahead after the last projection (null: none).
 */
export async function runStages(env, i, stages, args, after) {
  const { Module, layout, model, T, pool, reads, blocks } = env;
  const a = { x: 0, g: 0, branch: 0, saved: 0, attnNorms: 0, mlpNorms: 0, midGrads: 0, gains: 0, squares: 0, ...args };
  const f32 = (ptr, n) => Module.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + n);
  for (const [j, stage] of stages.entries()) {
    const status = Module._rl_ckpt_layer_stage(
      stage,
      a.x,
      a.g,
      a.branch,
      T,
      blocks.spec,
      blocks.slots,
      blocks.freq,
      model.layers[i].window,
      a.saved,
      a.attnNorms,
      a.mlpNorms,
      a.midGrads,
      a.gains,
      a.squares,
      blocks.next,
    );
    if (status !== 0) throw env.fail();
    if (j === stages.length - 1) break; // the last stage's projection is the next call's
    const [backward, count, rows, K] = Module.HEAPU32.subarray(blocks.next >> 2, (blocks.next >> 2) + 4);
    const word = (k) => Module.HEAPU32[(blocks.next >> 2) + k];
    const slots = Array.from({ length: count }, (_, s) => ({ slot: layout.slots[word(4 + s)], outRows: word(7 + s) }));
    const following = GROUP_AFTER[stages[j + 1]];
    const ahead = following && stages[j + 1] !== stages.at(-1) ? groupCall(i, following, model.sizes) : after;
    const call = {
      layer: i,
      rows,
      inRows: K,
      slots,
      keep: env.keep,
      next: [ahead].filter(Boolean),
      ...(backward ? { backward: K } : {}),
    };
    // forward: one input [rows, K] -> each slot's [rows, N]; backward: each slot's [rows, N] -> one [rows, K]
    let input;
    if (backward) {
      input = new Float32Array(rows * slots.reduce((n, s) => n + s.outRows, 0));
      let at = 0;
      slots.forEach((s, k) => {
        input.set(f32(word(10 + k), rows * s.outRows), at);
        at += rows * s.outRows;
      });
    } else input = f32(word(10), rows * K).slice();
    const { outputs, bytesRead } = await reads.waited('exchangeWait', pool.rows(call, input));
    reads.account.bytesRead += bytesRead;
    env.cancelled();
    outputs.forEach((out, k) => Module.HEAPF32.set(out, word(13 + k) >> 2));
  }
}

/** The 16 words rl_ckpt_layer_stage describes the next projection in, from alloc. */
export const stageWords = (alloc) => alloc(NEXT_WORDS * 4, "a layer stage's next projection");

/**
 * The runner's layer (runner.js) for a forward split over workers that keeps every layer's activations for the
 * backward (ctx.saveActivations(i), or one reused block where the budget kept none): run(i) resolves to the
 * stream's [attention norms, MLP norms], T each.
 */
export function savedSplitLayers(ctx, splitWeights) {
  const { Module, model, T, blocks, alloc } = ctx;
  const weightsOf = splitWeights(ctx);
  const next = stageWords(alloc);
  let scratch = 0;
  const env = { ...ctx, blocks: { ...blocks, next } };
  const run = async (i, others = []) => {
    if (others.length) throw new Error('a forward kept for the backward computes no variants');
    const pointers = await weightsOf(i);
    Module.HEAPU32.set(pointers, blocks.slots >> 2);
    Module.HEAPF32.set(model.layers[i].invFreq, blocks.freq >> 2);
    let saved = ctx.saveActivations(i);
    if (!saved) saved = scratch ||= alloc(Module._rl_ckpt_saved_floats(blocks.spec, T) * 4, "a layer's activations");
    const following = ctx.nextRun(i);
    const after = following === null ? null : groupCall(following, 'qkv', model.sizes);
    const { norms } = blocks;
    await runStages(env, i, FORWARD_STAGES, { x: blocks.x, saved, attnNorms: norms, mlpNorms: norms + T * 4 }, after);
    const both = Module.HEAPF32.slice(norms >> 2, (norms >> 2) + 2 * T);
    return [both.subarray(0, T), both.subarray(T)];
  };
  return { run };
}
