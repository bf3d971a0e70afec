// Text of the shared block diagram (web/components/shared/block-diagram.js) in Chinese.
const SLOT_ZH = { before: '之前', after: '之后', trunk: '相加之后' };

export default {
  norm: { layernorm: 'LayerNorm', rmsnorm: 'RMSNorm', rmsnorm_gemma: 'RMSNorm (1 + w)', dyt: 'DyT', none: '无 Norm' },
  attn: '注意力',
  mlp: 'MLP',
  qkNorm: 'QK-Norm',
  softcap: (cap) => `soft-cap ${cap}`,
  input: 'h（来自词嵌入）',
  lmHead: 'lm_head → logits',
  finalNorm: '末尾 Norm',
  layers: (n) => (n ? `× ${n} 层` : '× 每一层'),
  skipScaled: '× α',
  noSkip: '无残差',
  summary: (layout) => {
    const where = (sub) =>
      sub.norms.length
        ? sub.norms.map((slot) => `${sub.name === 'attn' ? '注意力' : 'MLP'}${SLOT_ZH[slot]}`).join('、')
        : null;
    const placed = layout.sublayers.map(where).filter(Boolean);
    return [
      `一个解码器层的结构图，放置方式 ${layout.placement}：`,
      placed.length ? `Norm 位于${placed.join('、')}` : '层内没有 Norm',
      layout.sublayers[0].qkNorm ? '；q 和 k 各过一次 QK-Norm' : '',
      layout.sublayers[0].softcap !== null ? `；注意力分数 soft-cap 为 ${layout.sublayers[0].softcap}` : '',
      layout.finalNorm ? '；lm_head 之前有末尾 Norm' : '；没有末尾 Norm',
      layout.finalSoftcap !== null ? `；输出 logits soft-cap 为 ${layout.finalSoftcap}` : '',
      '。',
    ].join('');
  },
};
