// Text of <rl-warmup-race> in English.
const RUNS = {
  'post-false': 'Post-Norm, no warmup',
  'post-true': 'Post-Norm, warmup',
  'pre-false': 'Pre-Norm, no warmup',
  'pre-true': 'Pre-Norm, warmup',
};

export default {
  runs: RUNS,
  title: 'Warmup or not: Post-Norm and Pre-Norm twins',
  hint: 'Four twins train at the same learning rate: watch whether Post-Norm without warmup falls behind, stuck near the unigram loss, while Pre-Norm barely cares.',
  sectionLink: 'Read the section',
  layers: 'Layers',
  steps: 'Training steps',
  lr: 'Peak learning rate',
  warmupSteps: 'Warmup steps',
  run: 'Run the four trainings',
  idle: 'Press “Run the four trainings”: four small decoders train in a background worker (the time left shows once they start; you can cancel).',
  chartTitle:
    'Training loss per step: faint, every step; bold, its moving average (the smoothing that gives the final loss below)',
  chartLabel: 'Line chart: the training loss of Post-Norm and Pre-Norm, each with and without learning-rate warmup',
  stepAxis: 'step',
  lossAxis: 'loss (nats)',
  unigramEntropy: 'unigram entropy: the best loss without context',
  rawRun: (name) => `${name}, every step`,
  final: (name) => `${name}: smoothed final loss `,
  evalLoss: ', held-out loss ',
  diverged: (step) => `, diverged at step ${step}`,
  end: '.',
  postWorse: (gap) =>
    `Post-Norm without warmup ends ${gap} above its warmed-up twin; for Pre-Norm the gap is smaller, as the chapter says.`,
  noEffect:
    'At these settings warmup changes little for either placement: raise the learning rate or the depth to see Post-Norm struggle without it.',
};
