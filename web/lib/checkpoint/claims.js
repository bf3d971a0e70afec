// The chapter's claims about trained models, each tested on an opened checkpoint: one forward
// (ckpt.run) with named interventions (options.intervene) and observations (options.collect), never a copy of
// the forward. Each takes the checkpoint (in this thread, or a lab worker's handle: only run, normWeights and the
// data field `forward` are used), the token ids, and { onProgress, signal } beside its own options
// (CLAIM_OPTIONS); each returns plain numbers, and `unsupported` (a sentence) where the open model cannot run it.
import { ResidualLabError } from '../errors.js';
import { resolveOptions, shown } from '../options.js';
import {
  RANDOM_DIRECTIONS,
  cosine,
  distribution,
  klDivergence,
  logitRows,
  logitsAt,
  progressOver,
  randomShares,
  row,
  topIds,
} from './experiment-stats.js';

export { RANDOM_DIRECTIONS, distribution, klDivergence, randomShares } from './experiment-stats.js';

/**
 * Each experiment's own options, beside onProgress and signal: `position` (default the last) is where it looks;
 * `k` (default 5) how many tokens or coordinates it lists. The checks, the probe and the docs read this table.
 */
export const CLAIM_OPTIONS = Object.freeze({
  noFinalNorm: Object.freeze(['k', 'position']),
  dropLayers: Object.freeze(['position']),
  wrongConvention: Object.freeze(['k', 'position']),
  increments: Object.freeze(['position']),
  epsMargin: Object.freeze([]),
  attentionScores: Object.freeze([]),
  softcaps: Object.freeze([]),
  streamTop: Object.freeze(['k', 'position']),
  bf16Norm: Object.freeze([]),
});
/** The most tokens an experiment lists (the top k of the vocabulary); streamTop's k goes up to d. */
export const MAX_TOP_TOKENS = 100;

/**
 * `options` of experiment `name` checked: unknown keys refused by name, onProgress a function, signal an
 * AbortSignal, position a whole number 0 .. T - 1 and k one 1 .. its bound (d for coordinates, else
 * min(V, MAX_TOP_TOKENS)); returns them with the defaults filled in.
 */
