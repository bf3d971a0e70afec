// Text of the self-check exercises (web/components/self-check/exercises.js), by exercise id, in Chinese:
// { question, hint, solution(answerText), choices: { value: label } for a choice }.

const NORM_JOBS = {
  'mlp-input': 'MLP 的输入（MLP 之前的 Norm）',
  'attn-output': '注意力的输出，在加回主干之前',
  sum: '相加的结果 h + attention(h)，也就是主干本身',
};

export default {
  'trunk-add': {
    question: 'Pre-Norm 层计算 h ← h + F(Norm(h))。子层的结果 F(Norm(h)) 怎样进入主干？',
    hint: '看公式：h 和 F 之间是什么运算？',
    solution: () => '它被加到 h 上：主干 h 原样通过，每个子层往上加一个增量。',
    choices: {
      add: '加到 h 上',
      replace: '替换掉 h',
      multiply: '与 h 相乘',
    },
  },
  'gradient-decay': {
    question: '32 层、没有残差的网络，每层把梯度乘以 0.8。输出端的梯度有多大比例能传到第一层？（例如 0.05 或 5e-2）',
    hint: '这些因子是相乘的：0.8 × 0.8 × …… 共 32 次。',
    solution: (answer) => `0.8³² ≈ ${answer}，不到千分之一。梯度流实验（32 层、增益 0.8、关闭残差）量出的正是这个数。`,
  },
  'residual-jacobian': {
    question: '有残差时，一层计算 h + f(h)。它的雅可比矩阵是什么？',
    hint: '逐项求导：h 对 h 的导数是单位矩阵。',
    solution: () =>
      'I + f′：即使 f′ 很小，单位矩阵也能把梯度传下去（打开残差时，梯度流实验里第一层拿到的梯度比最后一层还多）。',
    choices: {
      'identity-plus': 'I + f′',
      'f-only': 'f′',
      identity: 'I',
    },
  },
  'rmsnorm-by-hand': {
    question: 'x = [2, -1, 3, 0]，g 全为 1，忽略 ε，RMSNorm 输出的第一个分量是多少？（保留三位小数）',
    hint: '先求平方的均值，再开方，然后用 2 除以它。',
    solution: (answer) => `(4 + 1 + 9 + 0) / 4 = 3.5，√3.5 = 1.871，2 / 1.871 = ${answer}。`,
  },
  'layernorm-by-hand': {
    question: '同一个 x = [2, -1, 3, 0] 做 LayerNorm（γ 全 1，β 全 0，忽略 ε），第二个分量是多少？',
    hint: '先减去均值，再除以标准差。',
    solution: (answer) => `均值为 1，-1 变成 -2；方差 2.5，标准差 1.581，-2 / 1.581 = ${answer}。`,
  },
  'scale-invariance': {
    question: '把 x 乘以 10 再做 RMSNorm（忽略 ε），结果会怎样？',
    hint: 'RMS 衡量的是长度：x 变长 10 倍时，它怎样变？',
    solution: () => '输出不变：RMS 也变成 10 倍，比值不变。RMSNorm 只保留方向，丢掉长度。',
    choices: {
      same: '输出不变',
      'ten-times': '输出放大 10 倍',
      tenth: '输出缩小到 1/10',
    },
  },
  'gemma-port': {
    question:
      '刚初始化的 Gemma Norm 存的是 w = [0, 0, 0, 0]。某个移植版本用了 Llama 的 x / rms · w，而不是 x / rms · (1 + w)，对 x = [2, -1, 3, 0] 做归一化。输出的第一个分量是多少？',
    hint: '1.069 乘以存下来的 w 是多少？',
    solution: (answer) =>
      `${answer}：所有输出都变成 0，而 Gemma 算出的是 1.069（1 + 0 = 1）。移植时每个 Norm 的约定都要核对。`,
  },
  'trunk-normalized': {
    question: '下面哪种放置方式（引擎里的名字）不对主干做归一化？',
    hint: '写成公式：是整个更新 h + …… 都在 Norm 里面，还是只有子层的输入？',
    solution: () =>
      'pre：h + F(Norm(h)) 只归一化子层读到的那份副本。post 的 Norm(h + F(h)) 与 deepnorm 的 Norm(αh + F(h)) 归一化的是和，也就是主干本身。',
    choices: {
      post: 'post',
      pre: 'pre',
      deepnorm: 'deepnorm',
    },
  },
  'llama-name': {
    question: '在 Llama 的解码器层里，post_attention_layernorm 归一化的是什么？',
    hint: '跟着 hidden_states 走：post_attention_layernorm 的输出交给了哪个模块？',
    solution: () => 'MLP 的输入：名字里有 post，它却是 MLP 之前的 Norm，Llama 是 Pre-Norm。',
    choices: NORM_JOBS,
  },
  'qk-bound': {
    question: '像 Qwen3 那样逐头做 QK-Norm、g 全为 1 时，注意力分数 q·k / √d_head 的上限是什么？',
    hint: 'RMSNorm 之后，一个 d 维向量有多长？再用柯西-施瓦茨不等式。',
    solution: () =>
      '归一化后的向量长度都是 √d_head，所以 q·k ≤ d_head，分数 ≤ √d_head（d_head = 128 时约 11.3），与权重多大无关。',
    choices: {
      'sqrt-d': '√d_head（再乘以学到的 g）',
      one: '1',
      none: '没有上限：随权重增长',
    },
  },
  'softcap-50': {
    question: 'Gemma 2 把注意力分数的上限设为 c = 50。分数 100 会变成多少？（保留一位小数）',
    hint: 'softcap(x) = c · tanh(x / c)；tanh(2) ≈ 0.964。',
    solution: (answer) => `50 · tanh(100 / 50) = 50 · tanh(2) = ${answer}：在上限以内，永远不会超过。`,
  },
  'softcap-small': {
    question: '最终 logits 的上限 c = 30 时，logit 10 会变成多少？（保留两位小数）',
    hint: '小的分数几乎原样通过：tanh(1/3) ≈ 0.3215。',
    solution: (answer) => `30 · tanh(10 / 30) = ${answer}：小的 logit 几乎不变。`,
  },
  'llama-norm-params': {
    question:
      'Llama-3.1-8B 的归一化层一共有多少个参数？（32 层，d_model = 4096，RMSNorm，Pre-Norm，末尾还有一个 Norm）',
    hint: '先数 Norm 的个数：每层两个，再加末尾一个。每个 RMSNorm 每一维有一个权重。',
    solution: (answer) => `(32 × 2 + 1) × 4096 = 65 × 4096 = ${answer}，约占 80 亿参数的 0.003%。`,
  },
  'gpt2-scaling': {
    question: 'GPT-2 把写入主干的矩阵乘以 1/√N，N 是残差层数。12 层的模型，这个系数是多少？（保留三位小数）',
    hint: '每层有两个子层往主干里写，所以 N 是层数的两倍。',
    solution: (answer) => `N = 2 × 12 = 24，1/√24 = ${answer}；实验室的引擎对 attn.o 和 mlp.down 用的正是这个系数。`,
  },
  'gpt2-which': {
    question: 'GPT-2 的 1/√N 缩放缩小的是哪些矩阵？',
    hint: '只有输出会被加到主干上的那些矩阵。',
    solution: () => '往残差流里写的两个：注意力的输出投影（o_proj）和 MLP 的降维投影（down_proj）。',
    choices: {
      'attn.o and mlp.down': '注意力的输出投影与 MLP 的降维投影',
      'q and k': 'query 与 key 投影',
      embeddings: '词嵌入',
    },
  },
  'gemma-name': {
    question: '在 Gemma 2 的解码器层里，post_attention_layernorm 归一化的是什么？',
    hint: '在 Gemma 2 里，这一行紧跟在 self_attn 之后、残差相加之前。',
    solution: () => '注意力的输出，在相加之前：Gemma 2 是三明治结构。同样的名字在 Llama 里是 MLP 之前的 Norm。',
    choices: NORM_JOBS,
  },
};
