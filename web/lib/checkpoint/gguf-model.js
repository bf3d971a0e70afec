// A GGUF file read as the checkpoint the lab's forward runs: the Hugging Face config.json its key/values stand
// for, its tensors under their Hugging Face names, and llama.cpp's layout conventions undone where they differ
// (convert_hf_to_gguf.py and src/llama-model.cpp in llama.cpp):
// - names: per arch (TENSOR_NAMES below); a gemma2 file has no output.weight (the head is the embedding);
// - the `llama` arch (Llama, Mistral) stores q_proj and k_proj rows permuted so that its rope rotates adjacent
//   pairs: within each head, Hugging Face row i * hd / 2 + j is row 2 j + i of the file; the rows are read back
//   in Hugging Face's order (permutedSource). qwen2, qwen3, gemma2, gemma3 and olmo2 keep Hugging Face's rows;
// - Gemma's RMSNorm weights, the q/k norms and the final norm included, are stored with the + 1 added, so the
//   forward multiplies by w (normOffset 0) and normWeights reports storedOffset 1;
// - Llama 3's rope scaling is the rope_freqs tensor: inv_freq[i] / rope_freqs[i];
// - what the key/values leave out is llama.cpp's default for the arch: Gemma 2 and 3 scale queries by
//   head_dim^-0.5 (by (d / heads)^-0.5 for the 27B models, 46 and 62 layers), Gemma 2 slides on even layers,
//   Gemma 3 on five layers of six (gemma3.attention.sliding_window_pattern where a file has it) with a local rope
//   base of 10000; the llama arch runs no sliding window (Mistral's included), as llama.cpp does.
import { ResidualLabError } from '../errors.js';

const bad = (code, message) => new ResidualLabError(message, { code });

// GGUF arch -> the model_type the lab runs it as, whether q/k rows are permuted, whether norms hold the + 1.
export const GGUF_ARCHES = Object.freeze({
  llama: { modelType: 'llama', permuted: true, normPlusOne: false },
  qwen2: { modelType: 'qwen2', permuted: false, normPlusOne: false },
  qwen3: { modelType: 'qwen3', permuted: false, normPlusOne: false },
  gemma2: { modelType: 'gemma2', permuted: false, normPlusOne: true },
  gemma3: { modelType: 'gemma3_text', permuted: false, normPlusOne: true },
  olmo2: { modelType: 'olmo2', permuted: false, normPlusOne: false },
});

// A layer's tensors: GGUF name (after blk.N.) -> Hugging Face name (after model.layers.N.), by arch.
const COMMON = {
  attn_q: 'self_attn.q_proj',
  attn_k: 'self_attn.k_proj',
  attn_v: 'self_attn.v_proj',
  attn_output: 'self_attn.o_proj',
  attn_q_norm: 'self_attn.q_norm',
  attn_k_norm: 'self_attn.k_norm',
  ffn_gate: 'mlp.gate_proj',
  ffn_up: 'mlp.up_proj',
  ffn_down: 'mlp.down_proj',
};
const PRE = { ...COMMON, attn_norm: 'input_layernorm', ffn_norm: 'post_attention_layernorm' };
const GEMMA = {
  ...COMMON,
  attn_norm: 'input_layernorm',
  post_attention_norm: 'post_attention_layernorm',
  ffn_norm: 'pre_feedforward_layernorm',
  post_ffw_norm: 'post_feedforward_layernorm',
};
const OLMO2 = {
  ...COMMON,
  post_attention_norm: 'post_attention_layernorm',
  post_ffw_norm: 'post_feedforward_layernorm',
};
export const TENSOR_NAMES = Object.freeze({
  llama: PRE,
  qwen2: PRE,
  qwen3: PRE,
  gemma2: GEMMA,
  gemma3: GEMMA,
  olmo2: OLMO2,
});

const INTEGER_TYPES = new Set(['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64']);
const FLOAT_TYPES = new Set(['f32', 'f64']);

/** A key's value, checked against the kind it must be ('integer', 'number', 'string'); `fallback` if absent. */
function key(header, name, kind, fallback) {
  if (!header.kv.has(name)) {
    if (fallback === undefined) throw bad('invalid_gguf_key', `the GGUF has no ${name}`);
    return fallback;
  }
  const type = header.kvTypes.get(name);
  const ok =
    kind === 'integer'
      ? INTEGER_TYPES.has(type)
      : kind === 'number'
        ? INTEGER_TYPES.has(type) || FLOAT_TYPES.has(type)
        : type === kind;
  if (!ok)
    throw bad('invalid_gguf_key', `${name} is a ${type}, must be ${kind === 'string' ? 'a string' : `an ${kind}`}`);
  return header.kv.get(name);
}

/** The GGUF's arch (general.architecture), refused unless the lab runs it. */
export function ggufArch(header) {
  const arch = key(header, 'general.architecture', 'string');
  if (!Object.hasOwn(GGUF_ARCHES, arch))
    throw bad(
      'unsupported_architecture',
      `general.architecture ${JSON.stringify(arch)} cannot be run; the lab runs ${Object.keys(GGUF_ARCHES).join(', ')}`,
    );
  return arch;
}

