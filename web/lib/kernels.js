// The norm kernels as plain functions over Float32Arrays. Hot path: the raw C exports of
// wasm/bindings/kernel_exports.cpp with inputs copied into one reusable scratch block of the WASM heap
// (no Embind, no allocation per call but the result). Every check that can fail lives in C++ (wasm/src/api/),
// which returns a status; here a non-zero status becomes a ResidualLabError carrying C++'s message. JS makes no
// pass over the data itself: non-finite values are found by the C++ checks' own sums of squares.
// The forward kernels with one output (rmsNorm, layerNorm, dynamicTanh, softcap, softmax) take a last argument
// `out`, a Float32Array of x's length that receives the result and is returned, so a caller can reuse one array
// across calls. It may be x itself (or alias any input): inputs are copied into the heap before the kernel runs.
// The argument checks are in kernel-inputs.js, the heap memory and the calls' status in kernel-scratch.js.
// Each kernel is a function of this file taking `context` (kernelContext: the module, the option defaults, the
// checks, the scratch memory) first; createKernelApi binds it, so lab.rmsNorm(x, g) is rmsNorm(context, x, g).
import { ResidualLabError } from './errors.js';
import { asFloat32, encodeText, optionsReader } from './kernel-inputs.js';
import { createScratch } from './kernel-scratch.js';
import { defaultsOf } from './options.js';

const ABSENT = -1; // length passed for an omitted optional weight (g, gamma, beta)
const len = (a) => (a ? a.length : ABSENT);

/** The lab's kernel functions over one module: lab.rmsNorm and the rest. */
export function createKernelApi(Module, tables) {
  const context = kernelContext(Module, tables);
  const api = {
    rmsNorm,
    layerNorm,
    rmsNormBackward,
    layerNormBackward,
    rmsNormSteps,
    layerNormSteps,
    dynamicTanh,
    dynamicTanhBackward,
    dynamicTanhSteps,
    softcap,
    softcapBackward,
    softmax,
    parseVector,
  };
  return Object.fromEntries(Object.entries(api).map(([name, kernel]) => [name, kernel.bind(null, context)]));
}

/** What every kernel function reads: the module, the kernels' options, the argument checks, the scratch memory. */
function kernelContext(Module, tables) {
  /** The defaults of every kernel's options: defaults.rmsNorm.eps. */
  const defaults = Object.freeze(
    Object.fromEntries(Object.entries(tables.kernels).map(([fn, table]) => [fn, Object.freeze(defaultsOf(table))])),
  );
  const readers = Object.fromEntries(
    Object.entries(tables.kernels).map(([fn, table]) => [fn, optionsReader(fn, table, defaults[fn])]),
  );
  const maxLength = Module._rl_max_vector_length();
  return {
    Module,
    defaults,
    maxLength,
    /** The options of kernel `fn` (lab.describe().kernels[fn]) checked; a missing value is read as defaults[fn]'s. */
    optionsOf: (fn, options) => readers[fn](options),
    vector: (value, name) => asFloat32(value, name, maxLength),
    optionalVector: (value, name) => (value === null || value === undefined ? null : asFloat32(value, name, maxLength)),
    ...createScratch(Module),
  };
}

function rmsNorm(context, x, g = null, options, out) {
  x = context.vector(x, 'x');
  g = context.optionalVector(g, 'g');
  const D = context.defaults.rmsNorm;
  const { eps = D.eps, weightOffset = D.weightOffset, precision = D.precision } = context.optionsOf('rmsNorm', options);
  return context.withForwardSlots(x, g, null, out, (py, px, pg) =>
    context.Module._rl_rmsnorm(py, px, x.length, pg, len(g), eps, weightOffset, precision === 'bf16' ? 1 : 0),
  );
}

function layerNorm(context, x, gamma = null, beta = null, options, out) {
  x = context.vector(x, 'x');
  gamma = context.optionalVector(gamma, 'gamma');
  beta = context.optionalVector(beta, 'beta');
  const { eps = context.defaults.layerNorm.eps } = context.optionsOf('layerNorm', options);
  return context.withForwardSlots(x, gamma, beta, out, (py, px, pgamma, pbeta) =>
    context.Module._rl_layernorm(py, px, x.length, pgamma, len(gamma), pbeta, len(beta), eps),
  );
}

