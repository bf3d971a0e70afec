// The numbers the checkpoint experiments (experiments.js) read off a run's rows: softmax statistics, KL
// divergence, the top entries of a row, cosines, a random direction's baseline, and progress over several runs.
import { randomVector } from '../random.js';

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
export function topIds(row, k) {
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

export const row = (states, t, d) => states.subarray(t * d, (t + 1) * d);
/** The logits a run needs for position t of T: the last row alone, or all rows (then row t is picked). */
export const logitRows = (t, T) => (t === T - 1 ? 'last' : 'all');
export const logitsAt = (run, t, T, V) => (t === T - 1 ? run.logits : row(run.logits, t, V));
export function cosine(a, b) {
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
export function progressOver(onProgress, runs) {
  let done = 0;
  return {
    run: (layers) => (p) => onProgress?.({ ...p, fraction: (done + p.layer / Math.max(1, layers)) / runs }),
    next: () => (done += 1),
  };
}

/**
 * What the k largest of d coordinates hold of a random direction's squared length (isotropic: d standard normal
 * values), over RANDOM_DIRECTIONS directions drawn with a fixed seed: the mean share of the k largest, its 95th
 * percentile, and the mean share of the largest one. The baseline a stream's shares are read against.
 */
export const RANDOM_DIRECTIONS = 2000;
export function randomShares(d, k, seed = 0) {
  const shares = new Float64Array(RANDOM_DIRECTIONS),
    squares = new Float64Array(d);
  let top = 0;
  for (let n = 0; n < RANDOM_DIRECTIONS; n++) {
    const x = randomVector(d, seed + n);
    let total = 0;
    for (let i = 0; i < d; i++) total += squares[i] = x[i] * x[i];
    // the k largest: one pass for a few (O(d k)), a sort for many
    const largest = k <= 16 ? topIds(squares, k).map((j) => squares[j]) : Float64Array.from(squares).sort().reverse();
    let sum = 0;
    for (let j = 0; j < k; j++) sum += largest[j];
    shares[n] = sum / total;
    top += largest[0] / total;
  }
  shares.sort();
  return {
    share: shares.reduce((a, b) => a + b, 0) / RANDOM_DIRECTIONS,
    p95: shares[Math.ceil(0.95 * RANDOM_DIRECTIONS) - 1],
    top: top / RANDOM_DIRECTIONS,
  };
}
