// What a checkpoint must hold and how its forward runs, derived from config.json and its family's row of
// ARCHITECTURES (web/lib/architectures.js): sizes, the tensors by name with their shapes, each layer's spec
// (placement, norms, attention scale, soft-cap), RoPE frequencies and sliding window. No family is special-cased
// here beyond what its row says.
import { ResidualLabError } from '../errors.js';
import { ARCHITECTURES } from '../architectures.js';
import { inspectConfig, parseJson } from '../inspect-config.js';

const configError = (message) => new ResidualLabError(`config.json: ${message}`, { code: 'invalid_config' });
const unsupported = (message) => new ResidualLabError(message, { code: 'unsupported_config' });

// The weight slot (checkpoint/layout.hpp's slots) of each norm of ARCHITECTURES' rows.
const NORM_SLOT = {
  'attn-before': 'attnNormBefore',
  'attn-after': 'attnNormAfter',
  'mlp-before': 'mlpNormBefore',
  'mlp-after': 'mlpNormAfter',
};
const positiveNumber = (value, name) => {
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value))
    throw configError(`${name} must be a positive number, is ${JSON.stringify(value)}`);
  return value;
};

/** The model a config.json describes: { architecture, modelType, config, sizes, layers, tensors, ... }. */
export function describeModel(configText) {
  const root = parseJson(configText);
  const modelType = root?.text_config?.model_type ?? root?.model_type;
  const runnable = Object.entries(ARCHITECTURES).filter(([, a]) => a.forward);
  if (!runnable.some(([, a]) => a.modelTypes.includes(modelType))) {
    throw new ResidualLabError(
      `model_type ${JSON.stringify(modelType ?? null)} cannot be run; the lab runs ${runnable.flatMap(([, a]) => a.modelTypes).join(', ')}`,
      { code: 'unsupported_architecture' },
    );
  }
  const inspected = inspectConfig(configText);
  const key = inspected.architecture;
  const arch = ARCHITECTURES[key];
  const scope = inspected.textConfig ? root.text_config : root;
  const f = { ...arch.forward, placement: arch.layout.placement };
  const values = Object.fromEntries(inspected.fields.map((field) => [field.name, field.value]));
  const read = (name) =>
    Object.hasOwn(scope, name) ? scope[name] : Object.hasOwn(root, name) ? root[name] : f.defaults?.[name];
  const need = (name) => {
    if (values[name] === undefined || values[name] === null) throw configError(`${name} is missing`);
    return values[name];
  };
  const d = need('hidden_size'),
    L = need('num_hidden_layers'),
    H = need('num_attention_heads'),
    ffn = need('intermediate_size');
  const V = need('vocab_size');
  const KV = values.num_key_value_heads ?? H;
  const headDim = values.head_dim ?? d / H;
  if (!Number.isInteger(headDim)) throw configError(`hidden_size ${d} is not a multiple of num_attention_heads ${H}`);
  if (headDim % 2 !== 0) throw configError(`head_dim ${headDim} must be even for RoPE`);
  if (H % KV !== 0) throw configError(`num_attention_heads ${H} is not a multiple of num_key_value_heads ${KV}`);
  const eps = positiveNumber(values[arch.eps] ?? 1e-6, arch.eps);
  const tied = values.tie_word_embeddings ?? false;
  for (const flag of ['mlp_bias', 'use_sliding_window']) {
    if (read(flag) === true) throw unsupported(`config.json: ${flag} is true, which the lab's forward does not run`);
  }
  const act = read('hidden_activation') ?? read('hidden_act');
  const wantAct = f.activation === 'gelu_tanh' ? 'gelu_pytorch_tanh' : 'silu';
  if (act !== undefined && act !== wantAct)
    throw unsupported(
      `config.json: the activation ${JSON.stringify(act)} is not ${wantAct}, which this family's forward runs`,
    );

  const biases =
    f.biases === 'attention_bias' ? (read('attention_bias') === true ? ['q', 'k', 'v', 'o'] : []) : f.biases;
  const attnScale =
    f.attnScale === 'query_pre_attn_scalar'
      ? positiveNumber(read('query_pre_attn_scalar'), 'query_pre_attn_scalar') ** -0.5
      : headDim ** -0.5;
  const cap = (name) => {
    const value = f.softcaps ? read(name) : null;
    return value === null || value === undefined ? 0 : positiveNumber(value, name);
  };
  const attnSoftcap = cap('attn_logit_softcapping');
  const finalSoftcap = cap('final_logit_softcapping');

  const sliding = slidingLayers(f, read, L);
  const window = sliding.some(Boolean) ? positiveNumber(read('sliding_window'), 'sliding_window') : 0;
  const ropeTheta = positiveNumber(read('rope_theta'), 'rope_theta');
  const globalFreq = invFreq(headDim, ropeTheta, read('rope_scaling'));
  const localFreq =
    f.rope === 'local_global'
      ? invFreq(headDim, positiveNumber(read('rope_local_base_freq'), 'rope_local_base_freq'), null)
      : globalFreq;

  // the layer spec by the C++ field names (checkpoint/layout.hpp), which encodeSpec (layout.js) turns into floats
  const spec = {
    d,
    n_heads: H,
    n_kv_heads: KV,
    head_dim: headDim,
    ffn,
    eps,
    norm_offset: f.normOffset,
    placement: f.placement,
    qk_norm: f.qkNorm,
    activation: f.activation,
    attn_scale: attnScale,
    attn_softcap: attnSoftcap,
  };
  const layers = Array.from({ length: L }, (_, i) => ({
    index: i,
    sliding: sliding[i],
    window: sliding[i] ? window : 0,
    invFreq: sliding[i] ? localFreq : globalFreq,
  }));

  return {
    architecture: key,
    modelType: inspected.textConfig ?? inspected.modelType,
    inspected,
    arch,
    sizes: { d, L, H, KV, headDim, ffn, V, eps, tied },
    forward: {
      ...f,
      biases,
      attnScale,
      attnSoftcap,
      finalSoftcap,
      window,
      embedScale: f.embedScale === 'sqrt_d' ? Math.fround(Math.sqrt(d)) : 1,
    },
    spec,
    layers,
    expected: (prefix) =>
      expectedTensors(arch, prefix, { d, L, H, KV, headDim, ffn, V, tied, biases, qkNorm: f.qkNorm }),
  };
}

