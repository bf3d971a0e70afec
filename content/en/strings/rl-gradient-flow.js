// Text of <rl-gradient-flow> in English.
export default {
  title: 'Gradient flow through a deep stack',
  hint: 'Follow the gradient from the top layer (left) down to layer 0 (right): without residuals it shrinks or explodes as gain^L; with them the identity path carries it down, and it stays near 1 only while the branches are small.',
  sectionLink: 'Read the section',
  layers: 'Layers L',
  gain: 'Gain per layer',
  width: 'Width',
  variant: 'Layer type',
  linear: 'linear (gain · random rotation)',
  mlp: 'MLP (gain · W₂ GELU(W₁h))',
  curves: 'Curves',
  plain: 'without residual',
  residual: 'with residual',
  reference: 'gain^(L−l)',
  presetsLabel: 'Settings to try',
  preset: (gain, layers, kind) =>
    ({ small: `${gain} × ${layers} layers: small branches`, large: `large branches: ${gain} × ${layers} layers` })[
      kind
    ] ?? `${gain} × ${layers} layers`,
  chartTitle:
    'Gradient norm at the input of each layer (log scale; 1 at the top, on the left: the gradient flows right, down to layer 0)',
  chartLabel: (layers, gain, type) =>
    `Line chart, log scale: gradient norm at each of ${layers} layers with gain ${gain}, with and without residual connections; layer type: ${type}`,
  // the quantity a saved CSV's columns hold
  quantity: 'gradient norm at the layer’s input (the top layer’s = 1)',
  // short enough for a phone's chart (about 300 px): the direction is said in chartTitle
  layerAxis: 'layer l (top on the left)',
  plainRatio: (layers) =>
    `Without residuals, layer 0 receives this fraction of the top gradient after ${layers} layers: `,
  expected: (gain, layers) => ` (gain^L = ${gain}^${layers} = `,
  closing: ')',
  residualRatio: 'With residuals, layer 0 receives: ',
  residualExpected: ' (for a linear layer about (1 + gain²)^(L/2) = ',
  chapterMatch: (gain, value) =>
    `The chapter's figure ${gain}^32 ≈ ${value}: the measured ratio above is the same number.`,
  chapterOther: 'The chapter quotes 0.8^32 ≈ 0.0008 and 1.2^32 ≈ 342: pick a preset to see them measured.',
  residualLarge: (factor, total) =>
    `With branches this large the residual gradient grows instead: every layer adds its branch's path to the identity path, ${factor} per layer, ${total} at layer 0. That is why initialization keeps branches small; with small branches (gain 0.1) the gradient reaches layer 0 almost unchanged.`,
  residualFlat: (ratio, band) =>
    `With residuals layer 0 receives ${ratio} times the top gradient, within a factor of ${band} of it: the identity path carries the gradient down, as the section says. Now try large branches: the residual gradient then grows with depth.`,
  mlpNote:
    'The MLP layer has a GELU, so the decay is no longer exactly gain per layer; the gain^(L−l) line is only a guide.',
  // the model below the random stack (model-view.js)
  modelTitle: 'The same gradients in a trained model',
  modelHint:
    'Open a trained model and the lab runs one backward pass over its text: the gradient reaching the stream before each layer, with the skips as the model has them, and with every skip above that layer removed from the backward pass, so the gradient has to pass through every branch. Both are drawn relative to the top (the stream before the final norm), beside gain^(L−l) for the gain above.',
  model: 'Model',
  modelNone: 'none',
  modelFiles: 'Or your checkpoint’s files (config.json, model.safetensors, tokenizer.json), or one .gguf file',
  modelOpenStored: 'Measure this stored model',
  modelProgressLabel: 'Progress of the gradient run',
  modelCancel: 'Cancel',
  modelCancelled: 'Cancelled.',
  modelReading: (done, total) =>
    total
      ? `Reading the files: ${(done / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`
      : `Reading the files: ${(done / 1e6).toFixed(1)} MB`,
  modelOpening: 'Opening the model…',
  modelRunning: (tokens) => `Forward and backward over ${tokens} tokens…`,
  modelProgress: (percent) => `Forward and backward: ${percent}%`,
  modelTook: (ms) => `Done in ${(ms / 1000).toFixed(1)} s.`,
  modelFailed: (message) => `The gradients could not be computed: ${message}`,
  modelChartTitle: 'Gradient norm over all positions at the stream before each layer (log scale; 1 at the top)',
  modelChartLabel: (name, gain) =>
    `Line chart, log scale: ${name}, the gradient norm at the stream before each layer, with its skips and with every skip above removed; dashed, gain^(L−l) for gain ${gain}`,
  modelLayerAxis: 'stream before layer i (i = L: before the final norm)',
  modelStream: 'with the skips',
  modelBranchOnly: 'skips removed',
  modelWhat: (name, layers, tokens, loss) =>
    `${name}: ${layers} layers, ${tokens} tokens, mean next-token loss ${loss} nats.`,
  modelStreamAt0: 'With the skips, the embedding receives this multiple of the top gradient: ',
  modelBranchOnlyAt0: 'With every skip removed it would receive: ',
  modelGainL: (gain, layers) => ` (the random stack’s gain^L = ${gain}^${layers} = `,
  gainsCaption: 'Branch gains ‖Jᵀg‖ / ‖g‖',
  gainsNote:
    'A branch gain is what the sublayer’s branch adds to the gradient the skip carries unchanged, g at the sublayer’s output: 1 adds as much again.',
  gainsLayer: 'layer',
  gainsAttn: 'attention',
  gainsMlp: 'MLP',
};
