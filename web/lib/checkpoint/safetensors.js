// Strict reading of the safetensors format (github.com/huggingface/safetensors, "Format"):
//   8 bytes   N, the header's length, an unsigned little-endian 64-bit integer
//   N bytes   a UTF-8 JSON object: name -> { dtype, shape, data_offsets: [begin, end] }, and optionally
//             "__metadata__": { string: string }
//   the rest  the tensors' bytes; offsets are relative to the start of this part
// As the reference parser does, the header is bounded, its tensors' byte ranges must tile the data exactly
// (sorted by offset: contiguous from 0, no overlap, no gap, ending at the file's end), and each range's length is
// the shape's element count times the dtype's size. Every refusal is a ResidualLabError with its own code; no
// byte outside the given buffer is read.
import { ResidualLabError } from '../errors.js';

export const MAX_HEADER_BYTES = 100_000_000; // the reference implementation's limit
// Bytes per element of the dtypes the format defines (the lab runs F32, F16 and BF16: checkpoint/layout.hpp's dtypes).
export const DTYPE_BYTES = Object.freeze({
  BOOL: 1,
  U8: 1,
  I8: 1,
  F8_E5M2: 1,
  F8_E4M3: 1,
  I16: 2,
  U16: 2,
  F16: 2,
  BF16: 2,
  I32: 4,
  U32: 4,
  F32: 4,
  I64: 8,
  U64: 8,
  F64: 8,
});

const fail = (code, file, message) => new ResidualLabError(`${file}: ${message}`, { code });

/**
 * The header of a safetensors file read where it lies: `source` is { size, read(begin, end) -> Promise<Uint8Array> }
 * (files.js). Reads the first 8 bytes and the header, nothing of the tensors. Returns { tensors, metadata,
 * headerBytes } (the file's first 8 + N bytes, kept to notice a file replaced after opening); each tensor has
 * `offset` (its first byte in the file) and `byteLength`, no bytes.
 */
export async function readSafetensorsHeader(source, file = 'model.safetensors') {
  const n = headerLength(await source.read(0, Math.min(8, source.size)), source.size, file);
  const headerBytes = await source.read(0, 8 + n);
  return { ...parseHeader(headerBytes.subarray(8), source.size, file), headerBytes };
}

/** N from the file's first 8 bytes (`first8`), checked against the file's `size`. */
function headerLength(first8, size, file) {
  if (size < 8 || first8.length < 8)
    throw fail('safetensors_truncated', file, `the file has ${size} bytes, fewer than the 8 of the header's length`);
  const value = new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true);
  if (value > BigInt(MAX_HEADER_BYTES)) {
    throw fail(
      'safetensors_header_too_large',
      file,
      `the header says it is ${value} bytes long; at most ${MAX_HEADER_BYTES} is read (is this a safetensors file?)`,
    );
  }
  const n = Number(value);
  if (8 + n > size)
    throw fail('safetensors_truncated', file, `the header needs ${n} bytes but the file ends after ${size - 8}`);
  return n;
}

/** The tensors the JSON header `json` (N bytes) describes, checked to tile the `size`-byte file's data exactly. */
function parseHeader(json, size, file) {
  const n = json.length;
  if (n < 2 || json[0] !== 0x7b)
    throw fail('not_safetensors', file, 'the header is not a JSON object (it must start with "{")');
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
  } catch (error) {
    throw fail('not_safetensors', file, `the header is not valid UTF-8 JSON (${error.message})`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header))
    throw fail('not_safetensors', file, 'the header is not a JSON object');
  const dataStart = 8 + n;
  const dataLength = size - dataStart;
  const tensors = [];
  let metadata = null;
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      if (
        entry === null ||
        typeof entry !== 'object' ||
        Array.isArray(entry) ||
        Object.values(entry).some((v) => typeof v !== 'string')
      ) {
        throw fail('safetensors_bad_tensor', file, '__metadata__ must map strings to strings');
      }
      metadata = { ...entry };
      continue;
    }
    tensors.push(readEntry(name, entry, file));
  }
  // The byte ranges, sorted, must tile [0, dataLength) exactly.
  tensors.sort((a, b) => a.begin - b.begin || a.end - b.end);
  const described = dataStart + tensors.reduce((most, t) => Math.max(most, t.end), 0); // the file's length by its header
  let expected = 0;
  for (const t of tensors) {
    if (t.begin !== expected) {
      throw fail(
        'safetensors_bad_offsets',
        file,
        t.begin < expected
          ? `${t.name} starts at byte ${t.begin}, inside the tensor before it (which ends at ${expected})`
          : `${t.name} starts at byte ${t.begin}, leaving a gap after byte ${expected}`,
      );
    }
    if (t.end > dataLength)
      throw Object.assign(
        fail(
          'safetensors_truncated',
          file,
          `${t.name} ends at data byte ${t.end}, past the file's ${dataLength} data bytes`,
        ),
        { described, size },
      );
    expected = t.end;
  }
  if (expected !== dataLength)
    throw fail(
      'safetensors_bad_offsets',
      file,
      `the tensors end at data byte ${expected} but the file has ${dataLength} data bytes`,
    );
  const map = new Map();
  for (const t of tensors)
    map.set(t.name, Object.freeze({ ...t, file, offset: dataStart + t.begin, byteLength: t.end - t.begin }));
  return { tensors: map, metadata };
}

function readEntry(name, entry, file) {
  const bad = (what) => fail('safetensors_bad_tensor', file, `tensor ${JSON.stringify(name)}: ${what}`);
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw bad('its entry is not an object');
  const { dtype, shape, data_offsets: offsets } = entry;
  if (typeof dtype !== 'string' || !Object.hasOwn(DTYPE_BYTES, dtype))
    throw bad(`unknown dtype ${JSON.stringify(dtype)}`);
  if (!Array.isArray(shape) || shape.some((s) => !Number.isSafeInteger(s) || s < 0))
    throw bad(`the shape ${JSON.stringify(shape)} is not a list of sizes`);
  if (!Array.isArray(offsets) || offsets.length !== 2 || offsets.some((o) => !Number.isSafeInteger(o) || o < 0)) {
    throw fail(
      'safetensors_bad_offsets',
      file,
      `tensor ${JSON.stringify(name)}: data_offsets ${JSON.stringify(offsets)} is not [begin, end]`,
    );
  }
  const [begin, end] = offsets;
  if (end < begin)
    throw fail(
      'safetensors_bad_offsets',
      file,
      `tensor ${JSON.stringify(name)} ends (${end}) before it begins (${begin})`,
    );
  let count = 1;
  for (const s of shape) {
    count *= s;
    if (!Number.isSafeInteger(count)) throw bad('its element count overflows');
  }
  if (count * DTYPE_BYTES[dtype] !== end - begin) {
    throw bad(
      `${count} elements of ${dtype} take ${count * DTYPE_BYTES[dtype]} bytes, its data_offsets give ${end - begin}`,
    );
  }
  return { name, dtype, shape: Object.freeze([...shape]), begin, end };
}
