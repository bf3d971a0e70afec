// Text of the shared block diagram (web/components/shared/block-diagram.js) in English.
const SLOT_EN = { before: 'before', after: 'after', trunk: 'after the add' };

export default {
  norm: { layernorm: 'LayerNorm', rmsnorm: 'RMSNorm', rmsnorm_gemma: 'RMSNorm (1 + w)', dyt: 'DyT', none: 'no norm' },
  attn: 'Attention',
  mlp: 'MLP',
  qkNorm: 'QK-Norm',
  softcap: (cap) => `soft-cap ${cap}`,
  input: 'h (from the embedding)',
  lmHead: 'lm_head → logits',
  finalNorm: 'final norm',
  layers: (n) => (n ? `× ${n} layers` : '× every layer'),
  skipScaled: '× α',
  noSkip: 'no skip',
  summary: (layout) => {
    const where = (sub) =>
      sub.norms.length
        ? sub.norms.map((slot) => `${SLOT_EN[slot]} ${sub.name === 'attn' ? 'attention' : 'the MLP'}`).join(' and ')
        : null;
    const placed = layout.sublayers.map(where).filter(Boolean);
    return [
      `Block diagram of one decoder layer, placement ${layout.placement}:`,
      placed.length ? `a norm ${placed.join(', ')}` : 'no norm in the layer',
      layout.sublayers[0].qkNorm ? ', QK-Norm on q and k' : '',
      layout.sublayers[0].softcap !== null ? `, attention scores soft-capped at ${layout.sublayers[0].softcap}` : '',
      layout.finalNorm ? '; a final norm before lm_head' : '; no final norm',
      layout.finalSoftcap !== null ? `; output logits soft-capped at ${layout.finalSoftcap}` : '',
      '.',
    ].join('');
  },
};
