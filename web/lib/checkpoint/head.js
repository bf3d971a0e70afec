// The end of a checkpoint run: the final norm (read once, kept where residency keeps it), the rows read through it
// (the run's own, the lens's states, other runs' rows, the variants'), the output head over them in vocabulary
// chunks (here) or in shares (split: the workers), and the final soft-cap.

/** The final norm's gain in blocks.gain, read or kept. */
async function finalNormGain(ctx) {
  const { Module, blocks, reads, residency, keep } = ctx;
  const { kept } = residency;
  const { d } = ctx.model.sizes;
  const { gain } = blocks;
  if (kept.finalNorm) {
    Module.HEAPU8.copyWithin(gain, kept.finalNorm, kept.finalNorm + d * 4);
    return;
  }
  const w = ctx.weights.finalNorm;
  const gainBytes = await reads.waited('readWait', reads.read(w));
  ctx.copier.toF32(gain, w, gainBytes);
  reads.release(gainBytes);
  kept.finalNorm = keep ? residency.keepBlock(d * 4, 'the final norm') : 0;
  if (kept.finalNorm) Module.HEAPU8.copyWithin(kept.finalNorm, gain, gain + d * 4);
}

/**
 * The final norm, y = x / sqrt(mean(x^2) + eps) * (offset + w), or what the intervention leaves of it, of `rows`
 * rows at input into out: the run's, or a variant's ({ normOffset, noFinalNorm }).
 */
function finalNorm(
  ctx,
  out,
  input,
  rows,
  { normOffset, noFinalNorm } = { ...ctx.opts.hooks, normOffset: ctx.normOffset },
) {
  const { Module, blocks } = ctx;
  const { d, eps } = ctx.model.sizes;
  if (!noFinalNorm) Module._rl_ckpt_norm(out, input, blocks.gain, rows, d, eps, normOffset);
  else if (out !== input) Module.HEAPF32.copyWithin(out >> 2, input >> 2, (input >> 2) + rows * d);
  if (noFinalNorm === 'division') {
    const y = Module.HEAPF32.subarray(out >> 2, (out >> 2) + rows * d),
      g = Module.HEAPF32.subarray(blocks.gain >> 2, (blocks.gain >> 2) + d);
    for (let j = 0; j < y.length; j++) y[j] *= normOffset + g[j % d];
  }
}

/** The head's rows kept from an earlier run, or read in chunks (kept as they arrive when the model stays). */
async function localHead(ctx) {
  const { Module, blocks, reads, residency, keep } = ctx;
  const { kept } = residency;
  const { d, V } = ctx.model.sizes;
  const { head, headRowBytes, chunkRows } = ctx.weights;
  const filled = kept.headFilled;
  if (keep && !kept.head) kept.head = residency.keepBlock(V * headRowBytes, "the output head's rows");
  const whole = kept.head;
  const chunkScratch = filled ? null : new Uint8Array(chunkRows * headRowBytes);
  const readChunk = (v0) => {
    const [from, to] = [v0 * headRowBytes, Math.min(V, v0 + chunkRows) * headRowBytes];
    return reads.read(head, from, to, chunkScratch.subarray(0, to - from));
  };
  let nextChunk = filled ? null : readChunk(0);
  for (let v0 = 0; v0 < V; v0 += chunkRows) {
    const n = Math.min(chunkRows, V - v0);
    const at = whole ? whole + v0 * headRowBytes : blocks.chunk;
    if (!filled) {
      const bytes = await reads.waited('readWait', nextChunk);
      ctx.cancelled();
      Module.HEAPU8.set(bytes, at);
      reads.release(bytes);
      nextChunk = v0 + chunkRows < V ? readChunk(v0 + chunkRows) : null;
      nextChunk?.catch(() => {});
    }
    const status = Module._rl_ckpt_head(
      blocks.logits + v0 * 4,
      V,
      blocks.headIn,
      ctx.opts.headRows,
      d,
      at,
      ctx.copier.code(head.dtype),
      n,
      0, // capped below, with what the cap did observed
      blocks.panel,
    );
    if (status !== 0) throw ctx.fail();
  }
  if (whole) kept.headFilled = true;
}

/** The final norm's collected observations (options.collect: normInputs, finalNormBf16) of the stream x. */
function observeFinalNorm(ctx, collected) {
  const { Module, blocks, opts } = ctx;
  const { d, eps, T } = { ...ctx.model.sizes, T: ctx.T };
  const { x, norms, gain } = blocks;
  if (opts.wanted.has('normInputs')) {
    Module._rl_ckpt_row_mean_squares(norms, x, T, d);
    collected.finalNormInput = Module.HEAPF32.slice(norms >> 2, (norms >> 2) + T);
  }
  if (opts.wanted.has('finalNormBf16')) {
    // the final norm with every step rounded to bfloat16 (kernels/norms.hpp), beside the float32 one
    const bf16 = ctx.alloc(T * d * 4, 'the final norm in bfloat16');
    Module._rl_ckpt_norm_bf16(bf16, norms, x, gain, T, d, eps, ctx.normOffset);
    collected.finalNormBf16 = {
      hidden: Module.HEAPF32.slice(bf16 >> 2, (bf16 >> 2) + T * d),
      meanSquare: Module.HEAPF32.slice(norms >> 2, (norms >> 2) + T),
    };
  }
}

