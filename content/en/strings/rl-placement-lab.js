// Text of <rl-placement-lab> in English.
const NAMES = { post: 'Post-Norm', pre: 'Pre-Norm', sandwich: 'sandwich', olmo2: 'OLMo 2', deepnorm: 'DeepNorm' };

export default {
  names: NAMES,
  title: 'Post-Norm, Pre-Norm, sandwich, OLMo 2: gradients at initialization',
  hint: 'Compare the last layer’s gradient as the model gets deeper: Xiong et al. (2020) prove it stays put for Post-Norm and shrinks like 1/√L for Pre-Norm, whose growing stream is divided by the final norm.',
  sectionLink: 'Read the section',
  placements: 'Placements',
  layers: 'Layers (per-layer chart)',
  norm: 'Norm',
  qkNorm: 'QK-Norm (RMSNorm over each head’s q and k)',
  init: 'Initialization',
  normal: 'normal, std 0.02',
  xavier: 'Xavier (the paper’s assumption)',
  zeroQK: 'uniform attention (q, k = 0, as in the theorem)',
  layerTitle: 'Gradient norm of each layer’s MLP down-projection (log scale)',
  layerLabel: (layers) =>
    `Line chart, log scale: the gradient norm of the MLP down-projection in each of ${layers} layers, per norm placement`,
  depthTitle: 'The last layer’s gradient against depth (log–log)',
  depthLabel:
    'Line chart, log scales: the last layer’s MLP gradient norm for models of 6 to 48 layers, per norm placement',
  // the quantities a saved CSV's columns hold
  layerQuantity: 'gradient norm of the MLP down-projection',
  depthQuantity: 'gradient norm of the last layer’s MLP down-projection',
  layerAxis: 'layer',
  depthAxis: 'layers L',
  depthRatio: (name, from, to) => `${name}: from ${from} to ${to} layers the last layer’s gradient changes ×`,
  profileRatio: ' (top layer / layer 0 in the per-layer chart: ×',
  close: ')',
  sqrt: (factor) => `A 1/√L law would give ${factor}.`,
  // profile: Post-Norm's top layer over its first; depth: its last layer from the shallowest model to the deepest
  postFlat: (profile, depth, from, to, lawHolds) =>
    `Unlike the paper’s Figure 3, Post-Norm’s per-layer gradients here are flat (the top layer’s is ${profile} the first’s) rather than growing toward the output: this small decoder (d = 64, a few layers, this init) does not reproduce that picture, ${lawHolds ? `while the depth law of Theorem 1 does hold (its last layer’s gradient moves ${depth} from ${from} to ${to} layers).` : `and its last layer’s gradient moves ${depth} from ${from} to ${to} layers, more than Theorem 1’s depth law allows.`}`,
};
