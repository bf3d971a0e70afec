// Text of <rl-softcap-explorer> in English.
export default {
  title: 'Soft-cap explorer',
  hint: 'Small scores pass almost unchanged; large ones bend smoothly toward ±c and never cross it. Unlike a hard clip, the gradient never drops to zero.',
  sectionLink: 'Read the section',
  cap: 'Cap c',
  capSlider: 'Drag the cap c',
  capHint: 'Gemma 2: 50 on attention scores, 30 on the final logits.',
  preset: (cap) => `c = ${cap}`,
  presetsLabel: 'Caps used by Gemma 2',
  curveTitle: 'softcap(x) = c·tanh(x/c), the identity and a hard clip',
  curveLabel: (cap) =>
    `Line chart: softcap with cap ${cap}, the identity and a hard clip at ±${cap}, for x from -200 to 200`,
  gradientTitle: 'Gradient d/dx: softcap keeps a little, the clip none',
  gradientLabel: (cap) => `Line chart: the gradient of softcap with cap ${cap} and of the hard clip`,
  softcap: 'softcap',
  identity: 'identity x',
  clip: 'hard clip',
  tableTitle: 'The chapter’s table, computed live',
  x: 'score x',
  capColumn: (cap) => `c = ${cap}`,
  yourCap: (cap) => `your c = ${cap}`,
  gradientColumn: (cap) => `gradient at c = ${cap}`,
};
