// Text of <rl-placement-lab> in Chinese.
const NAMES = { post: 'Post-Norm', pre: 'Pre-Norm', sandwich: '三明治', olmo2: 'OLMo 2', deepnorm: 'DeepNorm' };

export default {
  names: NAMES,
  title: 'Post-Norm、Pre-Norm、三明治与 OLMo 2：初始化时的梯度',
  hint: '看最后一层的梯度怎样随层数变化：Xiong 等（2020）证明 Post-Norm 的不随深度变化，Pre-Norm 的按 1/√L 缩小，因为不断变大的残差流最后要被归一化除掉。',
  sectionLink: '阅读这一节',
  placements: '归一化位置',
  layers: '层数（逐层图）',
  norm: 'Norm 类型',
  qkNorm: 'QK-Norm（对每个头的 q、k 做 RMSNorm）',
  init: '初始化',
  normal: '正态分布，标准差 0.02',
  xavier: 'Xavier（论文的假设）',
  zeroQK: '均匀注意力（q、k = 0，与定理一致）',
  layerTitle: '每一层 MLP 下投影的梯度范数（对数坐标）',
  layerLabel: (layers) => `折线图（对数坐标）：各归一化位置下 ${layers} 层中每一层 MLP 下投影的梯度范数`,
  depthTitle: '最后一层的梯度随层数的变化（双对数坐标）',
  depthLabel: '折线图（对数坐标）：6 到 48 层的模型中最后一层 MLP 的梯度范数，按归一化位置',
  // the quantities a saved CSV's columns hold
  layerQuantity: 'MLP 下投影的梯度范数',
  depthQuantity: '最后一层 MLP 下投影的梯度范数',
  layerAxis: '层',
  depthAxis: '层数 L',
  depthRatio: (name, from, to) => `${name}：从 ${from} 层到 ${to} 层，最后一层的梯度变为 ×`,
  profileRatio: '（逐层图中顶层 / 第 0 层：×',
  close: '）',
  sqrt: (factor) => `按 1/√L 的规律应为 ${factor}。`,
  // profile：Post-Norm 顶层与第一层之比；depth：最后一层从最浅模型到最深模型的变化
  postFlat: (profile, depth, from, to, lawHolds) =>
    `与论文图 3 不同，这里 Post-Norm 的逐层梯度是平的（顶层是第一层的 ${profile}），并没有向输出层变大：这个小解码器（d = 64、层数少、这种初始化）没有重现那张图，${lawHolds ? `但定理 1 关于深度的规律成立（从 ${from} 层到 ${to} 层，最后一层的梯度只变了 ${depth}）。` : `而且从 ${from} 层到 ${to} 层，最后一层的梯度变了 ${depth}，超出了定理 1 关于深度的规律所允许的范围。`}`,
};