/**
 * Where the head's rows lie (run-options.js counts them): the run's logits, its lens's, headInputs, then from
 * variantsAt one row per variant, then from variantLensAt each variant's lens states (lensCount each).
 */
export function headLayout({ headRows, branches, lensCount }) {
  const variantsAt = headRows - branches.length * (1 + lensCount);
  return { variantsAt, variantLensAt: variantsAt + branches.length };
}

/**
 * The final norm and the head of a run whose stream is blocks.x: lensRows (the lens's states, or null),
 * variantStreams (each variant's stream, null where it never left the run's) and variantLensRows (each variant's
 * lens states, null without a lens) add rows. Resolves to { finalNorms, finalHidden, allLogits } (allLogits:
 * headRows x V, soft-capped).
 */
export async function runHead(ctx, { lensRows, variantStreams, variantLensRows, collected }) {
  const { Module, blocks, opts, T } = ctx;
  const { d, V } = ctx.model.sizes;
  const { x, headIn, logits, final } = blocks;
  const { logitRows, lensCount, headRows, headInputs, branches } = opts;
  const cap = ctx.model.forward.finalSoftcap;
  await finalNormGain(ctx);
  observeFinalNorm(ctx, collected);
  finalNorm(ctx, final, x, T);
  Module._rl_ckpt_row_norms(blocks.norms, final, T, d);
  const finalNorms = Module.HEAPF32.slice(blocks.norms >> 2, (blocks.norms >> 2) + T);
  const finalHidden = opts.hiddenStates ? Module.HEAPF32.slice(final >> 2, (final >> 2) + T * d) : null;
  // the head's input: the final rows asked for, then each lens state through the final norm with its own rstd
  Module.HEAPF32.copyWithin(headIn >> 2, (final >> 2) + (T - logitRows) * d, (final >> 2) + T * d);
  if (lensRows) Module.HEAPF32.set(lensRows, (headIn >> 2) + logitRows * d);
  if (headInputs) Module.HEAPF32.set(headInputs, (headIn >> 2) + (logitRows + lensCount) * d);
  // each variant's row at variantPosition (the run's own where it never left it), and its lens states
  const { variantsAt, variantLensAt } = headLayout(opts);
  const rowAt = (r) => headIn + r * d * 4;
  branches.forEach((_, k) => {
    const from = (variantStreams[k] ?? x) + opts.variantPosition * d * 4;
    Module.HEAPU8.copyWithin(rowAt(variantsAt + k), from, from + d * 4);
    if (variantLensRows[k]) Module.HEAPF32.set(variantLensRows[k], rowAt(variantLensAt + k * lensCount) >> 2);
  });
  // through the final norm: the run's rows as the run reads them, each variant's as it does
  if (variantsAt > logitRows) finalNorm(ctx, rowAt(logitRows), rowAt(logitRows), variantsAt - logitRows);
  branches.forEach((b, k) => {
    finalNorm(ctx, rowAt(variantsAt + k), rowAt(variantsAt + k), 1, b);
    if (lensCount)
      finalNorm(ctx, rowAt(variantLensAt + k * lensCount), rowAt(variantLensAt + k * lensCount), lensCount, b);
  });
  if (headRows === 0) {
    // logits: 'none' and nothing else to read: the head is not read
  } else if (ctx.pool) {
    const [all] = await ctx.split.exchange(
      { layer: null, slots: [{ slot: 'head', outRows: V }], rows: headRows },
      Module.HEAPF32.slice(headIn >> 2, (headIn >> 2) + headRows * d),
    );
    Module.HEAPF32.set(all, logits >> 2);
    if (ctx.keep) ctx.residency.kept.workerHead = true;
  } else await localHead(ctx);
  // the final soft-cap, on the logits asked for (observed when asked) and on the lens's rows
  const { headStats } = ctx.layout;
  const capStats =
    opts.wanted.has('finalSoftcap') && logitRows ? ctx.alloc(headStats * 4, 'the soft-cap statistics') : 0;
  if (logitRows) Module._rl_ckpt_softcap(logits, logitRows * V, cap, capStats);
  if (capStats) {
    const [maxBefore, maxAfter, bent, count] = Module.HEAPF32.slice(capStats >> 2, (capStats >> 2) + headStats);
    collected.finalSoftcap = { cap, maxBefore, maxAfter, bent, count };
  }
  if (headRows > logitRows) Module._rl_ckpt_softcap(logits + logitRows * V * 4, (headRows - logitRows) * V, cap, 0);
  return { finalNorms, finalHidden, allLogits: Module.HEAPF32.slice(logits >> 2, (logits >> 2) + headRows * V) };
}