function rmsNormBackward(context, x, g, dy, options) {
  x = context.vector(x, 'x');
  g = context.optionalVector(g, 'g');
  dy = context.vector(dy, 'dy');
  const D = context.defaults.rmsNormBackward;
  const { eps = D.eps, weightOffset = D.weightOffset } = context.optionsOf('rmsNormBackward', options);
  const [dx, dg] = context.withScratch([x, g, dy], [x.length, x.length], ([px, pg, pdy], [pdx, pdg]) =>
    context.Module._rl_rmsnorm_backward(pdx, pdg, pdy, dy.length, px, x.length, pg, len(g), eps, weightOffset),
  );
  return { dx, dg };
}

function layerNormBackward(context, x, gamma, dy, options) {
  x = context.vector(x, 'x');
  gamma = context.optionalVector(gamma, 'gamma');
  dy = context.vector(dy, 'dy');
  const { eps = context.defaults.layerNormBackward.eps } = context.optionsOf('layerNormBackward', options);
  const [dx, dgamma, dbeta] = context.withScratch(
    [x, gamma, dy],
    [x.length, x.length, x.length],
    ([px, pgamma, pdy], [pdx, pdgamma, pdbeta]) =>
      context.Module._rl_layernorm_backward(
        pdx,
        pdgamma,
        pdbeta,
        pdy,
        dy.length,
        px,
        x.length,
        pgamma,
        len(gamma),
        eps,
      ),
  );
  return { dx, dgamma, dbeta };
}

function rmsNormSteps(context, x, g = null, options) {
  x = context.vector(x, 'x');
  g = context.optionalVector(g, 'g');
  const D = context.defaults.rmsNormSteps;
  const { eps = D.eps, weightOffset = D.weightOffset } = context.optionsOf('rmsNormSteps', options);
  const d = x.length;
  const [squares, normalized, output, scalars] = withPartialSteps(
    () =>
      context.withScratch([x, g], [d, d, d, 2], ([px, pg], [psq, pn, po, ps]) =>
        context.Module._rl_rmsnorm_steps(psq, pn, po, ps, px, d, pg, len(g), eps, weightOffset),
      ),
    ([partSquares, , , partScalars]) => ({ squares: partSquares, meanSquare: partScalars[0], rms: partScalars[1] }),
  );
  return { squares, meanSquare: scalars[0], rms: scalars[1], normalized, output };
}

/**
 * `compute()`, whose refusal of the division alone (x all zeros or constant) carries the steps before it as
 * error.partial, named by `name(outputs)`: { squares, meanSquare, rms } or { mean, centered, variance, std }.
 */
function withPartialSteps(compute, name) {
  try {
    return compute();
  } catch (error) {
    if (error.partial) error.partial = name(error.partial);
    throw error;
  }
}

function layerNormSteps(context, x, gamma = null, beta = null, options) {
  x = context.vector(x, 'x');
  gamma = context.optionalVector(gamma, 'gamma');
  beta = context.optionalVector(beta, 'beta');
  const { eps = context.defaults.layerNormSteps.eps } = context.optionsOf('layerNormSteps', options);
  const d = x.length;
  const [centered, normalized, output, scalars] = withPartialSteps(
    () =>
      context.withScratch([x, gamma, beta], [d, d, d, 3], ([px, pgamma, pbeta], [pc, pn, po, ps]) =>
        context.Module._rl_layernorm_steps(pc, pn, po, ps, px, d, pgamma, len(gamma), pbeta, len(beta), eps),
      ),
    ([partCentered, , , partScalars]) => ({
      mean: partScalars[0],
      centered: partCentered,
      variance: partScalars[1],
      std: partScalars[2],
    }),
  );
  return { mean: scalars[0], centered, variance: scalars[1], std: scalars[2], normalized, output };
}

