// Every model family the lab knows, one row each: what lab.inspectConfig counts (norms, parameters) and, under
// `forward`, what lab.openCheckpoint needs to run a checkpoint of it (web/lib/checkpoint/). A family is described
// here once; the inspector, the checkpoint reader, the C++ forward's layer spec and docs/checkpoints.md read it.
// The native exporter of the trained toys (tools/hf_export.cpp) cannot import it: its table restates the
// layout and norm names of the families it writes, and tests/js/hf-export.test.mjs holds it to these rows.
//
// Each row, for the inspector: the norms (name, where, how many, size as a formula of
// config fields, tensors per norm: 1 for a weight, 2 for LayerNorm's weight and bias), the lab's decoder's name for
// the layout (placement, norm kind, QK-Norm), and the parameter count of the whole model as formulas (`count`
// copies of `size`). Formulas are sums and differences of products and exact quotients of fields and integers.
// Facts from the Transformers modeling files named in `source` (the classes cited there).
// `defaults`: fields the config class fills in when config.json leaves them out; `derived`: the modeling code's
// fallbacks (head_dim = hidden_size / num_attention_heads, num_key_value_heads = num_attention_heads). A part with
// `onlyIf` counts only when that boolean field is true (attention_bias: the projections built with
// bias=config.attention_bias).
//
// forward (families a checkpoint can be run for). Where the layer's norms sit is the row's layout.placement ('pre',
// 'sandwich' or 'olmo2': the layouts wasm/src/checkpoint/forward.hpp runs); the norms' tensors are the `norms`
// rows, by slot (attn-before, attn-after, mlp-before, mlp-after, qk, final).
//   normOffset RMSNorm multiplies by (normOffset + w): 1 is Gemma's (1 + w), computed in float32
//   qkNorm     'none' | 'per_head' (RMSNorm(head_dim) on each head) | 'whole' (over the whole q / k projection)
//   biases     the projections with a bias: a list, or 'attention_bias' (q, k, v and o when the config says so)
//   activation 'silu' | 'gelu_tanh' (gelu_pytorch_tanh)
//   embedScale 'sqrt_d': the embedding times sqrt(hidden_size), as the first layer reads it
//   attnScale  'head_dim': head_dim^-0.5;  'query_pre_attn_scalar': query_pre_attn_scalar^-0.5
//   softcaps   reads attn_logit_softcapping and final_logit_softcapping (cap * tanh(x / cap))
//   rope       'default': rope_theta with rope_scaling (none, 'linear', 'llama3') on every layer;
//              'local_global': sliding layers use rope_local_base_freq unscaled, full layers rope_theta scaled
//   sliding    which layers attend to a window of sliding_window keys: 'none', 'all' (when sliding_window is
//              set), 'even' (layers 0, 2, ...), 'pattern' (all but every sliding_window_pattern-th); a config's
//              layer_types list, where given, decides instead
//   defaults   the config class's defaults for the fields above that a config.json may leave out
const LLAMA_LIKE_DERIVED = {
  head_dim: 'hidden_size / num_attention_heads',
  num_key_value_heads: 'num_attention_heads',
};
const GQA_ATTENTION =
  '2 * hidden_size * num_attention_heads * head_dim + 2 * hidden_size * num_key_value_heads * head_dim'; // q, o; k, v
const GATED_MLP = '3 * hidden_size * intermediate_size'; // gate, up, down
const PRE_NORMS = [
  { name: 'input_layernorm', slot: 'attn-before', count: 'num_hidden_layers', size: 'hidden_size' },
  { name: 'post_attention_layernorm', slot: 'mlp-before', count: 'num_hidden_layers', size: 'hidden_size' },
];
const FINAL_NORM = { name: 'norm', slot: 'final', count: '1', size: 'hidden_size' };
const EMBED = { name: 'embed_tokens', count: '1', size: 'vocab_size * hidden_size' };
const LM_HEAD = { name: 'lm_head', count: '1', size: 'vocab_size * hidden_size', unlessTied: true };
// q, k, v and o built with bias=config.attention_bias: one bias per output
const GQA_BIASES = {
  name: 'self_attn (biases)',
  count: 'num_hidden_layers',
  size: 'num_attention_heads * head_dim + 2 * num_key_value_heads * head_dim + hidden_size',
  onlyIf: 'attention_bias',
};
// The forward of Llama and the families that follow its layer (LlamaDecoderLayer, LlamaAttention, LlamaMLP).
const PRE_FORWARD = {
  normOffset: 0,
  qkNorm: 'none',
  biases: [],
  activation: 'silu',
  embedScale: null,
  attnScale: 'head_dim',
  softcaps: false,
  rope: 'default',
  sliding: 'none',
  defaults: { rope_theta: 10000 },
};
const GEMMA_FORWARD = {
  normOffset: 1,
  qkNorm: 'none',
  biases: [],
  activation: 'gelu_tanh',
  embedScale: 'sqrt_d',
  attnScale: 'query_pre_attn_scalar',
  softcaps: true,
  rope: 'default',
};
const llamaLike = (extra = {}) => ({
  layout: { placement: 'pre', norm: 'rmsnorm', qkNorm: false },
  eps: 'rms_norm_eps',
  derived: LLAMA_LIKE_DERIVED,
  norms: [...PRE_NORMS, FINAL_NORM],
  params: [
    EMBED,
    { name: 'self_attn', count: 'num_hidden_layers', size: GQA_ATTENTION },
    GQA_BIASES,
    { name: 'mlp', count: 'num_hidden_layers', size: GATED_MLP },
    LM_HEAD,
  ],
  ...extra,
});

