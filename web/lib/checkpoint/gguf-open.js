// openCheckpoint's GGUF path: one .gguf, or the split set NAME-0000i-of-0000N.gguf, read into what open.js checks
// and runs (gguf.js reads the headers, gguf-model.js maps them onto the lab's families, gguf-tokenizer.js builds
// the tokenizer). The key/values come from the first split; the tensors from all of them, where they lie.
import { ResidualLabError } from '../errors.js';
import { weightSource } from './files.js';
import { readGgufHeader } from './gguf.js';
import { ggufArch, ggufConfig, ggufTensors, permutedSource, GGUF_ARCHES } from './gguf-model.js';
import { ggufTokenizerJson } from './gguf-tokenizer.js';
import { byteSize, decodeFloats } from './dtypes.js';

const bad = (code, message) => new ResidualLabError(message, { code });
const SPLIT = /-(\d{5})-of-(\d{5})\.gguf$/;
const FLOAT_DTYPES = new Set(['F32', 'F16', 'BF16']);

/** Whether the files given are a GGUF checkpoint. */
export const isGguf = (map) => [...map.keys()].some((name) => name.endsWith('.gguf'));

/**
 * { config (a config.json object), tensors: Map(HF name -> tensor with its source), tokenizerJson | null,
 *   arch, ropeFreqs: Float32Array | null, normStoredOffset }; `weightFiles` receives each file opened.
 */
export async function readGguf(map, weightFiles) {
  const names = [...map.keys()].filter((name) => name.endsWith('.gguf')).sort();
  const split = names.map((name) => SPLIT.exec(name));
  if (names.length > 1 && split.some((m) => !m))
    throw bad(
      'invalid_input',
      `give one .gguf file, or every file of a split set (-00001-of-0000N.gguf): ${names.join(', ')}`,
    );
  if (split[0]) {
    const count = Number(split[0][2]);
    const have = new Set(split.map((m) => Number(m[1])));
    const absent = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !have.has(i));
    if (absent.length)
      throw bad(
        'missing_shard',
        `${absent.map((i) => names[0].replace(SPLIT, `-${String(i).padStart(5, '0')}-of-${split[0][2]}.gguf`)).join(', ')} of the split set ${absent.length > 1 ? 'are' : 'is'} missing`,
      );
  }
  const headers = [];
  for (const name of names) {
    const source = await weightSource(map.get(name), name);
    const file = { source, headerBytes: null };
    weightFiles.push(file);
    const header = await readGgufHeader(source, name);
    file.headerBytes = header.headerBytes;
    headers.push({ name, source, header });
  }
  const first = headers[0].header;
  const all = new Map();
  for (const { name, source, header } of headers)
    for (const [key, t] of header.tensors) {
      if (all.has(key)) throw bad('invalid_gguf', `${key} is in both ${all.get(key).file} and ${name}`);
      all.set(key, { ...t, source });
    }
  if (first.kv.has('split.tensors.count') && first.kv.get('split.tensors.count') !== all.size)
    throw bad(
      'invalid_tensor_count',
      `the split set should hold ${first.kv.get('split.tensors.count')} tensors, its files hold ${all.size}`,
    );

  const arch = ggufArch(first);
  const config = ggufConfig(first, all);
  const tensors = ggufTensors(first, all);
  for (const t of tensors.values()) {
    if (
      !FLOAT_DTYPES.has(t.dtype) &&
      !/\.(q_proj|k_proj|v_proj|o_proj|gate_proj|up_proj|down_proj)\.weight$|embed_tokens|lm_head/.test(t.name)
    )
      throw bad(
        'unsupported_dtype',
        `${t.ggufName} is ${t.dtype}; the lab reads norm weights and biases as F32, F16 or BF16`,
      );
  }
  if (GGUF_ARCHES[arch].permuted) {
    const headDim = config.head_dim;
    for (const proj of ['q_proj', 'k_proj']) {
      for (const [name, t] of tensors) {
        if (!name.endsWith(`${proj}.weight`)) continue;
        if (t.shape[0] % headDim !== 0)
          throw bad('shape_mismatch', `${t.ggufName} has ${t.shape[0]} rows, not whole heads of ${headDim}`);
        tensors.set(name, { ...t, source: permutedSource(t.source, t.offset, byteSize(t.dtype, t.shape[1]), headDim) });
      }
    }
  }
  let ropeFreqs = null;
  const rope = all.get('rope_freqs.weight');
  if (rope) {
    if (!FLOAT_DTYPES.has(rope.dtype) || rope.shape.length !== 1 || rope.shape[0] !== config.head_dim / 2)
      throw bad(
        'shape_mismatch',
        `rope_freqs.weight must be ${config.head_dim / 2} floats, is ${rope.dtype} [${rope.shape}]`,
      );
    ropeFreqs = decodeFloats(rope.dtype, await rope.source.read(rope.offset, rope.offset + rope.byteLength));
  }
  return {
    arch,
    config,
    tensors,
    tokenizerJson: ggufTokenizerJson(first),
    ropeFreqs,
    normStoredOffset: GGUF_ARCHES[arch].normPlusOne ? 1 : 0,
  };
}

/** Applies what a GGUF changes in describeModel's model: rope_freqs, and norms stored with the + 1. */
export function adjustModel(model, { ropeFreqs, normStoredOffset }) {
  if (ropeFreqs) {
    const scaled = new Map();
    for (const layer of model.layers) {
      if (!scaled.has(layer.invFreq))
        scaled.set(
          layer.invFreq,
          layer.invFreq.map((v, i) => v / ropeFreqs[i]),
        );
      layer.invFreq = scaled.get(layer.invFreq);
    }
  }
  if (normStoredOffset) {
    model.forward.normOffset -= normStoredOffset;
    model.forward.storedNormOffset = normStoredOffset;
    model.spec.norm_offset = model.forward.normOffset;
  }
}
