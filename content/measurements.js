// Numbers the chapter measured, which every language's texts quote (content/<lang>/strings/), the chapter states
// (tests/js/content-seed.test.mjs holds content/<lang>/chapter.md to them) and <rl-checkpoint-probe> sets beside a
// reader's own run of the same model (web/components/checkpoint-probe/seed.js).

// The residual stream of Qwen2.5-0.5B-Instruct reading the chapter's prompt, at its last position, in FP32 on a CPU
// (no chat template: our inference, since the course names the last position, the "？", and no template). `config` is the model's shape as its config.json states it, by which the probe recognises it.
// Stream states count as lab.openCheckpoint's streamNorms do: 0 the embedding, i + 1 after layer i.
export const QWEN_SEED = {
  model: 'Qwen2.5-0.5B-Instruct',
  config: {
    model_type: 'qwen2',
    hidden_size: 896,
    num_hidden_layers: 24,
    num_attention_heads: 14,
    num_key_value_heads: 2,
    intermediate_size: 4864,
    vocab_size: 151936,
    tie_word_embeddings: true,
    rope_theta: 1000000,
  },
  prompt: '年假怎么申请？',
  position: 'last', // the "？"
  precision: 'FP32',
  embedding: 0.47,
  afterLayer0: 4.8,
  middle: [15, 20], // where the middle layers' slow climb reaches (the source gives no lower end)
  peak: { layer: 22, norm: 76.1 },
  last: 58.1, // after the last layer (23)
  increments: [1, 15], // what most sublayers add
  lastFfn: 77, // the last layer's FFN output
};

// The two points <rl-residual-growth>'s growth compares (the 76.1 after layer 22 is a peak, not the top).
export const QWEN_EMBEDDING = QWEN_SEED.embedding;
export const QWEN_TOP = QWEN_SEED.last;
