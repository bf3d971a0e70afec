// The forward() snippets of <rl-forward-reader>: short decoder-layer forwards written by this project in the
// style of each model's reference code (simplified, not copied). Each snippet carries the decoder config
// it corresponds to; the right answer is that config's `placement`, as the engine's option table resolves it.
//
// Every line names the steps of the block it performs, so the code and the diagram highlight together:
//   sub    'attn' or 'mlp': the sublayer the line belongs to (null for the signature and the return)
//   steps  what the line does on that sublayer's path:
//            'skip'        keeps the trunk for the skip path (residual = h)
//            'skip-scale'  scales the skip path (DeepNorm's alpha * h)
//            'norm-in'     normalizes the sublayer's input (the trunk itself is left alone)
//            'sublayer'    the attention or the MLP itself
//            'norm-out'    normalizes the sublayer's output before it is added back
//            'add'         the residual add
//            'norm-after'  normalizes the sum: the trunk itself
//   name   the module's name in the code, shown in the diagram (the naming trap lives there)
export const SNIPPETS = [
  {
    id: 'transformer',
    model: 'Transformer (2017)',
    config: { norm: 'layernorm', placement: 'post' },
    lines: [
      { code: '# EncoderLayer.forward (Transformer, 2017)' },
      { code: 'def forward(self, x, mask):' },
      { code: '    a = self.self_attn(x, x, x, mask)', sub: 'attn', steps: ['sublayer'], name: 'self_attn' },
      {
        code: '    x = self.norm1(x + self.dropout(a))',
        sub: 'attn',
        steps: ['skip', 'add', 'norm-after'],
        name: 'norm1',
      },
      { code: '    f = self.feed_forward(x)', sub: 'mlp', steps: ['sublayer'], name: 'feed_forward' },
      {
        code: '    x = self.norm2(x + self.dropout(f))',
        sub: 'mlp',
        steps: ['skip', 'add', 'norm-after'],
        name: 'norm2',
      },
      { code: '    return x' },
    ],
  },
  {
    id: 'bert',
    model: 'BERT',
    config: { norm: 'layernorm', placement: 'post' },
    lines: [
      { code: '# BertLayer.forward' },
      { code: 'def forward(self, h, mask):' },
      { code: '    attn = self.attention.self(h, mask)', sub: 'attn', steps: ['sublayer'], name: 'attention' },
      { code: '    attn = self.attention.output.dense(attn)', sub: 'attn', steps: ['sublayer'], name: 'attention' },
      {
        code: '    h = self.attention.output.LayerNorm(attn + h)',
        sub: 'attn',
        steps: ['skip', 'add', 'norm-after'],
        name: 'attention.output.LayerNorm',
      },
      {
        code: '    inter = self.intermediate(h)  # dense + GELU',
        sub: 'mlp',
        steps: ['sublayer'],
        name: 'intermediate + output',
      },
      { code: '    out = self.output.dense(inter)', sub: 'mlp', steps: ['sublayer'], name: 'intermediate + output' },
      {
        code: '    h = self.output.LayerNorm(out + h)',
        sub: 'mlp',
        steps: ['skip', 'add', 'norm-after'],
        name: 'output.LayerNorm',
      },
      { code: '    return h' },
    ],
  },
  {
    id: 'gpt2',
    model: 'GPT-2',
    config: { norm: 'layernorm', placement: 'pre', init: { residualScaling: true } },
    lines: [
      { code: '# GPT2Block.forward' },
      { code: 'def forward(self, h):' },
      { code: '    residual = h', sub: 'attn', steps: ['skip'] },
      { code: '    h = self.ln_1(h)', sub: 'attn', steps: ['norm-in'], name: 'ln_1' },
      { code: '    attn_output = self.attn(h)', sub: 'attn', steps: ['sublayer'], name: 'attn' },
      { code: '    h = attn_output + residual', sub: 'attn', steps: ['add'] },
      { code: '    residual = h', sub: 'mlp', steps: ['skip'] },
      { code: '    h = self.ln_2(h)', sub: 'mlp', steps: ['norm-in'], name: 'ln_2' },
      { code: '    feed_forward = self.mlp(h)', sub: 'mlp', steps: ['sublayer'], name: 'mlp' },
      { code: '    h = residual + feed_forward', sub: 'mlp', steps: ['add'] },
      { code: '    return h' },
    ],
  },
  {
    id: 'llama',
    model: 'Llama',
    config: { norm: 'rmsnorm', placement: 'pre', mlp: 'swiglu', posEmbed: false },
    lines: [
      { code: '# LlamaDecoderLayer.forward' },
      { code: 'def forward(self, h, pos):' },
      { code: '    residual = h', sub: 'attn', steps: ['skip'] },
      { code: '    h = self.input_layernorm(h)', sub: 'attn', steps: ['norm-in'], name: 'input_layernorm' },
      { code: '    h = self.self_attn(h, pos)', sub: 'attn', steps: ['sublayer'], name: 'self_attn' },
      { code: '    h = residual + h', sub: 'attn', steps: ['add'] },
      { code: '    residual = h', sub: 'mlp', steps: ['skip'] },
      {
        code: '    h = self.post_attention_layernorm(h)',
        sub: 'mlp',
        steps: ['norm-in'],
        name: 'post_attention_layernorm',
      },
      { code: '    h = self.mlp(h)', sub: 'mlp', steps: ['sublayer'], name: 'mlp' },
      { code: '    h = residual + h', sub: 'mlp', steps: ['add'] },
      { code: '    return h' },
    ],
  },
  {
    id: 'gemma2',
    model: 'Gemma 2',
    config: {
      norm: 'rmsnorm_gemma',
      placement: 'sandwich',
      mlp: 'swiglu',
      posEmbed: false,
      attnSoftcap: 50,
      finalSoftcap: 30,
    },
    lines: [
      { code: '# Gemma2DecoderLayer.forward' },
      { code: 'def forward(self, h, pos):' },
      { code: '    residual = h', sub: 'attn', steps: ['skip'] },
      { code: '    h = self.input_layernorm(h)', sub: 'attn', steps: ['norm-in'], name: 'input_layernorm' },
      { code: '    h = self.self_attn(h, pos)', sub: 'attn', steps: ['sublayer'], name: 'self_attn' },
      {
        code: '    h = self.post_attention_layernorm(h)',
        sub: 'attn',
        steps: ['norm-out'],
        name: 'post_attention_layernorm',
      },
      { code: '    h = residual + h', sub: 'attn', steps: ['add'] },
      { code: '    residual = h', sub: 'mlp', steps: ['skip'] },
      {
        code: '    h = self.pre_feedforward_layernorm(h)',
        sub: 'mlp',
        steps: ['norm-in'],
        name: 'pre_feedforward_layernorm',
      },
      { code: '    h = self.mlp(h)', sub: 'mlp', steps: ['sublayer'], name: 'mlp' },
      {
        code: '    h = self.post_feedforward_layernorm(h)',
        sub: 'mlp',
        steps: ['norm-out'],
        name: 'post_feedforward_layernorm',
      },
      { code: '    h = residual + h', sub: 'mlp', steps: ['add'] },
      { code: '    return h' },
    ],
  },
  {
    id: 'olmo2',
    model: 'OLMo 2',
    config: { norm: 'rmsnorm', placement: 'olmo2', mlp: 'swiglu', posEmbed: false, qkNorm: true },
    lines: [
      { code: '# Olmo2DecoderLayer.forward' },
      { code: 'def forward(self, h, pos):' },
      { code: '    residual = h', sub: 'attn', steps: ['skip'] },
      { code: '    h = self.self_attn(h, pos)', sub: 'attn', steps: ['sublayer'], name: 'self_attn' },
      {
        code: '    h = self.post_attention_layernorm(h)',
        sub: 'attn',
        steps: ['norm-out'],
        name: 'post_attention_layernorm',
      },
      { code: '    h = residual + h', sub: 'attn', steps: ['add'] },
      { code: '    residual = h', sub: 'mlp', steps: ['skip'] },
      { code: '    h = self.mlp(h)', sub: 'mlp', steps: ['sublayer'], name: 'mlp' },
      {
        code: '    h = self.post_feedforward_layernorm(h)',
        sub: 'mlp',
        steps: ['norm-out'],
        name: 'post_feedforward_layernorm',
      },
      { code: '    h = residual + h', sub: 'mlp', steps: ['add'] },
      { code: '    return h' },
    ],
  },
  {
    id: 'deepnet',
    model: 'DeepNet',
    config: { norm: 'layernorm', placement: 'deepnorm' },
    lines: [
      { code: '# DeepNetDecoderLayer.forward' },
      { code: 'def forward(self, x):' },
      { code: '    # self.alpha = (2 * num_layers) ** 0.25' },
      {
        code: '    x = self.norm1(self.alpha * x + self.attn(x))',
        sub: 'attn',
        steps: ['skip-scale', 'sublayer', 'add', 'norm-after'],
        name: 'norm1',
      },
      {
        code: '    x = self.norm2(self.alpha * x + self.ffn(x))',
        sub: 'mlp',
        steps: ['skip-scale', 'sublayer', 'add', 'norm-after'],
        name: 'norm2',
      },
      { code: '    return x' },
    ],
  },
];

export const SNIPPET_IDS = SNIPPETS.map((snippet) => snippet.id);
