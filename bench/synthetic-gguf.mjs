// GGUF files with real models' exact shapes for the benches, as llama.cpp's quantizer types them
// (llama_tensor_get_type in src/llama-quant.cpp): random weights (the same N(0, 0.02)-like values as
// synthetic-checkpoints.mjs, quantized once per type and tiled), norm weights 1, biases 0; written once to the
// bench cache and reused.
//   qwen2.5-0.5b-q8_0     every matrix Q8_0 (about 0.5 GB)
//   qwen2.5-0.5b-q4_k_m   Q4_K_M: Q4_K, and Q6_K for attn_v and ffn_down on use_more_bits layers and for the
//                         (tied) embedding; rows of 896 are not whole 256-value blocks, so those fall back as
//                         llama.cpp's do: Q4_K -> Q5_0, Q6_K -> Q8_0 (only ffn_down, rows of 4864, stays K-quant)
//   llama-3.1-8b-q4_k_m   Q4_K_M of Llama-3.1-8B's shapes, output.weight Q6_K, rope_freqs (about 4.9 GB)
import { closeSync, existsSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SHAPES, shapeDir } from './synthetic-checkpoints.mjs';
import { llama3RopeFactors, quantize, writeGguf } from '../tests/fixtures/checkpoints/write-gguf.mjs';
import { DTYPE_LAYOUTS } from '../web/lib/checkpoint/gguf-types.js';
import { BYTE_ALPHABET } from '../web/components/checkpoint-probe/compute.js';
import { encodeFloats } from '../tests/fixtures/checkpoints/write-safetensors.mjs';

export const GGUF_SHAPES = {
  'qwen2.5-0.5b-q8_0': { base: 'qwen2.5-0.5b', arch: 'qwen2', ftype: 'Q8_0' },
  'qwen2.5-0.5b-q4_k_m': { base: 'qwen2.5-0.5b', arch: 'qwen2', ftype: 'Q4_K_M' },
  'llama-3.1-8b-q4_k_m': { base: 'llama-3.1-8b', arch: 'llama', ftype: 'Q4_K_M' },
};

// llama.cpp's use_more_bits: the first and last eighth of the layers and every third in between
const moreBits = (i, n) => i < Math.floor(n / 8) || i >= Math.floor((7 * n) / 8) || (i - Math.floor(n / 8)) % 3 === 2;
const FALLBACK = { Q4_K: 'Q5_0', Q5_K: 'Q5_1', Q6_K: 'Q8_0' }; // a row not whole 256-value blocks

/** The type llama.cpp's quantizer gives tensor `name` (GGUF name) with rows of `cols` values. */
export function quantType(ftype, name, cols, layers, tied) {
  let type;
  const layer = Number(/^blk\.(\d+)\./.exec(name)?.[1] ?? -1);
  if (ftype === 'Q8_0') type = 'Q8_0';
  else if (name === 'output.weight' || (tied && name === 'token_embd.weight')) type = 'Q6_K';
  else if (/attn_v\.weight$|ffn_down\.weight$/.test(name)) type = moreBits(layer, layers) ? 'Q6_K' : 'Q4_K';
  else type = 'Q4_K';
  return cols % DTYPE_LAYOUTS[type].blockValues === 0 ? type : FALLBACK[type];
}

function tensorList(key) {
  const { base, arch, ftype } = GGUF_SHAPES[key];
  const c = SHAPES[base].config;
  const {
    hidden_size: d,
    num_attention_heads: H,
    num_key_value_heads: KV,
    intermediate_size: F,
    num_hidden_layers: L,
  } = c;
  const hd = d / H,
    tied = c.tie_word_embeddings ?? false;
  const list = [];
  const add = (name, shape, type) =>
    list.push({ name, shape, dtype: type ?? quantType(ftype, name, shape.at(-1), L, tied) });
  add('token_embd.weight', [c.vocab_size, d]);
  for (let i = 0; i < L; i++) {
    const p = `blk.${i}.`;
    add(`${p}attn_norm.weight`, [d], 'F32');
    add(`${p}ffn_norm.weight`, [d], 'F32');
    add(`${p}attn_q.weight`, [H * hd, d]);
    add(`${p}attn_k.weight`, [KV * hd, d]);
    add(`${p}attn_v.weight`, [KV * hd, d]);
    if (SHAPES[base].biases)
      for (const [n, size] of [
        ['q', H * hd],
        ['k', KV * hd],
        ['v', KV * hd],
      ])
        add(`${p}attn_${n}.bias`, [size], 'F32');
    add(`${p}attn_output.weight`, [d, H * hd]);
    add(`${p}ffn_gate.weight`, [F, d]);
    add(`${p}ffn_up.weight`, [F, d]);
    add(`${p}ffn_down.weight`, [d, F]);
  }
  add('output_norm.weight', [d], 'F32');
  if (!tied) add('output.weight', [c.vocab_size, d]);
  if (c.rope_scaling?.rope_type === 'llama3') add('rope_freqs.weight', [hd / 2], 'F32');
  const kv = [
    ['general.architecture', 'string', arch],
    [`${arch}.block_count`, 'u32', L],
    [`${arch}.context_length`, 'u32', 32768],
    [`${arch}.embedding_length`, 'u32', d],
    [`${arch}.feed_forward_length`, 'u32', F],
    [`${arch}.attention.head_count`, 'u32', H],
    [`${arch}.attention.head_count_kv`, 'u32', KV],
    [`${arch}.attention.layer_norm_rms_epsilon`, 'f32', c.rms_norm_eps],
    [`${arch}.rope.freq_base`, 'f32', c.rope_theta],
  ];
  return { list, kv, c, hd };
}

