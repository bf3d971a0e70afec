// The config.json files <rl-config-inspector> offers as examples: each the published file's fields that a
// reader of this chapter looks at (tests/js/inspect-config.test.mjs checks they count like the full files).
export const CONFIG_EXAMPLES = [
  {
    id: 'llama', name: 'Llama-3.1-8B',
    config: {
      architectures: ['LlamaForCausalLM'], hidden_size: 4096, initializer_range: 0.02, intermediate_size: 14336, model_type: 'llama',
      num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: false, vocab_size: 128256,
    },
  },
  {
    id: 'qwen3', name: 'Qwen3-8B',
    config: {
      architectures: ['Qwen3ForCausalLM'], attention_bias: false, head_dim: 128, hidden_size: 4096, initializer_range: 0.02, intermediate_size: 12288,
      model_type: 'qwen3', num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8, rms_norm_eps: 1e-06, tie_word_embeddings: false, vocab_size: 151936,
    },
  },
  {
    id: 'gemma2', name: 'Gemma-2-9B',
    config: {
      architectures: ['Gemma2ForCausalLM'], attn_logit_softcapping: 50.0, final_logit_softcapping: 30.0, head_dim: 256, hidden_size: 3584,
      initializer_range: 0.02, intermediate_size: 14336, model_type: 'gemma2', num_attention_heads: 16, num_hidden_layers: 42, num_key_value_heads: 8,
      query_pre_attn_scalar: 256, rms_norm_eps: 1e-06, vocab_size: 256000,
    },
  },
  {
    id: 'gemma3', name: 'Gemma-3-4B',
    config: {
      architectures: ['Gemma3ForConditionalGeneration'], initializer_range: 0.02, model_type: 'gemma3',
      text_config: { hidden_size: 2560, intermediate_size: 10240, model_type: 'gemma3_text', num_hidden_layers: 34, sliding_window: 1024 },
      vision_config: { hidden_size: 1152, model_type: 'siglip_vision_model', num_hidden_layers: 27 },
    },
  },
  {
    id: 'olmo2', name: 'OLMo-2-7B',
    config: {
      architectures: ['Olmo2ForCausalLM'], hidden_size: 4096, initializer_range: 0.02, intermediate_size: 11008, model_type: 'olmo2',
      num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, rms_norm_eps: 1e-06, tie_word_embeddings: false, vocab_size: 100352,
    },
  },
  {
    id: 'deepseek', name: 'DeepSeek-V3',
    config: {
      architectures: ['DeepseekV3ForCausalLM'], first_k_dense_replace: 3, hidden_size: 7168, initializer_range: 0.02, intermediate_size: 18432,
      kv_lora_rank: 512, model_type: 'deepseek_v3', moe_intermediate_size: 2048, n_routed_experts: 256, n_shared_experts: 1, num_attention_heads: 128,
      num_hidden_layers: 61, num_key_value_heads: 128, q_lora_rank: 1536, qk_nope_head_dim: 128, qk_rope_head_dim: 64, rms_norm_eps: 1e-06,
      tie_word_embeddings: false, v_head_dim: 128, vocab_size: 129280,
    },
  },
  {
    id: 'gpt2', name: 'GPT-2',
    config: {
      architectures: ['GPT2LMHeadModel'], initializer_range: 0.02, layer_norm_epsilon: 1e-05, model_type: 'gpt2', n_embd: 768, n_head: 12,
      n_layer: 12, n_positions: 1024, vocab_size: 50257,
    },
  },
];

// eps values written as transformers writes them (1e-06), not as JSON.stringify does (0.000001)
export const exampleText = (id) => JSON.stringify(CONFIG_EXAMPLES.find((e) => e.id === id).config, null, 2)
  .replace(/: (0\.0000\d+)/g, (_, v) => `: ${Number(v).toExponential().replace(/e-(\d)$/, 'e-0$1')}`);
