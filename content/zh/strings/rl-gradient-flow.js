// Text of <rl-gradient-flow> in Chinese.
export default {
  title: '梯度穿过深层堆叠',
  hint: '从顶层（左）到第 0 层（右）跟着梯度走：没有残差时它按 gain^L 衰减或爆炸；有残差时恒等路径把它传下去，但只有分支较小时它才保持在 1 附近。',
  sectionLink: '阅读这一节',
  layers: '层数 L',
  gain: '每层增益',
  width: '宽度',
  variant: '层的类型',
  linear: '线性（增益 · 随机旋转）',
  mlp: 'MLP（增益 · W₂ GELU(W₁h)）',
  curves: '曲线',
  plain: '无残差',
  residual: '有残差',
  reference: 'gain^(L−l)',
  presetsLabel: '可以试试的设置',
  preset: (gain, layers, kind) =>
    ({ small: `${gain} × ${layers} 层：小分支`, large: `大分支：${gain} × ${layers} 层` })[kind] ??
    `${gain} × ${layers} 层`,
  chartTitle: '每一层输入处的梯度范数（对数坐标；顶层为 1，在最左边：梯度向右一直流到第 0 层）',
  chartLabel: (layers, gain) => `折线图（对数坐标）：增益 ${gain}、共 ${layers} 层时每一层的梯度范数，有残差与无残差`,
  // the quantity a saved CSV's columns hold
  quantity: '该层输入处的梯度范数（顶层为 1）',
  // short enough for a phone's chart (about 300 px): the direction is said in chartTitle
  layerAxis: '第 l 层（顶层在左）',
  plainRatio: (layers) => `无残差时，经过 ${layers} 层后第 0 层收到的梯度是顶层的：`,
  expected: (gain, layers) => `（gain^L = ${gain}^${layers} = `,
  closing: '）',
  residualRatio: '有残差时，第 0 层收到的梯度是顶层的：',
  residualExpected: '（线性层时约为 (1 + gain²)^(L/2) = ',
  chapterMatch: (gain, value) => `正文中的 ${gain}^32 ≈ ${value}：上面测得的比值正是这个数。`,
  chapterOther: '正文给出 0.8^32 ≈ 0.0008 和 1.2^32 ≈ 342：点一个预设即可看到实测值。',
  residualLarge: (factor, total) =>
    `分支这么大时，有残差的梯度反而会增长：每一层在恒等路径之外还加上分支自己的一条路径，每层 ${factor}，到第 0 层共 ${total}。这正是初始化要让分支保持很小的原因；分支小时（增益 0.1），梯度几乎原样传到第 0 层。`,
  residualFlat: (ratio, band) =>
    `有残差时，第 0 层收到的梯度是顶层的 ${ratio}，相差不到 ${band} 倍：恒等路径把梯度传了下去，和这一节说的一样。再试试大分支：那时有残差的梯度会随深度增长。`,
  mlpNote: 'MLP 层里有 GELU，衰减不再严格是每层 gain 倍；gain^(L−l) 这条线只作参考。',
};