/** Random N(0, 0.02)-like values quantized as `type`: a chunk of whole blocks to tile. */
function chunkOf(type) {
  const values = Array.from({ length: 1 << 15 }, () => 0.04 * (Math.random() + Math.random() + Math.random() - 1.5));
  return quantize(type, values);
}

/**
 * A byte-level BPE tokenizer with no merges, as tokenizer.ggml.* keys (gguf-py's constants.py): ids 0-255 the
 * bytes, the rest of the vocabulary placeholders no text reaches, so llama.cpp (which will not load a model without
 * a vocabulary) and the lab read a letter as one token: "abcdefghijklmnop" is 16 tokens in both.
 */
function byteTokenizerKv(vocabSize) {
  const tokens = [...BYTE_ALPHABET];
  for (let id = tokens.length; id < vocabSize; id++) tokens.push(`<unused_${id}>`);
  return [
    ['tokenizer.ggml.model', 'string', 'gpt2'],
    ['tokenizer.ggml.pre', 'string', 'qwen2'],
    ['tokenizer.ggml.tokens', ['array', 'string'], tokens],
    ['tokenizer.ggml.token_type', ['array', 'i32'], tokens.map((_, id) => (id < 256 ? 1 : 5))],
    ['tokenizer.ggml.merges', ['array', 'string'], []],
    ['tokenizer.ggml.add_bos_token', 'bool', false],
  ];
}

/**
 * The shape's GGUF in the cache folder, written on first use: { 'model.gguf': path }. tokenizer: with a byte-level
 * tokenizer (byteTokenizerKv), for engines that take text only (llama.cpp in wllama), in a file of its own.
 */
export function cachedGguf(key, { tokenizer = false } = {}) {
  const dir = shapeDir(key);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, tokenizer ? 'model-byte-tokenizer.gguf' : 'model.gguf');
  if (existsSync(path)) return { 'model.gguf': path };
  const { list, kv, c, hd } = tensorList(key);
  if (tokenizer) kv.push(...byteTokenizerKv(c.vocab_size));
  const sized = list.map((t) => ({
    ...t,
    byteLength:
      (t.shape.reduce((a, b) => a * b, 1) / DTYPE_LAYOUTS[t.dtype].blockValues) * DTYPE_LAYOUTS[t.dtype].blockBytes,
  }));
  const { header, offsets, dataStart } = writeGguf(kv, sized, { headerOnly: true });
  const chunks = new Map();
  const fd = openSync(`${path}.partial`, 'w');
  try {
    writeSync(fd, header, 0, header.length, 0);
    sized.forEach((t, i) => {
      let bytes;
      if (t.name === 'rope_freqs.weight') bytes = encodeFloats('F32', llama3RopeFactors(c, hd));
      else if (t.dtype === 'F32')
        bytes = encodeFloats('F32', new Float32Array(t.shape[0]).fill(t.name.endsWith('.bias') ? 0 : 1));
      if (bytes) return writeSync(fd, bytes, 0, bytes.length, dataStart + offsets[i]);
      if (!chunks.has(t.dtype)) chunks.set(t.dtype, chunkOf(t.dtype));
      const chunk = chunks.get(t.dtype);
      for (let at = 0; at < t.byteLength; at += chunk.length)
        writeSync(fd, chunk, 0, Math.min(chunk.length, t.byteLength - at), dataStart + offsets[i] + at);
    });
  } finally {
    closeSync(fd);
  }
  renameSync(`${path}.partial`, path); // a file in the cache is always whole
  return { 'model.gguf': path };
}
