// The norm kernels as plain functions over Float32Arrays. Hot path: the raw C exports of
// wasm/bindings/kernel_exports.cpp with inputs copied into one reusable scratch block of the WASM heap
// (no Embind, no allocation per call but the result). Every check that can fail lives in C++ (wasm/src/api/),
// which returns a status; here a non-zero status becomes a ResidualLabError carrying C++'s message. JS makes no
// pass over the data itself: non-finite values are found by the C++ checks' own sums of squares.
// The forward kernels with one output (rmsNorm, layerNorm, dynamicTanh, softcap, softmax) take a last argument
// `out`, a Float32Array of x's length that receives the result and is returned, so a caller can reuse one array
// across calls. It may be x itself (or alias any input): inputs are copied into the heap before the kernel runs.
import { ResidualLabError } from './errors.js';
import { defaultsOf, fits, resolveOptions } from './options.js';

const ABSENT = -1; // length passed for an omitted optional weight (g, gamma, beta)
// A scratch block larger than this (in floats) is freed after the call, giving its budget back.
const KEEP_SCRATCH_FLOATS = 1 << 18;

// Typed arrays whose elements are numbers; BigInt64Array, BigUint64Array and DataView are not among them.
const NUMERIC_ARRAYS = [
  Float64Array,
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  globalThis.Float16Array,
].filter(Boolean);

const kindOf = (value) =>
  value === null ? 'null' : typeof value !== 'object' ? typeof value : (value.constructor?.name ?? 'object');

/**
 * `value` as a Float32Array: itself, or an Array / numeric typed array converted. Its length is checked against
 * the kernels' limit (maxLength, from C++) before anything is converted or copied.
 */
function asFloat32(value, name, maxLength) {
  if (value instanceof Float32Array && value.length <= maxLength) return value; // the common case, first
  if (value === null || value === undefined) throw new ResidualLabError(`${name} is required (a Float32Array)`);
  const accepted =
    value instanceof Float32Array || Array.isArray(value) || NUMERIC_ARRAYS.some((T) => value instanceof T);
  if (!accepted)
    throw new ResidualLabError(
      `${name} must be a Float32Array, a numeric typed array or an array of numbers (got ${kindOf(value)})`,
    );
  if (value.length > maxLength) {
    throw new ResidualLabError(
      `${name} has ${value.length} values; at most ${maxLength.toLocaleString('en-US')} are supported`,
    );
  }
  if (Array.isArray(value)) {
    // Float32Array.from would turn '1' into 1 and a BigInt into a TypeError
    const i = value.findIndex((v) => typeof v !== 'number');
    if (i >= 0) throw new ResidualLabError(`${name} must hold numbers (${name}[${i}] is a ${kindOf(value[i])})`);
  }
  return Float32Array.from(value);
}

// The UTF-8 bytes of `text` for the C++ parser, with its length (so a NUL is a character, not the end). A lone
// surrogate, which UTF-8 cannot encode, is written as the 3 bytes of its code point, for the parser to name by
// position ("U+D800 (a lone surrogate)") instead of seeing a character that is not in the text.
function encodeText(text) {
  const bytes = new Uint8Array(text.length * 3); // at most 3 bytes per UTF-16 unit (a pair takes 4 for 2)
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (cp < 0x80) bytes[n++] = cp;
    else if (cp < 0x800) {
      bytes[n++] = 0xc0 | (cp >> 6);
      bytes[n++] = 0x80 | (cp & 0x3f);
    } else if (cp < 0x10000) {
      bytes[n++] = 0xe0 | (cp >> 12);
      bytes[n++] = 0x80 | ((cp >> 6) & 0x3f);
      bytes[n++] = 0x80 | (cp & 0x3f);
    } else {
      bytes[n++] = 0xf0 | (cp >> 18);
      bytes[n++] = 0x80 | ((cp >> 12) & 0x3f);
      bytes[n++] = 0x80 | ((cp >> 6) & 0x3f);
      bytes[n++] = 0x80 | (cp & 0x3f);
    }
  }
  return bytes.subarray(0, n);
}

const SCALAR_ROW_TYPES = new Set(['integer', 'number', 'boolean', 'choice']);

/**
 * A reader of kernel `fn`'s options. A plain object whose keys are all rows and whose values all fit is returned
 * as it is (no copy: a kernel reads a missing value's default as it destructures, `{ eps = D.eps }`); anything else
 * goes through resolveOptions, which names the problem or returns the completed copy. The fast read accepts
 * exactly what resolveOptions accepts (C++ checks the numbers again in any case).
 */
function optionsReader(fn, table, defaults) {
  const full = (options) => resolveOptions(table, options, { where: `${fn} options`, code: 'invalid_input' });
  if (!table.every((row) => SCALAR_ROW_TYPES.has(row.type)))
    return (options) => (options === undefined || options === null ? defaults : full(options));
  const rowNamed = Object.create(null);
  for (const row of table) rowNamed[row.name] = row;
  return (options) => {
    if (options === undefined || options === null) return defaults;
    if (typeof options !== 'object' || Object.getPrototypeOf(options) !== Object.prototype) return full(options);
    for (const key in options) {
      const row = rowNamed[key];
      if (row === undefined) return full(options);
      const value = options[key];
      if (value !== undefined && (value === null || !fits(row, value))) return full(options);
    }
    return options;
  };
}

