// Text of <rl-init-scaling> in English.
export default {
  title: 'Initialization and depth',
  hint: 'Without scaling the stream’s variance at initialization grows about linearly with the number of layers; with GPT-2’s 1/√(2L) on the projections that write into it, every depth ends near the embedding’s variance plus one increment.',
  sectionLink: 'Read the section',
  maxDepth: 'Deepest model (layers)',
  std: 'Initial weight std',
  depthTitle: 'Mean square of the final stream (per coordinate) against depth',
  depthLabel:
    'Line chart: the residual stream’s variance at the top against the number of layers, without and with 1/√(2L) scaling, and the linear estimate',
  profileTitle: (depth) => `Inside the ${depth}-layer model: mean square at every stream point`,
  profileLabel: (depth) =>
    `Line chart: the residual stream’s variance after every sublayer of the ${depth}-layer model, without and with scaling`,
  depthAxis: 'layers L',
  pointAxis: 'stream point (0 = embedding, then 2 per layer)',
  plain: 'no scaling',
  scaled: '× 1/√(2L)',
  estimate: 'var(emb) + 2L·v',
  at: (depth) => `At ${depth} layers the final stream’s mean square is `,
  scaledAt: ' without scaling and ',
  with: ' with it',
  growth: (depth) => `From 1 to ${depth} layers it grew ×`,
  growthScaled: ' without scaling and ×',
  estimateAt: (depth) =>
    `The linear estimate var(embedding) + 2L·v (v, one increment’s variance, read off the 1-layer model) gives `,
  estimateEnd: (depth) => ` at ${depth} layers.`,
  end: '.',
  estimateOff: (percent) =>
    `The measured growth is ${percent}% of the linear estimate at the deepest model: the increments are not quite independent with equal variance, as the formula assumes, but the trend is the chapter’s.`,
  estimateOn: 'The measured growth follows the linear estimate, as the chapter’s Var(ΣΔ) = Nσ² says.',
};
