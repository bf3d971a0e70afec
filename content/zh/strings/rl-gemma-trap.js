// Text of <rl-gemma-trap> in Chinese.
export default {
  title: 'Gemma 的 (1 + w) 陷阱',
  hint: '同一组存储的权重，分别按训练时的写法和另一种写法来读，后者就是移植出错时的样子。',
  sectionLink: '阅读这一节',
  llamaConvention: '乘 w（Llama、Gemma 4 等多数模型）：',
  gemmaConvention: '乘 (1 + w)（Gemma 1、2、3，Qwen3-Next 的主 RMSNorm）：',
  checkpoint: '存储的权重来自',
  gemma: '乘 (1 + w) 的检查点，例如 Gemma 2、3',
  llama: '乘 w 的检查点，例如 Llama、Gemma 4',
  x: '输入向量 x',
  w: '存储的 Norm 权重 w',
  wHint:
    '即检查点文件里的数值。按 (1 + w) 约定，文件里存的是乘数减 1：刚初始化的 Norm 存的是 w = 0，也就是乘数 1。约定只规定了这么多；训练之后这些值落在哪里，要看训练好的检查点本身。',
  right: '按训练时的写法',
  wrong: '移植时读错',
  rightGemma: '(1 + w) 写法的代码：x̂ · (1 + w)',
  wrongGemma: 'Llama 的代码：x̂ · w',
  rightLlama: 'Llama 的代码：x̂ · w',
  wrongLlama: '(1 + w) 写法的代码：x̂ · (1 + w)',
  reading: (how, code) => `${how}：${code}`,
  normalized: 'x̂ = x / rms(x)',
  chartLabel: '按训练写法与读错后输出的柱状图',
  lengthRatio: '读错后的输出长度 / 正确输出长度',
  cosine: '两者夹角的余弦（1 表示方向相同）',
  flipped: '符号翻转',
  flippedOf: (n, d) => `${d} 个中有 ${n} 个`,
  verdictSame: (cosine, ratio, high) =>
    `读错后的输出与训练时的方向相同（余弦 ${cosine}，不小于 ${high}），长度却是它的 ${ratio}：对这个输入，错误改变的是尺度而不是方向。模型里的每一个 Norm 都会犯这个错，一层接一层，于是每个子层看到的输入大小都不是训练时的样子。`,
  verdictTurned: (cosine, ratio, low, high) =>
    `读错后的输出偏离了训练时的方向（余弦 ${cosine}，在 ${low} 与 ${high} 之间），长度是它的 ${ratio}。模型里的每一个 Norm 都会犯这个错，一层接一层，误差不断累积。`,
  verdictFar: (cosine, ratio, low) =>
    `读错后的输出指向了别处（余弦 ${cosine}，小于 ${low}），长度是训练时的 ${ratio}。模型里的每一个 Norm 都会犯这个错，一层接一层：模型输出乱码。`,
  verdictTrainedZero:
    '按训练时的写法，这个 Norm 输出全为零（每个乘数都是 0），读错的一方却传出了信号：两者之间没有长度比或夹角可言，移植后的模型把从未见过的东西交给了下一层。',
  verdictMisreadZero:
    '读错后这个 Norm 输出全为零（它用的每个乘数都是 0），而训练时这里是有信号的：移植让这一层完全静默了。',
  verdictBothZero: '这里两种读法的输出都全为零：没有可比较的东西。',
};
