// The norm kernels as plain functions over Float32Arrays. Hot path: the raw C exports of
// wasm/bindings/kernel_exports.cpp with inputs copied into one reusable scratch block of the WASM heap
// (no Embind, no allocation per call but the result). Every check that can fail lives in C++ (wasm/src/api/),
// which returns a status; here a non-zero status becomes a ResidualLabError carrying C++'s message. JS makes no
// pass over the data itself: non-finite values are found by the C++ checks' own sums of squares.
// The forward kernels with one output (rmsNorm, layerNorm, dynamicTanh, softcap, softmax) take a last argument
// `out`, a Float32Array of x's length that receives the result and is returned, so a caller can reuse one array
// across calls. It may be x itself (or alias any input): inputs are copied into the heap before the kernel runs.
// The argument checks are in kernel-inputs.js, the heap memory and the calls' status in kernel-scratch.js.
import { ResidualLabError } from './errors.js';
import { asFloat32, encodeText, optionsReader } from './kernel-inputs.js';
import { createScratch } from './kernel-scratch.js';
import { defaultsOf } from './options.js';

const ABSENT = -1; // length passed for an omitted optional weight (g, gamma, beta)
const len = (a) => (a ? a.length : ABSENT);

export function createKernelApi(Module, tables) {
  /** The defaults of every kernel's options: D.rmsNorm.eps. */
  const D = Object.freeze(
    Object.fromEntries(Object.entries(tables.kernels).map(([fn, table]) => [fn, Object.freeze(defaultsOf(table))])),
  );
  const readers = Object.fromEntries(
    Object.entries(tables.kernels).map(([fn, table]) => [fn, optionsReader(fn, table, D[fn])]),
  );
  /** The options of kernel `fn` (lab.describe().kernels[fn]) checked; a missing value is read as D[fn]'s. */
  const optionsOf = (fn, options) => readers[fn](options);

  const maxLength = Module._rl_max_vector_length();
  const vector = (value, name) => asFloat32(value, name, maxLength);
  const optionalVector = (value, name) =>
    value === null || value === undefined ? null : asFloat32(value, name, maxLength);
  const { reserve, releaseLargeScratch, withScratch, stage, finish, at, throwLastError } = createScratch(Module);

  function rmsNorm(x, g = null, options, out) {
    x = vector(x, 'x');
    g = optionalVector(g, 'g');
    const {
      eps = D.rmsNorm.eps,
      weightOffset = D.rmsNorm.weightOffset,
      precision = D.rmsNorm.precision,
    } = optionsOf('rmsNorm', options);
    const s = stage(x, g, null, out);
    return finish(
      Module._rl_rmsnorm(
        at(s, 3),
        at(s, 0),
        x.length,
        g ? at(s, 1) : 0,
        len(g),
        eps,
        weightOffset,
        precision === 'bf16' ? 1 : 0,
      ),
      out,
    );
  }

  function layerNorm(x, gamma = null, beta = null, options, out) {
    x = vector(x, 'x');
    gamma = optionalVector(gamma, 'gamma');
    beta = optionalVector(beta, 'beta');
    const { eps = D.layerNorm.eps } = optionsOf('layerNorm', options);
    const s = stage(x, gamma, beta, out);
    return finish(
      Module._rl_layernorm(
        at(s, 3),
        at(s, 0),
        x.length,
        gamma ? at(s, 1) : 0,
        len(gamma),
        beta ? at(s, 2) : 0,
        len(beta),
        eps,
      ),
      out,
    );
  }

  function rmsNormBackward(x, g, dy, options) {
    x = vector(x, 'x');
    g = optionalVector(g, 'g');
    dy = vector(dy, 'dy');
    const { eps = D.rmsNormBackward.eps, weightOffset = D.rmsNormBackward.weightOffset } = optionsOf(
      'rmsNormBackward',
      options,
    );
    const [dx, dg] = withScratch([x, g, dy], [x.length, x.length], ([px, pg, pdy], [pdx, pdg]) =>
      Module._rl_rmsnorm_backward(pdx, pdg, pdy, dy.length, px, x.length, pg, len(g), eps, weightOffset),
    );
    return { dx, dg };
  }

  function layerNormBackward(x, gamma, dy, options) {
    x = vector(x, 'x');
    gamma = optionalVector(gamma, 'gamma');
    dy = vector(dy, 'dy');
    const { eps = D.layerNormBackward.eps } = optionsOf('layerNormBackward', options);
    const [dx, dgamma, dbeta] = withScratch(
      [x, gamma, dy],
      [x.length, x.length, x.length],
      ([px, pgamma, pdy], [pdx, pdgamma, pdbeta]) =>
        Module._rl_layernorm_backward(pdx, pdgamma, pdbeta, pdy, dy.length, px, x.length, pgamma, len(gamma), eps),
    );
    return { dx, dgamma, dbeta };
  }

  function rmsNormSteps(x, g = null, options) {
    x = vector(x, 'x');
    g = optionalVector(g, 'g');
    const { eps = D.rmsNormSteps.eps, weightOffset = D.rmsNormSteps.weightOffset } = optionsOf('rmsNormSteps', options);
    const d = x.length;
    const [squares, normalized, output, scalars] = withScratch([x, g], [d, d, d, 2], ([px, pg], [psq, pn, po, ps]) =>
      Module._rl_rmsnorm_steps(psq, pn, po, ps, px, d, pg, len(g), eps, weightOffset),
    );
    return { squares, meanSquare: scalars[0], rms: scalars[1], normalized, output };
  }

  function layerNormSteps(x, gamma = null, beta = null, options) {
    x = vector(x, 'x');
    gamma = optionalVector(gamma, 'gamma');
    beta = optionalVector(beta, 'beta');
    const { eps = D.layerNormSteps.eps } = optionsOf('layerNormSteps', options);
    const d = x.length;
    const [centered, normalized, output, scalars] = withScratch(
      [x, gamma, beta],
      [d, d, d, 3],
      ([px, pgamma, pbeta], [pc, pn, po, ps]) =>
        Module._rl_layernorm_steps(pc, pn, po, ps, px, d, pgamma, len(gamma), pbeta, len(beta), eps),
    );
    return { mean: scalars[0], centered, variance: scalars[1], std: scalars[2], normalized, output };
  }

  // DyT: y = gamma * tanh(alpha * x) + beta. The raw exports take outputs first, then inputs in the C++ kernel's order.
  function dynamicTanh(x, gamma = null, beta = null, options, out) {
    x = vector(x, 'x');
    gamma = optionalVector(gamma, 'gamma');
    beta = optionalVector(beta, 'beta');
    const { alpha = D.dynamicTanh.alpha } = optionsOf('dynamicTanh', options);
    const s = stage(x, gamma, beta, out);
    return finish(
      Module._rl_dyt(
        at(s, 3),
        at(s, 0),
        x.length,
        alpha,
        gamma ? at(s, 1) : 0,
        len(gamma),
        beta ? at(s, 2) : 0,
        len(beta),
      ),
      out,
    );
  }

  function dynamicTanhBackward(x, gamma, dy, options) {
    x = vector(x, 'x');
    gamma = optionalVector(gamma, 'gamma');
    dy = vector(dy, 'dy');
    const { alpha = D.dynamicTanhBackward.alpha } = optionsOf('dynamicTanhBackward', options);
    const d = x.length;
    const [dx, dalpha, dgamma, dbeta] = withScratch(
      [x, gamma, dy],
      [d, 1, d, d],
      ([px, pgamma, pdy], [pdx, pda, pdgamma, pdbeta]) =>
        Module._rl_dyt_backward(pdx, pda, pdgamma, pdbeta, pdy, dy.length, px, d, alpha, pgamma, len(gamma)),
    );
    return { dx, dalpha: dalpha[0], dgamma, dbeta };
  }

  function dynamicTanhSteps(x, gamma = null, beta = null, options) {
    x = vector(x, 'x');
    gamma = optionalVector(gamma, 'gamma');
    beta = optionalVector(beta, 'beta');
    const { alpha = D.dynamicTanhSteps.alpha } = optionsOf('dynamicTanhSteps', options);
    const d = x.length;
    const [scaled, tanh, output] = withScratch([x, gamma, beta], [d, d, d], ([px, pgamma, pbeta], [ps, pt, po]) =>
      Module._rl_dyt_steps(ps, pt, po, px, d, alpha, pgamma, len(gamma), pbeta, len(beta)),
    );
    return { scaled, tanh, output };
  }

  function softcap(x, cap, out) {
    x = vector(x, 'x');
    if (typeof cap !== 'number') throw new ResidualLabError(`cap must be a number (got ${JSON.stringify(cap)})`);
    const s = stage(x, null, null, out);
    return finish(Module._rl_softcap(at(s, 3), at(s, 0), x.length, cap), out);
  }

  function softcapBackward(x, cap, dy) {
    x = vector(x, 'x');
    dy = vector(dy, 'dy');
    if (typeof cap !== 'number') throw new ResidualLabError(`cap must be a number (got ${JSON.stringify(cap)})`);
    const [dx] = withScratch([x, dy], [x.length], ([px, pdy], [pdx]) =>
      Module._rl_softcap_backward(pdx, pdy, dy.length, px, x.length, cap),
    );
    return { dx };
  }

  function softmax(x, out) {
    x = vector(x, 'x');
    const s = stage(x, null, null, out);
    return finish(Module._rl_softmax(at(s, 3), at(s, 0), x.length), out);
  }

  function parseVector(text) {
    if (typeof text !== 'string') throw new ResidualLabError(`parseVector takes a string (got ${typeof text})`);
    if (Module._rl_check_text_length(Module.lengthBytesUTF8(text))) throwLastError(); // before encoding
    const bytes = encodeText(text);
    const capacity = Math.min(bytes.length + 1, maxLength); // never more numbers than bytes, nor than the limit
    try {
      const base = reserve(capacity + Math.ceil(bytes.length / 4));
      const textPtr = base + capacity * 4;
      Module.HEAPU8.set(bytes, textPtr);
      const count = Module._rl_parse_vector(base, capacity, textPtr, bytes.length);
      if (count < 0) throwLastError();
      return Module.HEAPF32.slice(base >> 2, (base >> 2) + count);
    } finally {
      releaseLargeScratch();
    }
  }

  return {
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
}