/** The config.json (an object) the GGUF's key/values describe; `tensors` its tensors by GGUF name. */
export function ggufConfig(header, tensors) {
  const arch = ggufArch(header);
  const k = (name, kind, fallback) => key(header, `${arch}.${name}`, kind, fallback);
  const d = k('embedding_length', 'integer'),
    L = k('block_count', 'integer'),
    H = k('attention.head_count', 'integer');
  const headDim = k('attention.key_length', 'integer', null) ?? d / H;
  const embed = tensors.get('token_embd.weight');
  const config = {
    model_type: GGUF_ARCHES[arch].modelType,
    hidden_size: d,
    num_hidden_layers: L,
    intermediate_size: k('feed_forward_length', 'integer'),
    num_attention_heads: H,
    num_key_value_heads: k('attention.head_count_kv', 'integer', H),
    head_dim: headDim,
    vocab_size: k('vocab_size', 'integer', null) ?? embed?.shape[0] ?? header.kv.get('tokenizer.ggml.tokens')?.length,
    rms_norm_eps: k('attention.layer_norm_rms_epsilon', 'number'),
    rope_theta: k('rope.freq_base', 'number', 10000),
    tie_word_embeddings: !tensors.has('output.weight'),
  };
  const scaling = k('rope.scaling.type', 'string', 'none');
  if (scaling === 'linear') config.rope_scaling = { rope_type: 'linear', factor: k('rope.scaling.factor', 'number') };
  else if (scaling !== 'none')
    throw bad(
      'unsupported_config',
      `${arch}.rope.scaling.type ${JSON.stringify(scaling)} is not one the lab runs (linear)`,
    );
  if (arch === 'gemma2' || arch === 'gemma3') {
    const big = L === (arch === 'gemma2' ? 46 : 62); // the 27B models
    const scale = k('attention.scale', 'number', null);
    config.query_pre_attn_scalar = scale ? scale ** -2 : big ? d / H : headDim;
    config.sliding_window = k('attention.sliding_window', 'integer');
    config.hidden_activation = 'gelu_pytorch_tanh';
  }
  if (arch === 'gemma2') {
    config.attn_logit_softcapping = k('attn_logit_softcapping', 'number', null);
    config.final_logit_softcapping = k('final_logit_softcapping', 'number', null);
  }
  if (arch === 'gemma3') {
    config.sliding_window_pattern = k('attention.sliding_window_pattern', 'integer', 6);
    config.rope_local_base_freq = 10000;
    config.attn_logit_softcapping = null;
    config.final_logit_softcapping = null;
  }
  return config;
}

/** Hugging Face name -> GGUF tensor (with its GGUF name kept as `ggufName`), and rope_freqs if present. */
export function ggufTensors(header, tensors) {
  const arch = ggufArch(header);
  const names = TENSOR_NAMES[arch];
  const out = new Map();
  for (const [name, t] of tensors) {
    let hf = null;
    if (name === 'token_embd.weight') hf = 'model.embed_tokens.weight';
    else if (name === 'output_norm.weight') hf = 'model.norm.weight';
    else if (name === 'output.weight') hf = 'lm_head.weight';
    else {
      const m = /^blk\.(\d+)\.(\w+)\.(weight|bias)$/.exec(name);
      if (m && Object.hasOwn(names, m[2])) hf = `model.layers.${m[1]}.${names[m[2]]}.${m[3]}`;
    }
    if (hf) out.set(hf, { ...t, name: hf, ggufName: name });
  }
  return out;
}

/**
 * A source reading a permuted q/k tensor's rows back in Hugging Face's order (module comment): rows of
 * `rowBytes`, heads of `headDim` rows, the tensor at byte `offset` of `source`. Reads whole heads of the file.
 */
export function permutedSource(source, offset, rowBytes, headDim) {
  const half = headDim / 2;
  const fileRow = (r) => {
    const h = Math.floor(r / headDim),
      w = r % headDim;
    return h * headDim + 2 * (w % half) + Math.floor(w / half);
  };
  return {
    ...source,
    async read(begin, end, into) {
      const from = begin - offset,
        to = end - offset;
      const r0 = Math.floor(from / rowBytes),
        r1 = Math.ceil(to / rowBytes);
      const h0 = Math.floor(r0 / headDim) * headDim,
        h1 = Math.ceil(r1 / headDim) * headDim;
      const span = await source.read(offset + h0 * rowBytes, offset + h1 * rowBytes);
      const out = into ?? new Uint8Array(to - from);
      for (let r = r0; r < r1; r++) {
        const a = Math.max(from, r * rowBytes),
          b = Math.min(to, (r + 1) * rowBytes);
        const at = (fileRow(r) - h0) * rowBytes + (a - r * rowBytes);
        out.set(span.subarray(at, at + (b - a)), a - from);
      }
      return out;
    },
  };
}