/** The caller's output array: a Float32Array of length d. */
function outputArray(out, d) {
  if (!(out instanceof Float32Array)) throw new ResidualLabError(`out must be a Float32Array (got ${kindOf(out)})`);
  if (out.length !== d)
    throw new ResidualLabError(`out has room for ${out.length} value${out.length === 1 ? '' : 's'} but x has ${d}`);
  return out;
}

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
  let scratchPtr = 0;
  let scratchFloats = 0;

  /**
   * Returns the 16-byte-aligned address of a scratch block of at least `floats` floats. The block is taken from
   * the module's memory budget (rl_scratch_resize), which refuses it with out_of_memory rather than outgrow the heap.
   */
  function reserve(floats) {
    if (floats > scratchFloats) {
      scratchFloats = 0;
      scratchPtr = Module._rl_scratch_resize(Math.max(floats, 1024) * 4 + 16); // malloc aligns to 8; f32x4 loads prefer 16
      if (!scratchPtr) throwLastError();
      scratchFloats = Math.max(floats, 1024);
    }
    return (scratchPtr + 15) & ~15;
  }

  function releaseLargeScratch() {
    if (scratchFloats > KEEP_SCRATCH_FLOATS) {
      Module._rl_scratch_resize(0);
      scratchPtr = 0;
      scratchFloats = 0;
    }
  }

  /**
   * Lays out the arrays (inputs copied in, room for the outputs) in scratch memory and calls `call(inputAddresses, outputAddresses)`.
   * `inputs`: Float32Array or null each (null passes address 0); `outputLengths`: floats per output.
   * Returns the outputs copied out of the heap (slice), so they survive later memory growth.
   */
  function withScratch(inputs, outputLengths, call) {
    const padded = (n) => (n + 3) & ~3; // every array starts 16-byte aligned
    let total = 0;
    for (const a of inputs) total += a ? padded(a.length) : 0;
    for (const n of outputLengths) total += padded(n);
    try {
      return copyInAndCall(reserve(total), inputs, outputLengths, padded, call);
    } finally {
      releaseLargeScratch();
    }
  }

  // The one-output forward kernels lay out four slots of `slot` floats in scratch memory: x, two weights, y. The
  // views on them are kept between calls (making a view costs more than copying four floats) and rebuilt when the
  // scratch block, the lengths or the heap's buffer (grown memory) change.
  const slots = { heap: null, base: 0, d: -1, na: -1, nb: -1, slot: 0, x: null, a: null, b: null, y: null };

  function slotsFor(d, na, nb) {
    const slot = (Math.max(d, na, nb) + 3) & ~3;
    const base = reserve(4 * slot) >> 2;
    const heap = Module.HEAPF32;
    if (heap !== slots.heap || base !== slots.base || d !== slots.d || na !== slots.na || nb !== slots.nb) {
      Object.assign(slots, {
        heap,
        base,
        d,
        na,
        nb,
        slot,
        x: heap.subarray(base, base + d),
        a: heap.subarray(base + slot, base + slot + Math.max(na, 0)),
        b: heap.subarray(base + 2 * slot, base + 2 * slot + Math.max(nb, 0)),
        y: heap.subarray(base + 3 * slot, base + 3 * slot + d),
      });
    }
    return slots;
  }

  // Below 16 floats a loop copies faster than TypedArray.prototype.set, which has a fixed cost of its own.
  function copy(to, from) {
    const n = from.length;
    if (n < 16) for (let i = 0; i < n; i++) to[i] = from[i];
    else to.set(from);
  }

  /** Checks `out`, copies x and the weights a, b (each may be null) into their slots; returns the slots. */
  function stage(x, a, b, out) {
    if (out !== undefined && out !== null) outputArray(out, x.length);
    const s = slotsFor(x.length, a ? a.length : 0, b ? b.length : 0);
    copy(s.x, x);
    if (a) copy(s.a, a);
    if (b) copy(s.b, b);
    return s;
  }

  /** After the kernel call: its status checked, y copied into `out` (when given) or into a new array. */
  function finish(status, out) {
    try {
      if (status !== 0) throwLastError();
      const s = Module.HEAPF32 === slots.heap ? slots : slotsFor(slots.d, slots.na, slots.nb); // the call may have grown memory
      const y = out ?? new Float32Array(s.d);
      copy(y, s.y);
      return y;
    } finally {
      releaseLargeScratch();
    }
  }

  function copyInAndCall(base, inputs, outputLengths, padded, call) {
    const heap = Module.HEAPF32;
    let offset = base >> 2;
    const inPtrs = inputs.map((a) => {
      if (!a) return 0;
      const ptr = offset << 2;
      heap.set(a, offset);
      offset += padded(a.length);
      return ptr;
    });
    const outPtrs = outputLengths.map((n) => {
      const ptr = offset << 2;
      offset += padded(n); // the C++ API writes every output element (its backwards zero before accumulating)
      return ptr;
    });
    const status = call(inPtrs, outPtrs);
    if (status !== 0) throwLastError();
    const view = Module.HEAPF32; // re-read: the call may have grown memory
    return outPtrs.map((ptr, i) => view.slice(ptr >> 2, (ptr >> 2) + outputLengths[i]));
  }

  function throwLastError() {
    const message = Module.UTF8ToString(Module._rl_error_message());
    const code = Module.UTF8ToString(Module._rl_error_code());
    const position = Module._rl_error_position();
    throw new ResidualLabError(message, { code, position: position >= 0 ? position : undefined });
  }

  const len = (a) => (a ? a.length : ABSENT);

  // The slots' byte addresses: x at 4 base, the weights at 4 (base + slot) and 4 (base + 2 slot), y at 4 (base + 3 slot).
  const at = (s, k) => (s.base + k * s.slot) << 2;

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
