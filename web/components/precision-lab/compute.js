// The numbers behind <rl-precision-lab>, kept free of the DOM so a Web Worker could run them unchanged.
// (At d = 8192 one comparison takes well under a millisecond, so the widget calls them on the main thread.)
// The kernels run through the lab; the exact reference is the same formula in float64, computed here.
import { randomVector } from '../../lib/random.js';

export { randomVector };

export const MAX_D = 8192;
export const SWEEP_DIMS = Array.from({ length: 12 }, (_, i) => 4 * 2 ** i); // 4, 8, ..., 8192
export const EPS = 1e-5;

/**
 * The first d values of randomVector(MAX_D, seed), which are randomVector(d, seed): the widget's vector and the
 * sweep's share one draw per seed (8,192 normal values are a fifth of the widget's first drawing).
 */
let lastDraw = { seed: null, x: null };
export function seededPrefix(d, seed) {
  if (lastDraw.seed !== seed) lastDraw = { seed, x: randomVector(MAX_D, seed) };
  return lastDraw.x.subarray(0, d);
}

/** RMSNorm in float64: y = x / sqrt(mean(x^2) + eps), the RMS it divides by, and the sum of squares. */
export function exactRmsNorm(x, eps = EPS) {
  let sum = 0;
  for (const v of x) sum += v * v;
  const rms = Math.sqrt(sum / x.length + eps);
  const y = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = x[i] / rms;
  return { y, rms, sumSquares: sum };
}

/**
 * ||y - exact|| / ||exact||, in float64. Null where it is undefined: an all-zero exact result (0 / 0 when y is
 * zero too; a nonzero y against it would be Infinity).
 */
export function relativeError(y, exact) {
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < y.length; i++) {
    diff += (y[i] - exact[i]) ** 2;
    norm += exact[i] ** 2;
  }
  if (norm > 0) return Math.sqrt(diff / norm);
  return diff === 0 ? null : Infinity;
}

/** The RMS a kernel effectively divided by: ||x|| / ||y|| (eps is negligible next to it here); null for x all zeros. */
export function effectiveRms(x, y) {
  let xx = 0;
  let yy = 0;
  for (let i = 0; i < x.length; i++) {
    xx += x[i] * x[i];
    yy += y[i] * y[i];
  }
  return yy > 0 ? Math.sqrt(xx / yy) : null;
}

/** The largest finite float32, 2^128 - 2^104; bfloat16's largest, 2^128 - 2^120, is barely smaller. */
export const FLOAT32_MAX = 3.4028234663852886e38;

/** The sum of squares as float32 adds it up, one rounding per step: Infinity once it passes FLOAT32_MAX. */
export function float32SumOfSquares(x) {
  let sum = 0;
  for (const v of x) sum = Math.fround(sum + Math.fround(v * v));
  return sum;
}

/**
 * One vector through both kernels, each against the float64 result. `zero` marks an all-zero x (every output is
 * 0 and the errors are undefined). `overflow` marks a sum of squares beyond float32's (and bfloat16's) range:
 * the kernels would divide by an infinite RMS and return zeros, so the lab refuses such an x with an error, and
 * neither kernel runs. Another refusal of the kernels is thrown on.
 */
export function compare(lab, x) {
  const exact = exactRmsNorm(x);
  const result = { d: x.length, exactRms: exact.rms, sumSquares: exact.sumSquares, zero: exact.sumSquares === 0 };
  if (!Number.isFinite(float32SumOfSquares(x))) return { ...result, overflow: true, fp32: null, bf16: null };
  const run = (precision) => {
    const y = lab.rmsNorm(x, null, { eps: EPS, precision });
    return { error: relativeError(y, exact.y), rms: effectiveRms(x, y) };
  };
  return { ...result, overflow: false, fp32: run('fp32'), bf16: run('bf16') };
}

/** The error of each kernel as d grows: prefixes of one random vector of MAX_D values. */
export function sweep(lab, seed) {
  const rows = SWEEP_DIMS.map((d) => compare(lab, seededPrefix(d, seed)));
  return { dims: SWEEP_DIMS, fp32: rows.map((r) => r.fp32.error), bf16: rows.map((r) => r.bf16.error) };
}
