// The WASM heap memory the norm kernels work in: one reusable scratch block, taken from the module's memory budget
// and given back when large, the arrays copied in and the outputs copied out, and a failed call's status turned
// into a ResidualLabError carrying C++'s message (wasm/bindings/kernel_exports.cpp).
import { ResidualLabError } from './errors.js';
import { outputArray } from './kernel-inputs.js';

// A steps export's status when only the division was refused: the steps before it are written (kernel_exports.cpp).
const PARTIAL_STEPS = 2;
// A scratch block larger than this (in floats) is freed after the call, giving its budget back.
const KEEP_SCRATCH_FLOATS = 1 << 18;

/** The scratch memory of `Module` (an instance of the kernels' WASM module) and the calls that use it. */
export function createScratch(Module) {
  let scratchPtr = 0;
  let scratchFloats = 0;
  const throwLastError = (partial) => {
    throw lastError(Module, partial);
  };

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
    let total = 0;
    for (const a of inputs) total += a ? padded(a.length) : 0;
    for (const n of outputLengths) total += padded(n);
    try {
      return copyInAndCall(Module, reserve(total), inputs, outputLengths, call);
    } finally {
      releaseLargeScratch();
    }
  }

  const withForwardSlots = forwardSlots(Module, reserve, releaseLargeScratch);
  return { reserve, releaseLargeScratch, withScratch, withForwardSlots, throwLastError };
}

const padded = (n) => (n + 3) & ~3; // every array starts 16-byte aligned

/**
 * Copies `inputs` into the heap from byte address `base` on, leaves room for the outputs after them, calls
 * `call(inputAddresses, outputAddresses)` and returns the outputs copied out (or throws the call's error).
 */
function copyInAndCall(Module, base, inputs, outputLengths, call) {
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
  const outputs = () => {
    const view = Module.HEAPF32; // re-read: the call may have grown memory
    return outPtrs.map((ptr, i) => view.slice(ptr >> 2, (ptr >> 2) + outputLengths[i]));
  };
  if (status === PARTIAL_STEPS) throw lastError(Module, outputs());
  if (status !== 0) throw lastError(Module);
  return outputs();
}

/** The error the module recorded, as a ResidualLabError; `partial`: the outputs a steps export wrote before the step it refused. */
function lastError(Module, partial) {
  const message = Module.UTF8ToString(Module._rl_error_message());
  const code = Module.UTF8ToString(Module._rl_error_code());
  const position = Module._rl_error_position();
  const error = new ResidualLabError(message, { code, position: position >= 0 ? position : undefined });
  const kind = Module.UTF8ToString(Module._rl_error_reason_kind());
  if (kind) {
    const value = Module._rl_error_reason_value();
    const limit = Module._rl_error_reason_limit();
    error.reason = { kind, ...(!Number.isNaN(value) && { value }), ...(!Number.isNaN(limit) && { limit }) };
  }
  if (partial) error.partial = partial;
  return error;
}

// Below 16 floats a loop copies faster than TypedArray.prototype.set, which has a fixed cost of its own.
function copy(to, from) {
  const n = from.length;
  if (n < 16) for (let i = 0; i < n; i++) to[i] = from[i];
  else to.set(from);
}

/**
 * The one-output forward kernels' calls: `withForwardSlots(x, a, b, out, call)` checks `out`, copies x and the
 * weights a, b (each may be null) into four slots of `slot` floats in scratch memory (x, a, b, y), gives
 * `call(y, x, a, b)` their addresses (0 for an absent weight), and returns y copied into `out` (when given) or into
 * a new array. The views on the slots are kept between calls (making a view costs more than copying four floats)
 * and rebuilt when the scratch block, the lengths or the heap's buffer (grown memory) change.
 */
function forwardSlots(Module, reserve, releaseLargeScratch) {
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
      if (status !== 0) throw lastError(Module);
      const s = Module.HEAPF32 === slots.heap ? slots : slotsFor(slots.d, slots.na, slots.nb); // the call may have grown memory
      const y = out ?? new Float32Array(s.d);
      copy(y, s.y);
      return y;
    } finally {
      releaseLargeScratch();
    }
  }

  // The slots' byte addresses: x at 4 base, the weights at 4 (base + slot) and 4 (base + 2 slot), y at 4 (base + 3 slot).
  const at = (s, k) => (s.base + k * s.slot) << 2;

  return function withForwardSlots(x, a, b, out, call) {
    const s = stage(x, a, b, out);
    return finish(call(at(s, 3), at(s, 0), a ? at(s, 1) : 0, b ? at(s, 2) : 0), out);
  };
}