function checkOptions(name, options, ckpt, ids) {
  const fail = (message) => {
    throw new ResidualLabError(`${name}: ${message}`, { code: 'invalid_options' });
  };
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) fail(`options must be an object (got ${shown(options)})`);
  const { onProgress, signal, ...own } = options;
  if (onProgress != null && typeof onProgress !== 'function')
    fail(`onProgress must be a function (got ${shown(onProgress)})`);
  if (signal != null && !(typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function'))
    fail(`signal must be an AbortSignal (got ${shown(signal)})`);
  const T = ids?.length ?? 0,
    f = ckpt.forward;
  const rows = {
    position: { name: 'position', type: 'integer', min: 0, max: T - 1, default: T - 1 },
    k: {
      name: 'k',
      type: 'integer',
      min: 1,
      max: name === 'streamTop' ? f.d : Math.min(f.vocab, MAX_TOP_TOKENS),
      default: 5,
    },
  };
  // with no tokens the run refuses the input itself; a position then has nothing to be checked against
  const table = CLAIM_OPTIONS[name].filter((key) => T > 0 || key !== 'position').map((key) => rows[key]);
  if (T === 0) delete own.position;
  const resolved = resolveOptions(table, own, { prefix: `${name}: ` });
  return { ...resolved, onProgress, signal };
}

/**
 * No final norm, at `position`: the real logits beside the head applied without the norm's division (raw: the
 * stream times the gain, every logit the real one times `scale` before any soft-cap, so no two swap), and without
 * the whole norm (noGain: the gain left out too, which reweights coordinates and can reorder). scale: what the
 * norm divides the stream by there, sqrt(mean(h^2) + eps). One run: the two readings are variants that differ from
 * it at the final norm alone (options.variants), their rows at `position` read in the same pass over the head.
 */
export async function noFinalNorm(ckpt, ids, options = {}) {
  const { k, position: t, onProgress, signal } = checkOptions('noFinalNorm', options, ckpt, ids);
  const { layers: L, vocab: V } = ckpt.forward,
    T = ids.length;
  const real = await ckpt.run(ids, {
    collect: ['normInputs'],
    logits: logitRows(t, T),
    variants: [{ noFinalNorm: 'division' }, { noFinalNorm: true }],
    variantPosition: t,
    onProgress: progressOver(onProgress, 1).run(L),
    signal,
  });
  const realLogits = logitsAt(real, t, T, V),
    rawLogits = real.variantLogits.subarray(0, V),
    noGainLogits = real.variantLogits.subarray(V, 2 * V);
  return {
    position: t,
    real: distribution(realLogits, k),
    raw: distribution(rawLogits, k),
    noGain: { ...distribution(noGainLogits, k), kl: klDivergence(realLogits, noGainLogits) },
    scale: Math.sqrt(real.collected.finalNormInput[t] + ckpt.forward.eps),
    streamNorm: real.streamNorms[L][t],
    kl: klDivergence(realLogits, rawLogits),
  };
}

/**
 * Drop one layer, for every layer l: the run without layer l's two increments, against the full run, at
 * `position`: KL(full || dropped), whether the full model's top token stays on top, and the cosine between layer
 * l's input and output streams in the full run. One run (options.variants): dropped layer l is a variant that
 * follows the full run's stream up to layer l and keeps its own from there; each layer's weights are read once and
 * multiply the rows of every stream that goes through it, and every variant's row at `position` goes through the
 * final norm and the head in the same pass as the full run's (options.variantPosition).
 */
export async function dropLayers(ckpt, ids, options = {}) {
  const { position: t, onProgress, signal } = checkOptions('dropLayers', options, ckpt, ids);
  const L = ckpt.forward.layers,
    d = ckpt.forward.d,
    T = ids.length;
  const full = await ckpt.run(ids, {
    hiddenStates: true,
    logits: logitRows(t, T),
    variants: Array.from({ length: L }, (_, l) => [l]),
    variantPosition: t,
    onProgress: onProgress && ((p) => onProgress({ ...p, fraction: p.layer / Math.max(1, L) })),
    signal,
  });
  const fullLogits = logitsAt(full, t, T, ckpt.forward.vocab);
  const top = topIds(fullLogits, 1)[0];
  const V = full.variantLogits.length / L;
  const layers = [];
  for (let l = 0; l < L; l++) {
    const logits = full.variantLogits.subarray(l * V, (l + 1) * V);
    const droppedTop = topIds(logits, 1)[0];
    layers.push({
      layer: l,
      kl: klDivergence(fullLogits, logits),
      topSurvives: droppedTop === top,
      top: droppedTop,
      cosine: cosine(row(full.hiddenStates[l], t, d), row(full.hiddenStates[l + 1], t, d)),
    });
  }
  return { position: t, top, layers };
}

/**
 * The wrong weight convention: every norm read as (1 + w) where the model multiplies by w, or as w where it
 * multiplies by 1 + w; top tokens and the logit lens at `position` under both readings. One run: the wrong reading
 * is a variant (options.variants) whose stream goes through every layer's weights beside the right one's.
 */
export async function wrongConvention(ckpt, ids, options = {}) {
  const { k, position: t, onProgress, signal } = checkOptions('wrongConvention', options, ckpt, ids);
  const right = ckpt.forward.normOffset,
    T = ids.length,
    V = ckpt.forward.vocab;
  const r = await ckpt.run(ids, {
    logits: logitRows(t, T),
    lens: { k, position: t },
    variants: [{ normOffset: 1 - right }],
    variantPosition: t,
    onProgress: progressOver(onProgress, 1).run(ckpt.forward.layers),
    signal,
  });
  return {
    position: t,
    right: { normOffset: right, ...distribution(logitsAt(r, t, T, V), k), lens: r.lens },
    wrong: { normOffset: 1 - right, ...distribution(r.variantLogits, k), lens: r.variantLens[0] },
  };
}

/**
 * Increments relative to the stream: per layer, |attention increment| / |stream before it| and |MLP increment| /
 * |stream between the sublayers| at `position` (default the last); for layouts with norms on the sublayers'
 * outputs, the mean multiplier of those norms (what sets the increment's size).
 */
export async function increments(ckpt, ids, options = {}) {
  const { position: t, onProgress, signal } = checkOptions('increments', options, ckpt, ids);
  const r = await ckpt.run(ids, { collect: ['residMid'], onProgress, signal });
  const gains = ckpt.forward.placement === 'pre' ? null : await outputNormGains(ckpt);
  const layers = r.attnNorms.map((a, l) => ({
    layer: l,
    attn: a[t] / r.streamNorms[l][t],
    mlp: r.mlpNorms[l][t] / r.collected.residMid[l][t],
    stream: r.streamNorms[l][t],
    attnGain: gains?.[l]?.attnNormAfter ?? null,
    mlpGain: gains?.[l]?.mlpNormAfter ?? null,
  }));
  return { position: t, layers };
}

async function outputNormGains(ckpt) {
  const byLayer = [];
  for (const w of await ckpt.normWeights()) {
    if (w.slot !== 'attnNormAfter' && w.slot !== 'mlpNormAfter') continue;
    byLayer[w.layer] ??= {};
    byLayer[w.layer][w.slot] = (w.multiplier ?? w).mean;
  }
  return byLayer;
}

// The norms of a layer in the order of a run's normInputs blocks (forward.hpp's N1 .. N4, then q_norm, k_norm).
export const NORM_INPUTS = ['attnNormBefore', 'attnNormAfter', 'mlpNormBefore', 'mlpNormAfter', 'qNorm', 'kNorm'];
/** The norms a layer of this layout has, by their names in NORM_INPUTS. */
function layerNorms({ placement, qkNorm }) {
  const before = placement !== 'olmo2',
    after = placement !== 'pre';
  const has = [before, after, before, after, qkNorm !== 'none', qkNorm !== 'none'];
  return NORM_INPUTS.filter((_, s) => has[s]);
}

/**
 * eps beside the mean square: per layer and norm (the q/k norms' rows each a head's values, or the whole
 * projection's), the smallest mean(h^2) over positions at that norm's input and its ratio to eps; the final norm's
 * too; the smallest ratio of all marked. Every norm the layout has is a row, one whose input is all zeros too.
 */
export async function epsMargin(ckpt, ids, options = {}) {
  const { onProgress, signal } = checkOptions('epsMargin', options, ckpt, ids);
  const r = await ckpt.run(ids, { collect: ['normInputs'], onProgress, signal });
  const T = r.tokens.length,
    eps = ckpt.forward.eps;
  const norms = layerNorms(ckpt.forward);
  const rows = [];
  r.collected.normInputs.forEach((block, l) => {
    if (!block) return; // a layer the run did not compute
    for (const slot of norms) {
      const s = NORM_INPUTS.indexOf(slot);
      const ms = block.subarray(s * T, (s + 1) * T);
      rows.push({ layer: l, slot, minMeanSquare: Math.min(...ms), position: ms.indexOf(Math.min(...ms)) });
    }
  });
  const fin = r.collected.finalNormInput;
  rows.push({
    layer: null,
    slot: 'finalNorm',
    minMeanSquare: Math.min(...fin),
    position: fin.indexOf(Math.min(...fin)),
  });
  for (const row of rows) row.ratio = row.minMeanSquare / eps;
  const smallest = rows.reduce((a, b) => (b.ratio < a.ratio ? b : a));
  return { eps, rows, smallest };
}

/**
 * Attention scores against their bound: per layer and query head, the largest |score| (after the model's scale,
 * before any cap). With a per-head q/k norm every score obeys |s| <= scale * max|g_q| * max|g_k| * head_dim (a
 * normalized head vector has length sqrt(head_dim), eps aside; RoPE turns it without changing its length; g the
 * multipliers applied); with OLMo 2's norm over the whole projection a head may carry all of it:
 * |s| <= scale * max|g_q| * max|g_k| * sqrt(H * head_dim) * sqrt(KV * head_dim). Without q/k norm: no bound.
 */
export async function attentionScores(ckpt, ids, options = {}) {
  const { onProgress, signal } = checkOptions('attentionScores', options, ckpt, ids);
  const f = ckpt.forward;
  const r = await ckpt.run(ids, { collect: ['attnScores'], onProgress, signal });
  let bounds = null;
  if (f.qkNorm !== 'none') {
    const absMax = (w) => {
      const m = w.multiplier ?? w;
      return Math.max(Math.abs(m.min), Math.abs(m.max));
    };
    const norms = await ckpt.normWeights();
    const length2 =
      f.qkNorm === 'per_head' ? f.headDim : Math.sqrt(f.heads * f.headDim) * Math.sqrt(f.kvHeads * f.headDim);
    bounds = Array.from({ length: f.layers }, (_, l) => {
      const g = (slot) => absMax(norms.find((w) => w.layer === l && w.slot === slot));
      return f.attnScale * g('qNorm') * g('kNorm') * length2;
    });
  }
  const layers = r.collected.attnScores.map((stats, l) => ({
    layer: l,
    maxPerHead: Array.from({ length: f.heads }, (_, h) => stats[4 * h]),
    bound: bounds?.[l] ?? null,
  }));
  return { qkNorm: f.qkNorm, layers, unsupported: null };
}

/**
 * Soft-caps at work: how many attention scores and final logits lie where the cap bends them (|x| > cap / 2),
 * and the largest before and after the cap.
 */
export async function softcaps(ckpt, ids, options = {}) {
  const { onProgress, signal } = checkOptions('softcaps', options, ckpt, ids);
  const f = ckpt.forward;
  if (!(f.attnSoftcap > 0) && !(f.finalSoftcap > 0))
    return { unsupported: 'this model sets no soft-cap (attn_logit_softcapping, final_logit_softcapping)' };
  const r = await ckpt.run(ids, { logits: 'all', collect: ['attnScores', 'finalSoftcap'], onProgress, signal });
  const attention =
    f.attnSoftcap > 0
      ? r.collected.attnScores.map((stats, l) => {
          let maxBefore = 0,
            maxAfter = 0,
            bent = 0,
            count = 0;
          for (let h = 0; h < f.heads; h++) {
            maxBefore = Math.max(maxBefore, stats[4 * h]);
            maxAfter = Math.max(maxAfter, stats[4 * h + 1]);
            bent += stats[4 * h + 2];
            count += stats[4 * h + 3];
          }
          return { layer: l, maxBefore, maxAfter, bent, count };
        })
      : null;
  return {
    attnCap: f.attnSoftcap || null,
    finalCap: f.finalSoftcap || null,
    attention,
    final: f.finalSoftcap > 0 ? r.collected.finalSoftcap : null,
    unsupported: null,
  };
}

/**
 * Where the length lives: for each state (0 the embedding, l + 1 after layer l) at `position`, its k largest
 * coordinates by magnitude, their values and their share of the squared norm; `random`: what a random direction's
 * k largest hold (randomShares), the baseline.
 */
export async function streamTop(ckpt, ids, options = {}) {
  const { position: t, k, onProgress, signal } = checkOptions('streamTop', options, ckpt, ids);
  const r = await ckpt.run(ids, { hiddenStates: true, onProgress, signal });
  const d = ckpt.forward.d;
  const states = r.hiddenStates.map((h, i) => {
    const x = row(h, t, d);
    const total = x.reduce((s, v) => s + v * v, 0);
    const idx = Array.from(x.keys())
      .sort((a, b) => Math.abs(x[b]) - Math.abs(x[a]) || a - b)
      .slice(0, k);
    return {
      state: i,
      norm: Math.sqrt(total),
      coords: idx.map((j) => ({ index: j, value: x[j], share: (x[j] * x[j]) / total })),
      share: idx.reduce((s, j) => s + (x[j] * x[j]) / total, 0),
    };
  });
  return { position: t, k, states, random: randomShares(d, k) };
}

/**
 * BF16 arithmetic: the final norm computed with every step rounded to bfloat16 (the squares summed one by one in
 * bfloat16, as a path without float32 upcasting does), against float32, per position: the mean square both ways
 * and the largest error of the normalized output relative to its largest value.
 */
export async function bf16Norm(ckpt, ids, options = {}) {
  const { onProgress, signal } = checkOptions('bf16Norm', options, ckpt, ids);
  const r = await ckpt.run(ids, { hiddenStates: true, collect: ['normInputs', 'finalNormBf16'], onProgress, signal });
  const d = ckpt.forward.d,
    T = r.tokens.length;
  const positions = Array.from({ length: T }, (_, t) => {
    const a = row(r.finalHidden, t, d),
      b = row(r.collected.finalNormBf16.hidden, t, d);
    let err = 0,
      scale = 0;
    for (let i = 0; i < d; i++) {
      err = Math.max(err, Math.abs(a[i] - b[i]));
      scale = Math.max(scale, Math.abs(a[i]));
    }
    const fp32 = r.collected.finalNormInput[t],
      bf16 = r.collected.finalNormBf16.meanSquare[t];
    return {
      position: t,
      meanSquare: fp32,
      meanSquareBf16: bf16,
      meanSquareError: (bf16 - fp32) / fp32,
      outputError: err / scale,
    };
  });
  return { positions };
}

/** The experiments by name, in the order the probe lists them. */
export const CLAIMS = Object.freeze({
  noFinalNorm,
  dropLayers,
  wrongConvention,
  increments,
  epsMargin,
  attentionScores,
  softcaps,
  streamTop,
  bf16Norm,
});