export const ARCHITECTURES = Object.freeze({
  // LlamaDecoderLayer: input_layernorm, post_attention_layernorm (before the MLP); LlamaModel.norm; no q/k norm.
  llama: llamaLike({
    modelTypes: ['llama'],
    source: 'models/llama/modeling_llama.py (LlamaDecoderLayer, LlamaAttention)',
    forward: { ...PRE_FORWARD, biases: 'attention_bias' },
  }),
  // MistralDecoderLayer: Llama's layout; MistralAttention's projections have no bias (bias=False).
  mistral: llamaLike({
    modelTypes: ['mistral'],
    source: 'models/mistral/modeling_mistral.py (MistralDecoderLayer, MistralAttention)',
    forward: { ...PRE_FORWARD, sliding: 'all' },
    params: [
      EMBED,
      { name: 'self_attn', count: 'num_hidden_layers', size: GQA_ATTENTION },
      { name: 'mlp', count: 'num_hidden_layers', size: GATED_MLP },
      LM_HEAD,
    ],
  }),
  // Qwen2Attention: q_proj, k_proj, v_proj with bias=True, o_proj without; no q/k norm.
  qwen2: llamaLike({
    modelTypes: ['qwen2'],
    source: 'models/qwen2/modeling_qwen2.py (Qwen2DecoderLayer, Qwen2Attention)',
    forward: { ...PRE_FORWARD, biases: ['q', 'k', 'v'] },
    params: [
      EMBED,
      {
        name: 'self_attn',
        count: 'num_hidden_layers',
        size: `${GQA_ATTENTION} + num_attention_heads * head_dim + 2 * num_key_value_heads * head_dim`,
      },
      { name: 'mlp', count: 'num_hidden_layers', size: GATED_MLP },
      LM_HEAD,
    ],
  }),
  // Qwen3Attention: q_norm = Qwen3RMSNorm(head_dim), k_norm = Qwen3RMSNorm(head_dim), applied per head.
  qwen3: llamaLike({
    modelTypes: ['qwen3'],
    source: 'models/qwen3/modeling_qwen3.py (Qwen3DecoderLayer, Qwen3Attention)',
    forward: { ...PRE_FORWARD, qkNorm: 'per_head', biases: 'attention_bias' },
    layout: { placement: 'pre', norm: 'rmsnorm', qkNorm: true },
    defaults: { head_dim: 128 }, // Qwen3Config
    norms: [
      ...PRE_NORMS,
      { name: 'self_attn.q_norm', slot: 'qk', count: 'num_hidden_layers', size: 'head_dim' },
      { name: 'self_attn.k_norm', slot: 'qk', count: 'num_hidden_layers', size: 'head_dim' },
      FINAL_NORM,
    ],
  }),
  // Gemma2DecoderLayer: input_layernorm, post_attention_layernorm (on the attention output), pre_feedforward_
  // layernorm, post_feedforward_layernorm; Gemma2RMSNorm multiplies by (1 + weight); no q/k norm; soft-caps.
  gemma2: llamaLike({
    modelTypes: ['gemma2'],
    source: 'models/gemma2/modeling_gemma2.py (Gemma2DecoderLayer, Gemma2Attention, Gemma2RMSNorm)',
    // Gemma2Config: soft-caps 50 and 30, query_pre_attn_scalar 256, sliding_window 4096 on even layers.
    forward: {
      ...GEMMA_FORWARD,
      sliding: 'even',
      defaults: {
        rope_theta: 10000,
        attn_logit_softcapping: 50,
        final_logit_softcapping: 30,
        query_pre_attn_scalar: 256,
        sliding_window: 4096,
      },
    },
    layout: { placement: 'sandwich', norm: 'rmsnorm_gemma', qkNorm: false },
    softcaps: true,
    defaults: { head_dim: 256, tie_word_embeddings: true }, // Gemma2Config
    norms: [
      { name: 'input_layernorm', slot: 'attn-before', count: 'num_hidden_layers', size: 'hidden_size' },
      { name: 'post_attention_layernorm', slot: 'attn-after', count: 'num_hidden_layers', size: 'hidden_size' },
      { name: 'pre_feedforward_layernorm', slot: 'mlp-before', count: 'num_hidden_layers', size: 'hidden_size' },
      { name: 'post_feedforward_layernorm', slot: 'mlp-after', count: 'num_hidden_layers', size: 'hidden_size' },
      FINAL_NORM,
    ],
  }),
  // Gemma3DecoderLayer: Gemma 2's four norms; Gemma3Attention adds q_norm, k_norm = Gemma3RMSNorm(head_dim).
  // Gemma3TextConfig's defaults fill what the multimodal checkpoints' text_config leaves out.
  gemma3: llamaLike({
    modelTypes: ['gemma3_text', 'gemma3'],
    source: 'models/gemma3/modeling_gemma3.py (Gemma3DecoderLayer, Gemma3Attention, Gemma3RMSNorm)',
    forward: {
      ...GEMMA_FORWARD,
      qkNorm: 'per_head',
      rope: 'local_global',
      sliding: 'pattern',
      defaults: { rope_theta: 1000000, rope_local_base_freq: 10000, sliding_window: 4096, sliding_window_pattern: 6 },
    },
    layout: { placement: 'sandwich', norm: 'rmsnorm_gemma', qkNorm: true },
    softcaps: true,
    defaults: {
      vocab_size: 262208,
      num_attention_heads: 8,
      num_key_value_heads: 4,
      head_dim: 256,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      attn_logit_softcapping: null,
      final_logit_softcapping: null,
      query_pre_attn_scalar: 256,
    },
    norms: [
      { name: 'input_layernorm', slot: 'attn-before', count: 'num_hidden_layers', size: 'hidden_size' },
      { name: 'post_attention_layernorm', slot: 'attn-after', count: 'num_hidden_layers', size: 'hidden_size' },
      { name: 'pre_feedforward_layernorm', slot: 'mlp-before', count: 'num_hidden_layers', size: 'hidden_size' },
      { name: 'post_feedforward_layernorm', slot: 'mlp-after', count: 'num_hidden_layers', size: 'hidden_size' },
      { name: 'self_attn.q_norm', slot: 'qk', count: 'num_hidden_layers', size: 'head_dim' },
      { name: 'self_attn.k_norm', slot: 'qk', count: 'num_hidden_layers', size: 'head_dim' },
      FINAL_NORM,
    ],
  }),
  // Olmo2DecoderLayer: post_attention_layernorm and post_feedforward_layernorm on the sublayer outputs, no input
  // norm; Olmo2Attention: q_norm = Olmo2RMSNorm(num_attention_heads * head_dim), k_norm = Olmo2RMSNorm(
  // num_key_value_heads * head_dim), over the whole projection, not per head.
  olmo2: llamaLike({
    modelTypes: ['olmo2'],
    source: 'models/olmo2/modeling_olmo2.py (Olmo2DecoderLayer, Olmo2Attention)',
    forward: { ...PRE_FORWARD, qkNorm: 'whole', biases: 'attention_bias' },
    layout: { placement: 'olmo2', norm: 'rmsnorm', qkNorm: true, qkNormShape: 'projection' },
    norms: [
      { name: 'post_attention_layernorm', slot: 'attn-after', count: 'num_hidden_layers', size: 'hidden_size' },
      { name: 'post_feedforward_layernorm', slot: 'mlp-after', count: 'num_hidden_layers', size: 'hidden_size' },
      { name: 'self_attn.q_norm', slot: 'qk', count: 'num_hidden_layers', size: 'num_attention_heads * head_dim' },
      { name: 'self_attn.k_norm', slot: 'qk', count: 'num_hidden_layers', size: 'num_key_value_heads * head_dim' },
      FINAL_NORM,
    ],
  }),
  // DeepseekV3DecoderLayer: input_layernorm, post_attention_layernorm; DeepseekV3Attention (MLA): q_a_layernorm =
  // RMSNorm(q_lora_rank) on the compressed query, kv_a_layernorm = RMSNorm(kv_lora_rank) on the compressed
  // key-value; no q/k norm over heads. The first first_k_dense_replace layers have a dense MLP, the rest routed
  // experts (DeepseekV3MoE: n_routed_experts + n_shared_experts experts of moe_intermediate_size, a router weight
  // [n_routed_experts, hidden_size]; its e_score_correction_bias is a buffer, not a parameter). The checkpoint's
  // multi-token-prediction layer is not part of the model.
  deepseek_v3: {
    modelTypes: ['deepseek_v3'],
    source: 'models/deepseek_v3/modeling_deepseek_v3.py (DeepseekV3DecoderLayer, DeepseekV3Attention, DeepseekV3MoE)',
    layout: { placement: 'pre', norm: 'rmsnorm', qkNorm: false },
    eps: 'rms_norm_eps',
    derived: {},
    norms: [
      ...PRE_NORMS,
      { name: 'self_attn.q_a_layernorm', slot: 'mla', count: 'num_hidden_layers', size: 'q_lora_rank' },
      { name: 'self_attn.kv_a_layernorm', slot: 'mla', count: 'num_hidden_layers', size: 'kv_lora_rank' },
      FINAL_NORM,
    ],
    params: [
      EMBED,
      {
        name: 'self_attn',
        count: 'num_hidden_layers',
        size: 'hidden_size * q_lora_rank + q_lora_rank * num_attention_heads * qk_nope_head_dim + q_lora_rank * num_attention_heads * qk_rope_head_dim + hidden_size * kv_lora_rank + hidden_size * qk_rope_head_dim + kv_lora_rank * num_attention_heads * qk_nope_head_dim + kv_lora_rank * num_attention_heads * v_head_dim + num_attention_heads * v_head_dim * hidden_size',
      },
      // q_a_proj, kv_a_proj_with_mqa and o_proj take bias=config.attention_bias; q_b_proj and kv_b_proj none
      {
        name: 'self_attn (biases)',
        count: 'num_hidden_layers',
        size: 'q_lora_rank + kv_lora_rank + qk_rope_head_dim + hidden_size',
        onlyIf: 'attention_bias',
      },
      { name: 'mlp (dense)', count: 'first_k_dense_replace', size: GATED_MLP },
      {
        name: 'mlp (experts and router)',
        count: 'num_hidden_layers - first_k_dense_replace',
        size: '3 * hidden_size * moe_intermediate_size * n_routed_experts + 3 * hidden_size * moe_intermediate_size * n_shared_experts + n_routed_experts * hidden_size',
      },
      LM_HEAD,
    ],
  },
  // GPT2Block: ln_1 before attention, ln_2 before the MLP, GPT2Model.ln_f; nn.LayerNorm, weight and bias;
  // Conv1D layers with biases; lm_head tied to wte.
  gpt2: {
    modelTypes: ['gpt2'],
    source: 'models/gpt2/modeling_gpt2.py (GPT2Block, GPT2Attention, GPT2MLP, GPT2Model)',
    layout: { placement: 'pre', norm: 'layernorm', qkNorm: false },
    eps: 'layer_norm_epsilon',
    derived: { n_inner: '4 * n_embd' },
    defaults: { tie_word_embeddings: true },
    norms: [
      { name: 'ln_1', slot: 'attn-before', count: 'n_layer', size: 'n_embd', tensors: 2 },
      { name: 'ln_2', slot: 'mlp-before', count: 'n_layer', size: 'n_embd', tensors: 2 },
      { name: 'ln_f', slot: 'final', count: '1', size: 'n_embd', tensors: 2 },
    ],
    params: [
      { name: 'wte', count: '1', size: 'vocab_size * n_embd' },
      { name: 'wpe', count: '1', size: 'n_positions * n_embd' },
      { name: 'attn', count: 'n_layer', size: '3 * n_embd * n_embd + 3 * n_embd + n_embd * n_embd + n_embd' },
      { name: 'mlp', count: 'n_layer', size: '2 * n_embd * n_inner + n_inner + n_embd' },
      { name: 'lm_head', count: '1', size: 'vocab_size * n_embd', unlessTied: true },
    ],
  },
});