/** Which layers use the sliding window: the config's layer_types, else the family's rule. */
function slidingLayers(f, read, L) {
  const types = read('layer_types');
  if (Array.isArray(types)) {
    if (types.length !== L || types.some((t) => t !== 'sliding_attention' && t !== 'full_attention'))
      throw configError('layer_types must list sliding_attention or full_attention for every layer');
    return types.map((t) => t === 'sliding_attention');
  }
  const windowSet = read('sliding_window') !== null && read('sliding_window') !== undefined;
  return Array.from({ length: L }, (_, i) => {
    if (f.sliding === 'all') return windowSet;
    if (f.sliding === 'even') return i % 2 === 0; // Gemma2DecoderLayer: is_sliding = not bool(layer_idx % 2)
    if (f.sliding === 'pattern') return (i + 1) % read('sliding_window_pattern') !== 0;
    return false;
  });
}

/**
 * RoPE's inverse frequencies, head_dim / 2 of them: base^(-2i / head_dim) in Transformers' float32 steps
 * (e = 2i / head_dim rounded to float32, p = base^e rounded to float32, 1 / p rounded to float32), the formula of
 * the C++ kernel rope_inverse_frequencies (wasm/src/kernels/attention.hpp), which
 * tests/js/rope-frequencies.test.mjs holds bit-identical to this one. Then scaled: 'linear' divides by factor;
 * 'llama3' (_compute_llama3_parameters) divides the low frequencies (wavelength > original / low_freq_factor) by
 * factor, keeps the high ones (wavelength < original / high_freq_factor) and blends in between.
 */
export function invFreq(headDim, base, scaling) {
  const half = headDim / 2;
  const out = new Float32Array(half);
  for (let i = 0; i < half; i++) out[i] = 1 / Math.fround(base ** Math.fround((2 * i) / headDim));
  const type = scaling ? (scaling.rope_type ?? scaling.type) : null;
  if (!type || type === 'default') return out;
  const factor = positiveNumber(scaling.factor, 'rope_scaling.factor');
  if (type === 'linear') return out.map((v) => v / factor);
  if (type !== 'llama3')
    throw unsupported(
      `config.json: rope_scaling type ${JSON.stringify(type)} is not one the lab runs (linear, llama3)`,
    );
  const low = positiveNumber(scaling.low_freq_factor, 'rope_scaling.low_freq_factor');
  const high = positiveNumber(scaling.high_freq_factor, 'rope_scaling.high_freq_factor');
  const original = positiveNumber(
    scaling.original_max_position_embeddings,
    'rope_scaling.original_max_position_embeddings',
  );
  return out.map((v) => {
    const wavelength = (2 * Math.PI) / v;
    if (wavelength < original / high) return v;
    if (wavelength > original / low) return v / factor;
    const smooth = (original / wavelength - low) / (high - low);
    return (1 - smooth) * (v / factor) + smooth * v;
  });
}

/** name -> { shape, layer, slot } of every tensor the forward reads, with the model's tensor prefix. */
function expectedTensors(arch, prefix, s) {
  const out = new Map();
  const add = (name, shape, layer = null, slot = null) => out.set(name, { name, shape, layer, slot });
  add(`${prefix}embed_tokens.weight`, [s.V, s.d], null, 'embed');
  add(`${prefix}norm.weight`, [s.d], null, 'finalNorm');
  if (!s.tied) add('lm_head.weight', [s.V, s.d], null, 'head');
  const q = s.H * s.headDim,
    kv = s.KV * s.headDim;
  for (let i = 0; i < s.L; i++) {
    const p = `${prefix}layers.${i}.`;
    for (const norm of arch.norms) {
      if (norm.slot === 'final') continue;
      const size =
        norm.slot !== 'qk' ? s.d : s.qkNorm === 'whole' ? (norm.name.endsWith('q_norm') ? q : kv) : s.headDim;
      const slot = norm.slot === 'qk' ? (norm.name.endsWith('q_norm') ? 'qNorm' : 'kNorm') : NORM_SLOT[norm.slot];
      add(`${p}${norm.name}.weight`, [size], i, slot);
    }
    add(`${p}self_attn.q_proj.weight`, [q, s.d], i, 'q');
    add(`${p}self_attn.k_proj.weight`, [kv, s.d], i, 'k');
    add(`${p}self_attn.v_proj.weight`, [kv, s.d], i, 'v');
    add(`${p}self_attn.o_proj.weight`, [s.d, q], i, 'o');
    for (const b of s.biases)
      add(`${p}self_attn.${b}_proj.bias`, [b === 'q' ? q : b === 'o' ? s.d : kv], i, `${b}Bias`);
    add(`${p}mlp.gate_proj.weight`, [s.ffn, s.d], i, 'gate');
    add(`${p}mlp.up_proj.weight`, [s.ffn, s.d], i, 'up');
    add(`${p}mlp.down_proj.weight`, [s.d, s.ffn], i, 'down');
  }
  return out;
}
