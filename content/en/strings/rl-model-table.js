// Text of <rl-model-table> in English.
export default {
  title: 'What the models chose, drawn',
  hint: 'Pick a model: its decoder layer is drawn from the same settings as the lab’s decoder runs (placement, norm kind, QK-Norm, soft-caps). Orange boxes are norms.',
  sectionLink: 'Read the section',
  models: 'Model',
  modelNames: { transformer: 'Original Transformer (Post-LN)' },
  norm: 'Norm',
  eps: 'ε in config.json',
  noEps: 'not given in the chapter',
  placement: 'Placement',
  normsPerLayer: 'Norms per layer',
  features: 'Other stability features',
  none: '—',
  placements: {
    post: 'Post-Norm: Norm(h + F(h)), no final norm',
    pre: 'Pre-Norm: h + F(Norm(h)), plus a final norm',
    sandwich: 'sandwich: h + Norm(F(Norm(h))), plus a final norm',
    olmo2: 'norm after the sublayer output: h + Norm(F(h)), plus a final norm',
    deepnorm: 'DeepNorm: Norm(α·h + F(h))',
  },
  // the layer's norms, then those inside attention in one bracket: "2 (plus q_norm, k_norm and v_norm)"
  normCount: (layer, qk, extra) => {
    const more = [...(qk ? ['q_norm', 'k_norm'] : []), ...({ 1: ['v_norm'], 2: ['2 inside MLA'] }[extra] ?? [])];
    if (!more.length) return String(layer);
    return `${layer} (plus ${more.length > 1 ? `${more.slice(0, -1).join(', ')} and ` : ''}${more.at(-1)})`;
  },
  featureText: {
    crossAttention:
      "the original Transformer's decoder has a third norm, around cross-attention (not drawn: this is a decoder-only block)",
    residualInit: 'the projections that write into the residual stream start scaled by 1/√N',
    qkNorm: "QK-Norm: RMSNorm over each head's q and k",
    qkNormWhole: 'QK-Norm over the whole projections: one RMSNorm over all of q (hidden_size wide), one over all of k',
    noQkvBias: 'no bias on the q, k, v projections',
    mlaNorms:
      'MLA normalizes its compressed vectors c_q and c_kv with an RMSNorm each (q_a_layernorm, kv_a_layernorm, drawn beside attention; the lab’s decoder has no MLA, so a run leaves them out)',
    softcaps: 'soft-caps: attention scores at 50, output logits at 30',
    noSoftcap: 'no soft-capping (both fields null in config.json)',
    qkvNorm: 'QK-Norm, and a norm on v as well (the lab’s decoder runs q and k only)',
    finalSoftcapOnly: 'output logits soft-capped at 30, attention scores not',
  },
  diagram: (model) => `The block: ${model}`,
  runInLab: 'Run this block in the placement lab',
  runHere: 'Run this block at a small size',
  handedOver: (placement, norm, qkNorm) =>
    `The placement lab now runs ${placement} alone, with ${norm}${qkNorm ? ' and QK-Norm' : ''} as this block has them: the gradients of its layers at initialization.`,
  handoverPlacement: { post: 'Post-Norm', pre: 'Pre-Norm', sandwich: 'the sandwich', olmo2: "OLMo 2's placement" },
  stackTitle: (n, name, d) =>
    `${name}'s block at a small size: the gradient norm of each layer's MLP down-projection at initialization (${n} layers, d = ${d})`,
  layer: 'layer',
  gradNorm: '‖∂L/∂W_down‖',
  stackNote:
    "The small stack runs this block's placement, norm kind and QK-Norm. The experiment has no soft-cap setting: at initialization the scores stay far below caps of 30 or 50, where cap·tanh(x/cap) is almost x.",
};
