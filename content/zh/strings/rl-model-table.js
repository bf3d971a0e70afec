// Text of <rl-model-table> in Chinese.
export default {
  title: '各模型的选择：画出来',
  hint: '选一个模型，它的解码器层按实验室的解码器运行时用的同一组设置画出来（放置方式、Norm 种类、QK-Norm、soft-cap）。橙色方框就是 Norm。',
  sectionLink: '阅读这一节',
  models: '模型',
  modelNames: { transformer: '原始 Transformer（Post-LN）' },
  norm: '归一化',
  eps: 'config.json 里的 ε',
  noEps: '本章未给出',
  placement: '放置方式',
  normsPerLayer: '每层 Norm 数',
  features: '其他稳定性设计',
  none: '—',
  placements: {
    post: 'Post-Norm：Norm(h + F(h))，末尾没有 Norm',
    pre: 'Pre-Norm：h + F(Norm(h))，末尾另有一个 Norm',
    sandwich: '三明治：h + Norm(F(Norm(h)))，末尾另有一个 Norm',
    olmo2: '子层输出之后：h + Norm(F(h))，末尾另有一个 Norm',
    deepnorm: 'DeepNorm：Norm(α·h + F(h))',
  },
  // the layer's norms, then those inside attention in one bracket: "2（+ q_norm、k_norm、v_norm）"
  normCount: (layer, qk, extra) => {
    const more = [...(qk ? ['q_norm', 'k_norm'] : []), ...({ 1: ['v_norm'], 2: ['MLA 内部 2 个'] }[extra] ?? [])];
    return more.length ? `${layer}（+ ${more.join('、')}）` : String(layer);
  },
  featureText: {
    crossAttention:
      '原始 Transformer 的解码器还有第三个 Norm，套在交叉注意力上（图中没有画：这里画的是只有解码器的结构）',
    residualInit: '写回残差流的投影层，初始化时按 1/√N 缩放',
    qkNorm: 'QK-Norm：每个头的 q、k 各过一次 RMSNorm',
    qkNormWhole: 'QK-Norm 作用在整个投影上：全部 q（宽 hidden_size）一个 RMSNorm，全部 k 一个',
    noQkvBias: 'q、k、v 投影去掉了偏置',
    mlaNorms:
      'MLA 的压缩向量 c_q、c_kv 各过一次 RMSNorm（q_a_layernorm、kv_a_layernorm，画在注意力旁边；实验室的解码器没有 MLA，运行时不含这两个）',
    softcaps: 'soft-cap：注意力分数 50，输出 logits 30',
    noSoftcap: '没有 soft-capping（config.json 里两个字段都是 null）',
    qkvNorm: 'QK-Norm，v 也有一个 Norm（实验室的解码器只运行 q、k 的 Norm）',
    finalSoftcapOnly: '输出 logits soft-cap 为 30，注意力分数不封顶',
  },
  diagram: (model) => `结构图：${model}`,
  runInLab: '在放置实验中运行',
  runHere: '以小规模运行这个结构',
  handedOver: (placement, norm, qkNorm) =>
    `放置实验现在只运行 ${placement}，并按这个结构用 ${norm}${qkNorm ? ' 和 QK-Norm' : ''}：看它各层在初始化时的梯度。`,
  handoverPlacement: { post: 'Post-Norm', pre: 'Pre-Norm', sandwich: '三明治', olmo2: 'OLMo 2 的放置方式' },
  stackTitle: (n, name, d) => `${name} 的结构，小规模：初始化时每层 MLP 下投影的梯度范数（${n} 层，d = ${d}）`,
  layer: '层',
  gradNorm: '‖∂L/∂W_down‖',
  stackNote:
    '小规模的堆叠运行的是这个结构的放置方式、Norm 种类和 QK-Norm。这个实验没有 soft-cap 选项：初始化时的分数远低于 30 或 50 的上限，此时 cap·tanh(x/cap) 几乎就是 x。',
};
