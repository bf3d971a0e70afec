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
  chartLabel: (layers, gain, type) =>
    `折线图（对数坐标）：增益 ${gain}、共 ${layers} 层时每一层的梯度范数，有残差与无残差；层的类型：${type}`,
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
    `有残差时，第 0 层收到的梯度是顶层的 ${ratio} 倍，相差不到 ${band} 倍：恒等路径把梯度传了下去，和这一节说的一样。再试试大分支：那时有残差的梯度会随深度增长。`,
  mlpNote: 'MLP 层里有 GELU，衰减不再严格是每层 gain 倍；gain^(L−l) 这条线只作参考。',
  // the model below the random stack (model-view.js)
  modelTitle: '训练过的模型里的同一种梯度',
  modelHint:
    '打开一个训练过的模型，实验室会在它的文本上做一次反向传播：看梯度到达每一层之前的残差流时有多大。一条是模型本来的样子（带着跳连），另一条把这一层以上的跳连都从反向传播里拿掉，梯度只能一层层穿过分支。两条都以顶层（最终 Norm 之前的残差流）为 1，旁边是上面所选增益的 gain^(L−l)。',
  model: '模型',
  modelNone: '不选',
  modelFiles: '或者你自己的检查点文件（config.json、model.safetensors、tokenizer.json），或者一个 .gguf 文件',
  modelOpenStored: '测这个已存的模型',
  modelProgressLabel: '梯度计算的进度',
  modelCancel: '取消',
  modelCancelled: '已取消。',
  modelReading: (done, total) =>
    total
      ? `读取文件：${(done / 1e6).toFixed(1)} / ${(total / 1e6).toFixed(1)} MB`
      : `读取文件：${(done / 1e6).toFixed(1)} MB`,
  modelOpening: '正在打开模型……',
  modelRunning: (tokens) => `在 ${tokens} 个词元上做前向和反向……`,
  modelProgress: (percent) => `前向和反向：${percent}%`,
  modelTook: (ms) => `用时 ${(ms / 1000).toFixed(1)} 秒。`,
  modelFailed: (message) => `梯度没能算出来：${message}`,
  modelChartTitle: '每一层之前的残差流上、所有位置合起来的梯度范数（对数坐标；顶层为 1）',
  modelChartLabel: (name, gain) =>
    `折线图（对数坐标）：${name}，每一层之前的残差流上的梯度范数，一条带跳连，一条去掉上方所有跳连；虚线是增益 ${gain} 时的 gain^(L−l)`,
  modelLayerAxis: '第 i 层之前的残差流（i = L：最终 Norm 之前）',
  modelStream: '带跳连',
  modelBranchOnly: '去掉跳连',
  modelWhat: (name, layers, tokens, loss) => `${name}：${layers} 层，${tokens} 个词元，平均下一词元损失 ${loss} nats。`,
  modelStreamAt0: '带着跳连，词嵌入收到的梯度是顶层的这么多倍：',
  modelBranchOnlyAt0: '去掉所有跳连，它只会收到：',
  modelGainL: (gain, layers) => `（上面随机堆叠的 gain^L = ${gain}^${layers} = `,
  gainsCaption: '分支增益 ‖Jᵀg‖ / ‖g‖',
  gainsNote: '分支增益是子层的分支在跳连原样传下的梯度之上又加了多少，g 是子层输出处的梯度：1 表示再加一份同样大的。',
  gainsLayer: '层',
  gainsAttn: '注意力',
  gainsMlp: 'MLP',
};
