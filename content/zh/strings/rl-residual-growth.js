// Text of <rl-residual-growth> in Chinese.
import { QWEN_EMBEDDING, QWEN_TOP } from '../../measurements.js';

const QWEN_GROWTH = `${QWEN_EMBEDDING} → ${QWEN_TOP} (×${Math.round(QWEN_TOP / QWEN_EMBEDDING)})`;
const QWEN_GROWTH_ZH = QWEN_GROWTH.replace(' (', '（').replace(')', '）');

export default {
  title: '残差流是怎样增长的',
  hint: 'Pre-Norm 下没有任何东西对主干做归一化，所以它的长度一层层变大，而每个增量保持自己的尺度：增量与主干之比随深度下降。把模型训练几百步，或者看看随实验室发布的训练好的玩具模型与训练前的它自己的对比，就能看到正文测得的那种增长；切换归一化的位置，看看 Post-Norm、三明治和 OLMo 2 对主干做了什么。',
  placement: '归一化的位置',
  names: { pre: 'Pre-Norm', post: 'Post-Norm', sandwich: '三明治', olmo2: 'OLMo 2' },
  sectionLink: '阅读这一节',
  layers: '层数',
  trainSteps: '测量前的训练步数',
  lr: '学习率',
  run: '训练并测量',
  pending: (steps) => `点击“训练并测量”来训练 ${steps} 步（需要一些时间，可以取消）。`,
  normTitle: '残差流的长度 |h|（对各位置取平均）',
  normLabel: (layers, name) => `折线图：${layers} 层 ${name} 解码器在 ${2 * layers + 1} 个残差流位置上的长度`,
  ratioTitle: '每一层的增量与主干之比 |Δ| / |h|（Δ：子层加上的量，Pre-Norm 下为 F(Norm(h))）',
  ratioLabel: (layers) => `折线图（对数纵轴）：${layers} 层中每一层注意力与 MLP 的增量与它所加到的残差流之比`,
  pointAxis: '残差流位置（0 = 词嵌入）',
  layerAxis: '层',
  stream: '|h|',
  attention: '注意力',
  mlp: 'MLP',
  norms: (steps) => `${steps ? `训练 ${steps} 步之后` : '初始化时'}，残差流的长度从词嵌入处的 `,
  normsTo: ' 增长到顶部的 ',
  normsEnd: '（×',
  close: '）。',
  ratios: (last) => `从第 0 层到第 ${last} 层，增量与主干之比：注意力 `,
  ratiosTo: ' → ',
  ratiosMlp: '，MLP ',
  ratiosEnd: '。',
  loss: '在测量所用文本窗口上的 loss：',
  toyNames: { 'toy-llama': '玩具 Llama', 'toy-olmo2': '玩具 OLMo 2' },
  toyTitle: (name, tokens) =>
    `随实验室发布的${name}，训练后与训练前：在它的探测文本 ${tokens} 个字符的最后一个位置上，每层之后的 |h|`,
  toyLabel: '折线图：一个随实验室发布的训练好的玩具模型，和训练前的同一个模型，每层之后残差流的长度',
  toyAxis: '第几层之后（0 = 词嵌入）',
  toyTrainedSeries: '训练后的玩具',
  toyUntrainedSeries: '训练前的同一个玩具',
  toyTrained: (name, steps) => `随实验室发布的${name}，训练了 ${steps} 步：残差流的长度从词嵌入处的 `,
  toyUntrained: '训练前的同一个玩具（它自己的初始权重）：从词嵌入处的 ',
  toyFailed: (message) => `没能测量随实验室发布的玩具模型：${message}`,
  untrained: (growth) =>
    `初始化时（标准差 0.02）增量很小，主干从底到顶只增长了 ×${growth}。正文在训练好的 Qwen2.5-0.5B 上测得，从词嵌入到最后一层是 ${QWEN_GROWTH_ZH}：增长来自训练，训练一下这个模型再对比。`,
  trained: (growth) =>
    `这个小模型经过短暂训练，残差流从底到顶增长了 ×${growth}；正文在训练好的 24 层 Qwen2.5-0.5B 上测得，从词嵌入到最后一层是 ${QWEN_GROWTH_ZH}。方向一致，只是模型更小、训练少得多。`,
  postFlat: (low, high) =>
    `Post-Norm 在每次相加之后都对主干做归一化，Norm(h + F(h))，所以每个子层之后它的长度都回到 √d·|g|（d = 64、g = 1 时为 8）：这里每个位置都在 ${low} 到 ${high} 之间。无论训练与否，都不会累积。`,
  normalizedIncrements: (name, shortest, longest, bottom, top, epsShrunk) =>
    `${name} 在加入之前先对每个增量做归一化，h + Norm(F(·))，所以权重小并不会让增量变小：这里增量的长度在 ${shortest} 到 ${longest} 之间（d = 64 的归一化向量长 √64 = 8${epsShrunk ? '；最短的那些出现在 F 小到 eps 主导其均方的地方' : ''}）。主干是这些增量的累加，从 ${bottom} 增长到 ${top}。`,
};
