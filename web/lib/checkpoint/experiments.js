// The chapter's claims about trained models, each as a short experiment on an opened checkpoint: one forward
// (ckpt.run) with named interventions (options.intervene) and observations (options.collect), never a copy of
// the forward. Each takes the checkpoint (in this thread, or a lab worker's handle: only run, normWeights and the
// data field `forward` are used), the token ids, and { onProgress, signal }; each returns plain numbers, and
// `unsupported` (a sentence) where the open model cannot run it.
import { ResidualLabError } from '../errors.js';

const last = (a) => a[a.length - 1];

/** Softmax statistics of one row of logits: entropy in nats, top-k ids and probabilities. */
export function distribution(logits, k = 5) {
  let max = -Infinity;
  for (const z of logits) max = Math.max(max, z);
  let sum = 0;
  for (const z of logits) sum += Math.exp(z - max);
  const logSum = Math.log(sum) + max;
  let entropy = 0;
  for (const z of logits) {
    const lp = z - logSum;
    entropy -= Math.exp(lp) * lp;
  }
  const ids = topIds(logits, k);
  return { entropy, ids, probs: ids.map((j) => Math.exp(logits[j] - logSum)), logSum };
}

/** KL(p || q) in nats of the softmaxes of two rows of logits: what q loses of p. */
export function klDivergence(pLogits, qLogits) {
  const p = distribution(pLogits, 1),
    q = distribution(qLogits, 1);
  let kl = 0;
  for (let j = 0; j < pLogits.length; j++) {
    const lp = pLogits[j] - p.logSum;
    kl += Math.exp(lp) * (lp - (qLogits[j] - q.logSum));
  }
  return Math.max(0, kl);
}

/** The k largest entries' indices, largest first (ties: the lower index), in one pass: O(V k), not a sort of V. */
function topIds(row, k) {
  const top = []; // ascending by rank: top[0] is the largest so far
  const ranksBefore = (a, b) => row[a] > row[b] || (row[a] === row[b] && a < b);
  for (let j = 0; j < row.length; j++) {
    if (top.length === k && !ranksBefore(j, top[k - 1])) continue;
    let at = Math.min(top.length, k - 1);
    if (top.length < k) top.push(j);
    while (at > 0 && ranksBefore(j, top[at - 1])) {
      top[at] = top[at - 1];
      at--;
    }
    top[at] = j;
  }
  return top;
}

const row = (states, t, d) => states.subarray(t * d, (t + 1) * d);
function cosine(a, b) {
  let ab = 0,
    aa = 0,
    bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / Math.sqrt(aa * bb);
}

/** Progress over several runs: `runs` runs of `layers` layers each, reported as a fraction done. */
function progressOver(onProgress, runs) {
  let done = 0;
  return {
    run: (layers) => (p) => onProgress?.({ ...p, fraction: (done + p.layer / Math.max(1, layers)) / runs }),
    next: () => (done += 1),
  };
}

/**
 * No final norm: the head applied to the raw last stream beside the real logits, at the last position. scale:
 * what the norm divides the stream by there, sqrt(mean(h^2) + eps) (its gain aside).
 */
export async function noFinalNorm(ckpt, ids, { k = 5, onProgress, signal } = {}) {
  const p = progressOver(onProgress, 2);
  const real = await ckpt.run(ids, { collect: ['normInputs'], onProgress: p.run(ckpt.forward.layers), signal });
  p.next();
  const raw = await ckpt.run(ids, { intervene: { noFinalNorm: true }, onProgress: p.run(ckpt.forward.layers), signal });
  const ms = last(real.collected.finalNormInput);
  return {
    real: distribution(real.logits, k),
    raw: distribution(raw.logits, k),
    scale: Math.sqrt(ms + ckpt.forward.eps),
    streamNorm: last(last(real.streamNorms)),
    kl: klDivergence(real.logits, raw.logits),
  };
}

/**
 * Drop one layer, for every layer l: the run without layer l's two increments, against the full run, at the last
 * position: KL(full || dropped), whether the full model's top token stays on top, and the cosine between layer l's
 * input and output streams in the full run. The layers before l are the full run's: each dropped run starts at
 * layer l + 1 from the full run's stream before layer l (intervene.from) and skips the head (logits: 'none');
 * the L last rows then go through the final norm and the head in one pass (headInputs, a run from layer L). The
 * sweep computes 1 + (L - 1) / 2 runs' worth of layers and two reads of the head, not L + 1 whole runs.
 */
