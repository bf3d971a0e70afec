// Reading the three float formats a checkpoint may hold, in JS, for small tensors (norm weights); the forward
// converts the large ones in C++ (checkpoint::to_f32), GGUF's block-quantized types included. The test fixtures'
// writers are tests/fixtures/checkpoints/write-safetensors.mjs and write-gguf.mjs.
import { DTYPE_LAYOUTS } from './gguf-types.js';

/** Bytes of n values of `dtype` (n a multiple of its block). */
export const byteSize = (dtype, n) => (n / DTYPE_LAYOUTS[dtype].blockValues) * DTYPE_LAYOUTS[dtype].blockBytes;

/** Values in `bytes` bytes of `dtype`. */
export const valueCount = (dtype, bytes) =>
  (bytes / DTYPE_LAYOUTS[dtype].blockBytes) * DTYPE_LAYOUTS[dtype].blockValues;

/** The values of `bytes` (little-endian F32, F16 or BF16) as a Float32Array. */
export function decodeFloats(dtype, bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = dtype === 'F32' ? 4 : 2;
  const out = new Float32Array(bytes.byteLength / size);
  for (let i = 0; i < out.length; i++) {
    if (dtype === 'F32') out[i] = view.getFloat32(4 * i, true);
    else if (dtype === 'BF16') out[i] = bf16ToFloat(view.getUint16(2 * i, true));
    else out[i] = f16ToFloat(view.getUint16(2 * i, true));
  }
  return out;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function bf16ToFloat(h) {
  u32[0] = h << 16;
  return f32[0];
}

export function f16ToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f,
    mantissa = h & 0x3ff;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}