// DyT: y = gamma * tanh(alpha * x) + beta. The raw exports take outputs first, then inputs in the C++ kernel's order.
function dynamicTanh(context, x, gamma = null, beta = null, options, out) {
  x = context.vector(x, 'x');
  gamma = context.optionalVector(gamma, 'gamma');
  beta = context.optionalVector(beta, 'beta');
  const { alpha = context.defaults.dynamicTanh.alpha } = context.optionsOf('dynamicTanh', options);
  return context.withForwardSlots(x, gamma, beta, out, (py, px, pgamma, pbeta) =>
    context.Module._rl_dyt(py, px, x.length, alpha, pgamma, len(gamma), pbeta, len(beta)),
  );
}

function dynamicTanhBackward(context, x, gamma, dy, options) {
  x = context.vector(x, 'x');
  gamma = context.optionalVector(gamma, 'gamma');
  dy = context.vector(dy, 'dy');
  const { alpha = context.defaults.dynamicTanhBackward.alpha } = context.optionsOf('dynamicTanhBackward', options);
  const d = x.length;
  const [dx, dalpha, dgamma, dbeta] = context.withScratch(
    [x, gamma, dy],
    [d, 1, d, d],
    ([px, pgamma, pdy], [pdx, pda, pdgamma, pdbeta]) =>
      context.Module._rl_dyt_backward(pdx, pda, pdgamma, pdbeta, pdy, dy.length, px, d, alpha, pgamma, len(gamma)),
  );
  return { dx, dalpha: dalpha[0], dgamma, dbeta };
}

function dynamicTanhSteps(context, x, gamma = null, beta = null, options) {
  x = context.vector(x, 'x');
  gamma = context.optionalVector(gamma, 'gamma');
  beta = context.optionalVector(beta, 'beta');
  const { alpha = context.defaults.dynamicTanhSteps.alpha } = context.optionsOf('dynamicTanhSteps', options);
  const d = x.length;
  const [scaled, tanh, output] = context.withScratch([x, gamma, beta], [d, d, d], ([px, pgamma, pbeta], [ps, pt, po]) =>
    context.Module._rl_dyt_steps(ps, pt, po, px, d, alpha, pgamma, len(gamma), pbeta, len(beta)),
  );
  return { scaled, tanh, output };
}

function checkCap(cap) {
  if (typeof cap !== 'number') throw new ResidualLabError(`cap must be a number (got ${JSON.stringify(cap)})`);
}

function softcap(context, x, cap, out) {
  x = context.vector(x, 'x');
  checkCap(cap);
  return context.withForwardSlots(x, null, null, out, (py, px) => context.Module._rl_softcap(py, px, x.length, cap));
}

function softcapBackward(context, x, cap, dy) {
  x = context.vector(x, 'x');
  dy = context.vector(dy, 'dy');
  checkCap(cap);
  const [dx] = context.withScratch([x, dy], [x.length], ([px, pdy], [pdx]) =>
    context.Module._rl_softcap_backward(pdx, pdy, dy.length, px, x.length, cap),
  );
  return { dx };
}

function softmax(context, x, out) {
  x = context.vector(x, 'x');
  return context.withForwardSlots(x, null, null, out, (py, px) => context.Module._rl_softmax(py, px, x.length));
}

function parseVector(context, text) {
  const { Module } = context;
  if (typeof text !== 'string') throw new ResidualLabError(`parseVector takes a string (got ${typeof text})`);
  if (Module._rl_check_text_length(Module.lengthBytesUTF8(text))) context.throwLastError(); // before encoding
  const bytes = encodeText(text);
  const capacity = Math.min(bytes.length + 1, context.maxLength); // never more numbers than bytes, nor than the limit
  try {
    const base = context.reserve(capacity + Math.ceil(bytes.length / 4));
    const textPtr = base + capacity * 4;
    Module.HEAPU8.set(bytes, textPtr);
    const count = Module._rl_parse_vector(base, capacity, textPtr, bytes.length);
    if (count < 0) context.throwLastError();
    return Module.HEAPF32.slice(base >> 2, (base >> 2) + count);
  } finally {
    context.releaseLargeScratch();
  }
}
