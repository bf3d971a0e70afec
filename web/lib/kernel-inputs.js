// What a caller passes to the norm kernels, checked and made ready for the WASM heap: vectors as Float32Arrays,
// text as UTF-8 bytes, options read against the kernels' option tables, and the caller's output array. Each
// refusal is a ResidualLabError naming the argument.
import { ResidualLabError } from './errors.js';
import { fits, resolveOptions } from './options.js';

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
export function asFloat32(value, name, maxLength) {
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
export function encodeText(text) {
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
export function optionsReader(fn, table, defaults) {
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
export function outputArray(out, d) {
  if (!(out instanceof Float32Array)) throw new ResidualLabError(`out must be a Float32Array (got ${kindOf(out)})`);
  if (out.length !== d)
    throw new ResidualLabError(`out has room for ${out.length} value${out.length === 1 ? '' : 's'} but x has ${d}`);
  return out;
}
