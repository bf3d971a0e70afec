// GGUF's header, as llama.cpp writes it (ggml/src/gguf.cpp, gguf-py/gguf/gguf_writer.py), little-endian:
//   "GGUF", version u32 (2 or 3), tensor count u64, key/value count u64
//   key/values: key (string), value type u32, value      string: length u64, UTF-8 bytes
//     types 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool, 8 string, 9 array (type u32, count u64,
//     items), 10 u64, 11 i64, 12 f64
//   tensor infos: name, dimension count u32, dimensions u64 (innermost first: a PyTorch [out, in] is [in, out]),
//     type u32, offset u64 (from the data section's start, a multiple of general.alignment, default 32)
//   the data section, at the header's end rounded up to the alignment
// Every refusal is a ResidualLabError with a code of its own; nothing here reads tensor data.
import { ResidualLabError } from '../errors.js';
import { GGUF_TYPES, REFUSED_TYPES } from './gguf-types.js';

export const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
const FIRST_READ = 1 << 20;
export const MAX_GGUF_HEADER_BYTES = 512 << 20; // a tokenizer's vocabulary and merges are some megabytes
const MAX_DIMS = 4; // GGML_MAX_DIMS
const MIN_TENSOR_INFO_BYTES = 8 + 4 + 8 + 4 + 8; // an empty name, one dimension, type, offset

const fail = (code, file, message) => new ResidualLabError(`${file}: ${message}`, { code });

// Thrown by the parser when the bytes read so far end before the header does.
class NeedMore {
  constructor(bytes) {
    this.bytes = bytes;
  }
}

/**
 * Reads a GGUF file's header from `source` (files.js weightSource). Returns { version, kv: Map(key -> value),
 * kvTypes: Map(key -> type name), alignment, dataOffset, tensors: Map(name -> { name, dtype, type, shape (PyTorch
 * order), offset (absolute), byteLength, file }), headerBytes }.
 */
export async function readGgufHeader(source, file = source.name) {
  let length = Math.min(source.size, FIRST_READ);
  for (;;) {
    const bytes = await source.read(0, length);
    try {
      return parseGgufHeader(bytes, source.size, file);
    } catch (error) {
      if (!(error instanceof NeedMore)) throw error;
      if (length >= source.size)
        throw fail('truncated_header', file, `the file ends at byte ${source.size}, inside its header`);
      if (length >= MAX_GGUF_HEADER_BYTES)
        throw fail('header_too_long', file, `the header is longer than ${MAX_GGUF_HEADER_BYTES} bytes`);
      length = Math.min(source.size, MAX_GGUF_HEADER_BYTES, Math.max(2 * length, error.bytes));
    }
  }
}

const VALUE_TYPES = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'f32', 'bool', 'string', 'array', 'u64', 'i64', 'f64'];

/** The header in `bytes` (the file's first bytes; fileSize: the whole file's). Throws NeedMore if it goes on. */
export function parseGgufHeader(bytes, fileSize, file) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let at = 0;
  const need = (n) => {
    if (at + n > bytes.length) {
      if (at + n > fileSize)
        throw fail('truncated_header', file, `the file ends at byte ${fileSize}, inside its header`);
      throw new NeedMore(at + n);
    }
  };
  const u32 = () => (need(4), (at += 4), view.getUint32(at - 4, true));
  const u64 = () => {
    need(8);
    at += 8;
    const v = view.getBigUint64(at - 8, true);
    return v > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(v);
  };
  const string = (what) => {
    const n = u64();
    if (n > fileSize - at) throw fail('invalid_gguf', file, `${what} is ${n} bytes long, past the end of the file`);
    need(n);
    at += n;
    try {
      return utf8.decode(bytes.subarray(at - n, at));
    } catch {
      throw fail('invalid_gguf', file, `${what} is not UTF-8 text`);
    }
  };
  const scalar = (type, what) => {
    switch (type) {
      case 0:
        return (need(1), (at += 1), view.getUint8(at - 1));
      case 1:
        return (need(1), (at += 1), view.getInt8(at - 1));
      case 2:
        return (need(2), (at += 2), view.getUint16(at - 2, true));
      case 3:
        return (need(2), (at += 2), view.getInt16(at - 2, true));
      case 4:
        return u32();
      case 5:
        return (need(4), (at += 4), view.getInt32(at - 4, true));
      case 6:
        return (need(4), (at += 4), view.getFloat32(at - 4, true));
      case 7:
        return (need(1), (at += 1), view.getUint8(at - 1) !== 0);
      case 8:
        return string(what);
      case 10:
        return u64();
      case 11:
        return (need(8), (at += 8), Number(view.getBigInt64(at - 8, true)));
      case 12:
        return (need(8), (at += 8), view.getFloat64(at - 8, true));
      default:
        throw fail('invalid_gguf', file, `${what} has value type ${type}, which GGUF does not define`);
    }
  };

  need(4);
  if (view.getUint32(0, true) !== GGUF_MAGIC) throw fail('invalid_gguf', file, 'does not start with "GGUF"');
  at = 4;
  const version = u32();
  if (version !== 2 && version !== 3)
    throw fail('invalid_gguf', file, `GGUF version ${version} is not read (versions 2 and 3 are)`);
  const tensorCount = u64(),
    kvCount = u64();
  if (tensorCount * MIN_TENSOR_INFO_BYTES > fileSize)
    throw fail(
      'invalid_tensor_count',
      file,
      `the header counts ${tensorCount} tensors, more than the file can describe`,
    );
  if (kvCount * 12 > fileSize)
    throw fail('invalid_gguf', file, `the header counts ${kvCount} key/values, more than the file can hold`);

  const kv = new Map(),
    kvTypes = new Map();
  for (let i = 0; i < kvCount; i++) {
    const key = string(`key ${i}`);
    const type = u32();
    if (type === 9) {
      const itemType = u32(),
        count = u64();
      if (itemType === 9) throw fail('invalid_gguf', file, `${key} is an array of arrays, which the lab does not read`);
      if (count > fileSize - at)
        throw fail('invalid_gguf', file, `${key} counts ${count} items, past the end of the file`);
      const items = new Array(count);
      for (let j = 0; j < count; j++) items[j] = scalar(itemType, `${key}[${j}]`);
      kv.set(key, items);
      kvTypes.set(key, `array of ${VALUE_TYPES[itemType] ?? itemType}`);
    } else {
      kv.set(key, scalar(type, key));
      kvTypes.set(key, VALUE_TYPES[type]);
    }
  }
  const alignment = kv.get('general.alignment') ?? 32;
  if (kvTypes.has('general.alignment') && kvTypes.get('general.alignment') !== 'u32')
    throw fail('invalid_gguf_key', file, `general.alignment is a ${kvTypes.get('general.alignment')}, must be a u32`);
  if (!(alignment > 0) || (alignment & (alignment - 1)) !== 0)
    throw fail('misaligned_tensor', file, `general.alignment ${alignment} is not a power of two`);

  const infos = readTensorInfos({ string, u32, u64 }, tensorCount, file);
  const dataOffset = Math.ceil(at / alignment) * alignment;
  // writers pad the header to the alignment with zeros: anything else there is a tensor info the count left out
  need(dataOffset - at);
  if (bytes.subarray(at, dataOffset).some((b) => b !== 0))
    throw fail(
      'invalid_tensor_count',
      file,
      `bytes follow the ${tensorCount} tensor infos the header counts where padding should be; the count is wrong`,
    );
  const tensors = checkTensors(infos, { dataOffset, alignment, fileSize, file });
  return { version, kv, kvTypes, alignment, dataOffset, tensors, headerBytes: bytes.slice(0, Math.min(at, 1 << 16)) };
}