export async function dropLayers(ckpt, ids, { onProgress, signal } = {}) {
  const L = ckpt.forward.layers,
    d = ckpt.forward.d;
  // one run: each dropped layer a variant, leaving the full run's stream at its layer; every layer's weights are read
  // once and multiply the rows of every stream that goes through it
  const full = await ckpt.run(ids, {
    hiddenStates: true,
    variants: Array.from({ length: L }, (_, l) => [l]),
    onProgress: onProgress && ((p) => onProgress({ ...p, fraction: p.layer / Math.max(1, L) })),
    signal,
  });
  const T = full.tokens.length;
  const top = topIds(full.logits, 1)[0];
  const V = full.variantLogits.length / L;
  const layers = [];
  for (let l = 0; l < L; l++) {
    const logits = full.variantLogits.subarray(l * V, (l + 1) * V);
    const droppedTop = topIds(logits, 1)[0];
    layers.push({
      layer: l,
      kl: klDivergence(full.logits, logits),
      topSurvives: droppedTop === top,
      top: droppedTop,
      cosine: cosine(row(full.hiddenStates[l], T - 1, d), row(full.hiddenStates[l + 1], T - 1, d)),
    });
  }
  return { top, layers };
}

/**
 * The wrong weight convention: every norm read as (1 + w) where the model multiplies by w, or as w where it
 * multiplies by 1 + w; top tokens and the logit lens at the last position under both readings.
 */
export async function wrongConvention(ckpt, ids, { k = 5, onProgress, signal } = {}) {
  const right = ckpt.forward.normOffset;
  const p = progressOver(onProgress, 2);
  const runs = [];
  for (const normOffset of [right, 1 - right]) {
    const r = await ckpt.run(ids, {
      intervene: { normOffset },
      lens: { k },
      onProgress: p.run(ckpt.forward.layers),
      signal,
    });
    p.next();
    runs.push({ normOffset, ...distribution(r.logits, k), lens: r.lens });
  }
  return { right: runs[0], wrong: runs[1] };
}

/**
 * Increments relative to the stream: per layer, |attention increment| / |stream before it| and |MLP increment| /
 * |stream between the sublayers| at `position` (default the last); for layouts with norms on the sublayers'
 * outputs, the mean multiplier of those norms (what sets the increment's size).
 */
export async function increments(ckpt, ids, { position, onProgress, signal } = {}) {
  const r = await ckpt.run(ids, { collect: ['residMid'], onProgress, signal });
  const t = position ?? r.tokens.length - 1;
  checkPosition(t, r.tokens.length);
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

/**
 * eps beside the mean square: per layer and norm, the smallest mean(h^2) over positions at that norm's input and
 * its ratio to eps; the final norm's too; the smallest ratio of all marked.
 */
export async function epsMargin(ckpt, ids, { onProgress, signal } = {}) {
  const r = await ckpt.run(ids, { collect: ['normInputs'], onProgress, signal });
  const T = r.tokens.length,
    eps = ckpt.forward.eps;
  const NAMES = ['attnNormBefore', 'attnNormAfter', 'mlpNormBefore', 'mlpNormAfter'];
  const rows = [];
  r.collected.normInputs.forEach((block, l) =>
    NAMES.forEach((slot, s) => {
      const ms = block.subarray(s * T, (s + 1) * T);
      if (ms.every((v) => v === 0)) return; // the layout has no such norm
      rows.push({ layer: l, slot, minMeanSquare: Math.min(...ms), position: ms.indexOf(Math.min(...ms)) });
    }),
  );
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
export async function attentionScores(ckpt, ids, { onProgress, signal } = {}) {
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
export async function softcaps(ckpt, ids, { onProgress, signal } = {}) {
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
 * coordinates by magnitude, their values and their share of the squared norm.
 */
export async function streamTop(ckpt, ids, { position, k = 5, onProgress, signal } = {}) {
  const r = await ckpt.run(ids, { hiddenStates: true, onProgress, signal });
  const t = position ?? r.tokens.length - 1;
  checkPosition(t, r.tokens.length);
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
  return { position: t, k, states };
}

/**
 * BF16 arithmetic: the final norm computed with every step rounded to bfloat16 (the squares summed one by one in
 * bfloat16, as a path without float32 upcasting does), against float32, per position: the mean square both ways
 * and the largest error of the normalized output relative to its largest value.
 */
export async function bf16Norm(ckpt, ids, { onProgress, signal } = {}) {
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

function checkPosition(t, T) {
  if (!Number.isInteger(t) || t < 0 || t >= T)
    throw new ResidualLabError(`position must be 0 .. ${T - 1}, is ${t}`, { code: 'invalid_input' });
}

/** The experiments by name, in the order the probe lists them. */
export const EXPERIMENTS = Object.freeze({
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
