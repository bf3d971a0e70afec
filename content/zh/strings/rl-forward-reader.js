// Text of <rl-forward-reader> in Chinese.
// A space between Chinese text and a Latin name, none before a Chinese one (是 Pre-Norm, 是三明治).
const spaced = (name) => (/^[\x20-\x7e]/.test(name) ? ` ${name}` : name);

export default {
  title: '读懂一个 forward()',
  hint: '每段代码都是一个解码器层的 forward()，仿照某个模型的代码风格写成。判断它用的是哪种结构；把鼠标移到（或用 Tab 聚焦）某一行，右边的结构图会标出对应的部分，反过来也可以。',
  sectionLink: '阅读这一节',
  snippet: '代码片段',
  codeLabel: (model) => `仿照 ${model} 风格的 forward()`,
  diagramTitle: '这份配置搭出的层',
  diagramLabel: '这一层的结构图（回答之后会说出它的结构名称）',
  diagramWait: '先说出它是哪种结构：结构图画出了 Norm 的位置，所以它随答案一起出现。',
  answer: '这是哪种结构？',
  placementNames: {
    pre: 'Pre-Norm',
    post: 'Post-Norm',
    sandwich: '三明治',
    olmo2: 'OLMo 2（归一化子层输出）',
    deepnorm: 'DeepNorm（Post-Norm，残差路径乘 α）',
  },
  formulaIs: (formula) => `引擎：${formula}`,
  check: '检查',
  pickFirst: '请先选一种结构（方向键切换，回车检查）。',
  right: (model, name) => `答对了：${model} 是${spaced(name)}。`,
  rightDetail: (formula) => `引擎计算的是 h ← ${formula}。`,
  wrong: (name) => `不是${spaced(name)}。`,
  wrongDetail: (formula) =>
    `那种结构计算的是 h ← ${formula}。看标出的几行：每个 Norm 作用在主干上、子层的输入上，还是子层的输出上？`,
  revealed: (model, name, formula) => `${model} 是${spaced(name)}，h ← ${formula}。对照每行的作用再读一遍。`,
  roles: {
    skip: '把主干留给残差路径',
    'skip-scale': '残差路径乘以 α',
    'norm-in': '归一化子层的输入：主干本身不归一化',
    sublayer: '子层本身',
    'norm-out': '在相加之前归一化子层的输出',
    add: '残差相加',
    'norm-after': '归一化相加的结果：主干本身被归一化',
  },
  sublayers: { attn: '注意力', mlp: 'MLP' },
  diagramPart: (sub, role) => `${sub}：${role}`,
  notes: {
    transformer: 'norm1 和 norm2 包住的是 x + 子层(x)：先相加，再在主干上做 Norm。',
    bert: '每个 LayerNorm 的输入都是子层输出加 h：BERT 沿用了原始的 Post-Norm。',
    gpt2: 'ln_1 和 ln_2 只归一化送进子层的那份；相加用的是保存下来的、未归一化的 residual。',
    llama:
      '陷阱在这里：post_attention_layernorm 位于注意力之后、MLP 之前，它归一化的是 MLP 的输入，所以 Llama 是 Pre-Norm。',
    gemma2:
      '四个 Norm：input_layernorm 和 pre_feedforward_layernorm 在子层之前，post_attention_layernorm 和 post_feedforward_layernorm 在子层输出上、相加之前。名字与 Llama 的相同，作用却不同。',
    olmo2: '子层之前没有 Norm：每个子层的输出先归一化，再加到未归一化的主干上。',
    deepnet: 'Norm 包住的是 alpha * x + 子层(x)：主干上的 Post-Norm，残差路径乘以 alpha。',
  },
};