/** The tensor infos checked against the file (known type, whole blocks, aligned, inside it): name -> tensor. */
function checkTensors(infos, { dataOffset, alignment, fileSize, file }) {
  const tensors = new Map();
  for (const { name, shape, type, offset } of infos) {
    if (tensors.has(name)) throw fail('invalid_gguf', file, `${name} is listed twice`);
    const layout = GGUF_TYPES[type];
    if (!layout) {
      const known = REFUSED_TYPES[type];
      throw fail(
        'unsupported_dtype',
        file,
        `${name} is ${known ?? `of type ${type}, which GGUF does not define`}; the lab reads ${Object.values(GGUF_TYPES)
          .map((t) => t.name)
          .join(', ')}`,
      );
    }
    if (shape.some((s) => !Number.isSafeInteger(s) || s < 0))
      throw fail('invalid_gguf', file, `${name} has shape [${shape}]`);
    const inner = shape[shape.length - 1];
    if (inner % layout.blockValues !== 0)
      throw fail(
        'invalid_gguf',
        file,
        `${name}'s rows of ${inner} are not whole ${layout.name} blocks of ${layout.blockValues}`,
      );
    if (offset % alignment !== 0)
      throw fail(
        'misaligned_tensor',
        file,
        `${name} starts at data offset ${offset}, not a multiple of the alignment ${alignment}`,
      );
    const count = shape.reduce((a, b) => a * b, 1);
    const byteLength = (count / layout.blockValues) * layout.blockBytes;
    const begin = dataOffset + offset;
    if (begin > fileSize)
      throw fail(
        'offset_out_of_file',
        file,
        `${name} starts at byte ${begin}, past the end of the file (${fileSize} bytes)`,
      );
    if (begin + byteLength > fileSize)
      throw fail(
        'truncated_tensor',
        file,
        `${name} needs bytes ${begin}-${begin + byteLength}, the file ends at ${fileSize}`,
      );
    tensors.set(name, { name, dtype: layout.name, type, shape: Object.freeze(shape), offset: begin, byteLength, file });
  }
  return tensors;
}

/** The header's tensor infos, { name, shape (outermost first), type, offset }, read by the header's reader. */
function readTensorInfos({ string, u32, u64 }, tensorCount, file) {
  const infos = [];
  for (let i = 0; i < tensorCount; i++) {
    try {
      const name = string(`tensor ${i}'s name`);
      const dims = u32();
      if (dims < 1 || dims > MAX_DIMS) throw new Error(`${dims} dimensions`);
      const shape = [];
      for (let k = 0; k < dims; k++) shape.push(u64());
      const type = u32();
      const offset = u64();
      infos.push({ name, shape: shape.reverse(), type, offset });
    } catch (error) {
      if (error instanceof NeedMore) throw error;
      throw fail(
        'invalid_tensor_count',
        file,
        `tensor info ${i} of the ${tensorCount} the header counts is not a tensor info (${error.message}); the count is wrong or the header damaged`,
      );
    }
  }
  return infos;
}
