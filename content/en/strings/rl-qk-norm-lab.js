// Text of <rl-qk-norm-lab> in English.
export default {
  title: 'QK-Norm and the logit bound',
  hint: 'Scale the q and k weights up: without QK-Norm the largest logit grows as gain² and the softmax collapses onto one key (entropy → 0); with QK-Norm the logit stays below √d_head and the entropy does not move.',
  sectionLink: 'Read the section',
  dHead: 'Head dimension d_head',
  maxGain: 'Largest q/k gain',
  layers: 'Layers',
  logitTitle: 'Largest attention logit q·k/√d_head against the q/k gain (log–log)',
  logitLabel: (dHead) =>
    `Line chart, log scales: the largest attention logit against the q and k gain, without and with QK-Norm, and the bound √${dHead}`,
  entropyTitle: 'Softmax entropy (nats, mean over heads and queries)',
  entropyLabel: 'Line chart: the softmax entropy against the q and k gain, without and with QK-Norm',
  // the quantities a saved CSV's columns hold
  logitQuantity: 'largest attention logit q·k/√d_head',
  entropyQuantity: 'softmax entropy (nats)',
  gainAxis: 'q/k gain',
  plain: 'no QK-Norm',
  qkNorm: 'QK-Norm',
  bound: '√d_head',
  boundReadout: (dHead) => `The bound √${dHead} = `,
  qkMax: '; the largest QK-Norm logit at any gain: ',
  plainAt: (gain) => `At gain ${gain}, without QK-Norm the largest logit is `,
  entropyAt: ' and the entropy ',
  entropyQk: ' nats (with QK-Norm ',
  nats: ' nats)',
  layer0: 'Layer 0 alone (its input does not depend on the gain): the largest logit grew ',
  layer0Gain: ' while gain² grew ',
  end: '.',
  chapterBound: 'This is the chapter’s d_head = 128, whose bound is √128 ≈ 11.3.',
  belowBound: (ratio) =>
    `With QK-Norm the logit stays at ${ratio}% of the bound, not at it: Cauchy–Schwarz is reached only when a query and a key point the same way, and random weights make them nearly orthogonal. The bound is a ceiling, not the typical value.`,
};
