// Text of <rl-forward-reader> in English.
// A space between Chinese text and a Latin name, none before a Chinese one (是 Pre-Norm, 是三明治).
export default {
  title: 'Read a forward()',
  hint: "Each snippet is a decoder layer's forward(), written in the style of a model's code. Say which layout it uses; hover or focus a line to find it in the diagram, and a diagram element to find its lines.",
  sectionLink: 'Read the section',
  snippet: 'Snippet',
  codeLabel: (model) => `forward() in the style of ${model}`,
  diagramTitle: 'The block this config builds',
  diagramLabel: 'Block diagram of this layer (its layout is named once you have answered)',
  diagramWait: 'Name the layout first: the diagram shows where the norms sit, so it appears with the answer.',
  answer: 'Which layout is this?',
  placementNames: {
    pre: 'Pre-Norm',
    post: 'Post-Norm',
    sandwich: 'Sandwich',
    olmo2: 'OLMo 2 (norm on the output)',
    deepnorm: 'DeepNorm (Post-Norm, scaled skip)',
  },
  formulaIs: (formula) => `engine: ${formula}`,
  check: 'Check',
  pickFirst: 'Pick a layout first (arrow keys move between them, Enter checks).',
  right: (model, name) => `Right: ${model} is ${name}.`,
  rightDetail: (formula) => `The engine computes h ← ${formula}.`,
  wrong: (name) => `Not ${name}.`,
  wrongDetail: (formula) =>
    `That layout computes h ← ${formula}. Look at the marked lines: does each norm act on the trunk, on the sublayer's input, or on its output?`,
  revealed: (model, name, formula) => `${model} is ${name}, h ← ${formula}. Read the lines again with their roles.`,
  roles: {
    skip: 'keeps the trunk for the skip path',
    'skip-scale': 'scales the skip path by α',
    'norm-in': "norm on the sublayer's input: the trunk stays un-normalized",
    sublayer: 'the sublayer',
    'norm-out': "norm on the sublayer's output, before the add",
    add: 'residual add',
    'norm-after': 'norm of the sum: the trunk itself is normalized',
  },
  sublayers: { attn: 'attention', mlp: 'MLP' },
  diagramPart: (sub, role) => `${sub}: ${role}`,
  notes: {
    transformer: 'norm1 and norm2 wrap the sum x + sublayer(x): the add comes first, the norm after it, on the trunk.',
    bert: "Each LayerNorm takes the sublayer's output plus h: BERT kept the original Post-Norm.",
    gpt2: 'ln_1 and ln_2 normalize only what enters the sublayer; the add uses the saved residual, un-normalized.',
    llama:
      "The trap: post_attention_layernorm sits after attention but before the MLP. It normalizes the MLP's input, so Llama is Pre-Norm.",
    gemma2:
      "Four norms: input_layernorm and pre_feedforward_layernorm before each sublayer, post_attention_layernorm and post_feedforward_layernorm on their outputs before the add. The same name as Llama's, a different job.",
    olmo2: 'No norm before the sublayers: each output is normalized, then added to an un-normalized trunk.',
    deepnet: 'The norm wraps alpha * x + sublayer(x): Post-Norm on the trunk, with the skip path scaled by alpha.',
  },
};
