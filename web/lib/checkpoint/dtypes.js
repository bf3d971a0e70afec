// Reading and writing the three float formats a checkpoint may hold, in JS, for small tensors (norm weights)
// and test fixtures; the forward converts the large ones in C++ (checkpoint::to_f32).

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

/** `values` written as `dtype` (rounded to nearest, ties to even). */
export function encodeFloats(dtype, values) {
  const size = dtype === 'F32' ? 4 : 2;
  const out = new Uint8Array(values.length * size);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) {
    if (dtype === 'F32') view.setFloat32(4 * i, values[i], true);
    else if (dtype === 'BF16') view.setUint16(2 * i, floatToBf16(values[i]), true);
    else view.setUint16(2 * i, floatToF16(values[i]), true);
  }
  return out;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function bf16ToFloat(h) {
  u32[0] = h << 16;
  return f32[0];
}

export function floatToBf16(x) {
  f32[0] = x;
  const bits = u32[0];
  if ((bits & 0x7fffffff) > 0x7f800000) return (bits >>> 16) | 0x40;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

export function f16ToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f,
    mantissa = h & 0x3ff;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

// The nearest binary16 (10-bit mantissa, ties to even); subnormals below 2^-14, infinity from 65520 (the first
// value that rounds past the largest, 65504).
export function floatToF16(x) {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (Number.isNaN(x)) return 0x7e00;
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | roundEven(a / 2 ** -24); // subnormal (may round up into the first normal)
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  if (2 ** (e + 1) <= a) e += 1;
  let m = roundEven((a / 2 ** e - 1) * 1024);
  if (m === 1024) {
    m = 0;
    e += 1;
  }
  return sign | ((e + 15) << 10) | m;
}

function roundEven(v) {
  const floor = Math.floor(v),
    rest = v - floor;
  if (rest > 0.5) return floor + 1;
  if (rest < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}
