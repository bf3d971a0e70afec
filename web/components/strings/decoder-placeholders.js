// What each decoder-engine widget will show, per page language (shown until the engine's widgets arrive).
export const PLACEHOLDER_STRINGS = {
  en: {
    badge: 'Coming with the decoder engine',
    arrives: 'This live experiment arrives with the decoder engine (a later issue). It will compute, in your browser:',
    widgets: {
      'rl-residual-growth': ['Residual-stream growth', 'the length of the residual stream and the increment-to-stream ratio after every layer of a small Pre-Norm decoder, next to the shape measured on a real 24-layer model (0.47 at the embedding, 76 near the top).'],
      'rl-gradient-flow': ['Gradient flow through 32 layers', 'the gradient norm at every layer of a 32-layer stack with and without residual connections: without them a per-layer factor of 0.8 leaves about 0.0008 and 1.2 gives about 342; with them the identity path carries the gradient down.'],
      'rl-placement-lab': ['Post-Norm, Pre-Norm, sandwich, OLMo 2', 'the gradient norm of every layer at initialization for each norm placement, and how the last layer’s gradient changes with depth (Xiong et al., 2020).'],
      'rl-warmup-race': ['Warmup or not', 'loss curves of Post-Norm and Pre-Norm twins trained with and without learning-rate warmup at the same learning rate.'],
      'rl-qk-norm-lab': ['QK-Norm and the logit bound', 'the largest attention logit and the softmax entropy as the q and k weights grow, with and without QK-Norm; with it the logit stays below √d_head (√128 ≈ 11.3).'],
      'rl-init-scaling': ['Initialization and depth', 'the variance of the residual stream against depth, with and without GPT-2’s 1/√(2L) scaling of the projections that write into it.'],
    },
  },
  zh: {
    badge: '随解码器引擎推出',
    arrives: '这个实时实验将随解码器引擎一起推出（后续的 issue）。届时它会在你的浏览器里现场计算：',
    widgets: {
      'rl-residual-growth': ['残差流的增长', '一个小型 Pre-Norm 解码器每一层之后残差流的长度，以及增量与主干之比，并与在真实 24 层模型上测得的形状对照（词嵌入处 0.47，接近顶部时 76）。'],
      'rl-gradient-flow': ['梯度穿过 32 层', '32 层堆叠在有、无残差连接时每一层的梯度范数：没有残差时，每层 0.8 倍只剩约 0.0008，1.2 倍则放大到约 342；有残差时，恒等路径把梯度原样传回去。'],
      'rl-placement-lab': ['Post-Norm、Pre-Norm、三明治与 OLMo 2', '每种归一化位置在初始化时各层的梯度范数，以及最后一层的梯度怎样随层数变化（Xiong 等，2020）。'],
      'rl-warmup-race': ['要不要学习率预热', '在相同学习率下，Post-Norm 与 Pre-Norm 两个同构模型在有、无预热时的 loss 曲线。'],
      'rl-qk-norm-lab': ['QK-Norm 与分数上界', '随着 q、k 权重变大，有、无 QK-Norm 时最大的注意力分数和 softmax 的熵；有 QK-Norm 时分数不超过 √d_head（√128 ≈ 11.3）。'],
      'rl-init-scaling': ['初始化与深度', '残差流的方差随层数的变化，以及用不用 GPT-2 对写回残差流的投影乘 1/√(2L) 的区别。'],
    },
  },
};
