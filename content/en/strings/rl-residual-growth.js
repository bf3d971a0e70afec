// Text of <rl-residual-growth> in English.
import { QWEN_EMBEDDING, QWEN_TOP } from '../../measurements.js';

const QWEN_GROWTH = `${QWEN_EMBEDDING} → ${QWEN_TOP} (×${Math.round(QWEN_TOP / QWEN_EMBEDDING)})`;
// A placement's name as it starts a sentence ("sandwich" is lower case in a list, not at the start).
const capitalized = (name) => name[0].toUpperCase() + name.slice(1);

export default {
  title: 'How the residual stream grows',
  hint: 'Under Pre-Norm nothing normalizes the trunk, so its length keeps growing layer after layer while each increment keeps its own scale: the increment-to-stream ratio falls with depth. Train the model a few hundred steps, or look at the shipped trained toy set against itself before training, to see the growth the chapter measured; switch the placement to see what Post-Norm, sandwich and OLMo 2 do to the trunk.',
  placement: 'Norm placement',
  names: { pre: 'Pre-Norm', post: 'Post-Norm', sandwich: 'sandwich', olmo2: 'OLMo 2' },
  sectionLink: 'Read the section',
  layers: 'Layers',
  trainSteps: 'Training steps before measuring',
  lr: 'Learning rate',
  run: 'Train and measure',
  pending: (steps) => `Press “Train and measure” to train ${steps} steps (this takes a while; you can cancel).`,
  normTitle: 'Length of the residual stream |h| (mean over positions)',
  normLabel: (layers, name) =>
    `Line chart: the residual stream’s length at each of the ${2 * layers + 1} stream points of a ${layers}-layer ${name} decoder`,
  ratioTitle: 'Increment-to-stream ratio |Δ| / |h| per layer (Δ: what the sublayer adds, F(Norm(h)) under Pre-Norm)',
  ratioLabel: (layers) =>
    `Line chart, log scale: the ratio of each increment to the stream it is added to, attention and MLP, for each of ${layers} layers`,
  pointAxis: 'stream point (0 = embedding)',
  layerAxis: 'layer',
  stream: '|h|',
  attention: 'attention',
  mlp: 'MLP',
  norms: (steps) => `${steps ? `After ${steps} training steps` : 'At initialization'} the stream’s length goes from `,
  normsTo: ' at the embedding to ',
  normsEnd: ' at the top (×',
  close: ').',
  ratios: (last) => `Increment-to-stream ratio from layer 0 to layer ${last}: attention `,
  ratiosTo: ' → ',
  ratiosMlp: ', MLP ',
  ratiosEnd: '.',
  loss: 'Loss on the measured text window: ',
  toyNames: { 'toy-llama': 'toy Llama', 'toy-olmo2': 'toy OLMo 2' },
  toyTitle: (name, tokens) =>
    `The shipped ${name}, trained and before training: |h| after each layer at the last of ${tokens} characters of its probe text`,
  toyLabel:
    'Line chart: the residual stream’s length after each layer of a shipped trained toy and of the same toy before training',
  toyAxis: 'after layer (0 = embedding)',
  toyTrainedSeries: 'trained toy',
  toyUntrainedSeries: 'same toy before training',
  toyTrained: (name, steps) => `The shipped ${name}, trained ${steps} steps: the stream’s length goes from `,
  toyUntrained: 'The same toy before training (its own initial weights): from ',
  toyFailed: (message) => `The shipped toy could not be measured: ${message}`,
  untrained: (growth) =>
    `At initialization (std 0.02) the increments are small and the trunk grows only ×${growth} from bottom to top. The chapter measured ${QWEN_GROWTH} from the embedding to the last layer of a trained Qwen2.5-0.5B: the growth comes from training, so train this model and compare.`,
  trained: (growth) =>
    `This small model, trained briefly, grew its stream ×${growth} from bottom to top; the chapter measured ${QWEN_GROWTH} from the embedding to the last layer of the trained 24-layer Qwen2.5-0.5B. Same direction, a smaller model and far less training.`,
  postFlat: (low, high) =>
    `Post-Norm normalizes the trunk after every addition, Norm(h + F(h)), so after each sublayer its length is back at √d·|g| (8 for d = 64 and g = 1): here between ${low} and ${high} at every stream point. Nothing accumulates, trained or not.`,
  normalizedIncrements: (name, shortest, longest, bottom, top, epsShrunk) =>
    `${capitalized(name)} normalizes every increment before adding it, h + Norm(F(·)), so small weights do not make small increments: they measure ${shortest} to ${longest} here (a normalized vector of d = 64 is √64 = 8 long${epsShrunk ? '; the shortest come where F is so small that eps dominates its mean square' : ''}). The trunk, their running sum, grows from ${bottom} to ${top}.`,
};
