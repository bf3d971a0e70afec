// The chapter's self-check exercises, one table for both languages. Every right answer is computed when the
// exercise is shown, through the public API or from the engine's own description (lab.describe(), the forward
// reader's snippets, which tests hold to their decoder configs); none is only a stored value.
//   kind 'number'  answer(lab) -> number; accepted within `tolerance` (absolute) or `relative` of it; shown
//                  with `digits` decimals, or in scientific notation (`scientific`)
//   kind 'choice'  choices: [{ value, en, zh }]; answer(lab) -> one of the values
//   en / zh        { question, hint, solution(answerText) }
import { findRow } from '../../lib/options.js';
import { exampleText } from '../config-inspector/examples.js';
import { placementFormulas, stepName } from '../forward-reader/logic.js';
import { SNIPPETS } from '../forward-reader/snippets.js';

const WORKED_X = [2, -1, 3, 0];  // the chapter's worked example, computed by hand with eps ignored
const snippet = (id) => SNIPPETS.find((s) => s.id === id);

// Which job a norm named `name` does in a snippet, as its lines say: the MLP's input, attention's output, or the sum.
function normJob(id, name) {
  const jobs = { 'mlp:norm-in': 'mlp-input', 'attn:norm-out': 'attn-output', 'attn:norm-after': 'sum' };
  const found = Object.keys(jobs).find((key) => stepName(snippet(id), ...key.split(':')) === name);
  return jobs[found];
}

const NORM_JOBS = [
  { value: 'mlp-input', en: 'the MLP\'s input (the norm before the MLP)', zh: 'MLP 的输入（MLP 之前的 Norm）' },
  { value: 'attn-output', en: 'attention\'s output, before it is added to the trunk', zh: '注意力的输出，在加回主干之前' },
  { value: 'sum', en: 'the sum h + attention(h): the trunk itself', zh: '相加的结果 h + attention(h)，也就是主干本身' },
];

export const EXERCISES = [
  {
    id: 'trunk-add', section: 'residual-stream', kind: 'choice',
    choices: [
      { value: 'add', en: 'it is added to h', zh: '加到 h 上' },
      { value: 'replace', en: 'it replaces h', zh: '替换掉 h' },
      { value: 'multiply', en: 'it multiplies h', zh: '与 h 相乘' },
    ],
    // The engine's Pre-Norm formula, "h + F(Norm(h))": the sublayer's result is a term added to h.
    answer: (lab) => (placementFormulas(lab.describe()).pre.startsWith('h + ') ? 'add' : 'replace'),
    en: {
      question: 'In a Pre-Norm layer, h ← h + F(Norm(h)). What happens to the sublayer\'s result F(Norm(h))?',
      hint: 'Look at the formula: which operation joins h and F?',
      solution: () => 'It is added to h: the trunk h passes through unchanged and every sublayer adds an increment to it.',
    },
    zh: {
      question: 'Pre-Norm 层计算 h ← h + F(Norm(h))。子层的结果 F(Norm(h)) 怎样进入主干？',
      hint: '看公式：h 和 F 之间是什么运算？',
      solution: () => '它被加到 h 上：主干 h 原样通过，每个子层往上加一个增量。',
    },
  },
  {
    id: 'gradient-decay', section: 'why-residuals', kind: 'number', relative: 0.02, scientific: true,
    // The linear variant multiplies by gain times a random orthogonal matrix, which keeps lengths: the gradient
    // at the input is exactly gain^32 of the gradient at the output (gradNorms[0], normalized to the output) at
    // any width; width 16 keeps the check instant on the page's thread.
    answer: (lab) => lab.experiments.gradientDecay({ nLayers: 32, gain: 0.8, residual: false, variant: 'linear', width: 16 }).gradNorms[0],
    en: {
      question: 'A stack of 32 layers without residuals; each layer scales the gradient by 0.8. What fraction of the output\'s gradient reaches the first layer? (e.g. 0.05 or 5e-2)',
      hint: 'The factors multiply: 0.8 × 0.8 × … 32 times.',
      solution: (answer) => `0.8³² ≈ ${answer}: less than a thousandth. The gradient-flow experiment (32 layers, gain 0.8, residual off) measures the same number.`,
    },
    zh: {
      question: '32 层、没有残差的网络，每层把梯度乘以 0.8。输出端的梯度有多大比例能传到第一层？（例如 0.05 或 5e-2）',
      hint: '这些因子是相乘的：0.8 × 0.8 × …… 共 32 次。',
      solution: (answer) => `0.8³² ≈ ${answer}，不到千分之一。梯度流实验（32 层、增益 0.8、关闭残差）量出的正是这个数。`,
    },
  },
  {
    id: 'residual-jacobian', section: 'why-residuals', kind: 'choice',
    choices: [
      { value: 'identity-plus', en: 'I + f′', zh: 'I + f′' },
      { value: 'f-only', en: 'f′', zh: 'f′' },
      { value: 'identity', en: 'I', zh: 'I' },
    ],
    // The residual-on experiment keeps the input gradient from vanishing: the identity term survives any f′.
    answer: (lab) => (lab.experiments.gradientDecay({ nLayers: 32, gain: 0.8, residual: true, width: 16 }).gradNorms[0] > 1 ? 'identity-plus' : 'f-only'),
    en: {
      question: 'With a residual, a layer computes h + f(h). What is its Jacobian?',
      hint: 'Differentiate each term: the derivative of h with respect to h is the identity.',
      solution: () => 'I + f′: even when f′ is small, the identity carries the gradient through (with residuals, the gradient-flow experiment\'s first layer gets more gradient than the last, not less).',
    },
    zh: {
      question: '有残差时，一层计算 h + f(h)。它的雅可比矩阵是什么？',
      hint: '逐项求导：h 对 h 的导数是单位矩阵。',
      solution: () => 'I + f′：即使 f′ 很小，单位矩阵也能把梯度传下去（打开残差时，梯度流实验里第一层拿到的梯度比最后一层还多）。',
    },
  },
  {
    id: 'rmsnorm-by-hand', section: 'normalization', kind: 'number', tolerance: 0.002, digits: 3,
    answer: (lab) => lab.rmsNorm(WORKED_X, null, { eps: 0 })[0],
    en: {
      question: 'RMSNorm of x = [2, -1, 3, 0] with g all ones and ε ignored: what is the first component? (three decimals)',
      hint: 'Mean of the squares, then its square root; divide 2 by it.',
      solution: (answer) => `(4 + 1 + 9 + 0) / 4 = 3.5, √3.5 = 1.871, and 2 / 1.871 = ${answer}.`,
    },
    zh: {
      question: 'x = [2, -1, 3, 0]，g 全为 1，忽略 ε，RMSNorm 输出的第一个分量是多少？（保留三位小数）',
      hint: '先求平方的均值，再开方，然后用 2 除以它。',
      solution: (answer) => `(4 + 1 + 9 + 0) / 4 = 3.5，√3.5 = 1.871，2 / 1.871 = ${answer}。`,
    },
  },
  {
    id: 'layernorm-by-hand', section: 'normalization', kind: 'number', tolerance: 0.002, digits: 3,
    answer: (lab) => lab.layerNorm(WORKED_X, null, null, { eps: 0 })[1],
    en: {
      question: 'LayerNorm of the same x = [2, -1, 3, 0] (γ ones, β zeros, ε ignored): what is the second component?',
      hint: 'Subtract the mean first, then divide by the standard deviation.',
      solution: (answer) => `The mean is 1, so -1 becomes -2; the variance is 2.5, its root 1.581, and -2 / 1.581 = ${answer}.`,
    },
    zh: {
      question: '同一个 x = [2, -1, 3, 0] 做 LayerNorm（γ 全 1，β 全 0，忽略 ε），第二个分量是多少？',
      hint: '先减去均值，再除以标准差。',
      solution: (answer) => `均值为 1，-1 变成 -2；方差 2.5，标准差 1.581，-2 / 1.581 = ${answer}。`,
    },
  },
  {
    id: 'scale-invariance', section: 'normalization', kind: 'choice',
    choices: [
      { value: 'same', en: 'the same output', zh: '输出不变' },
      { value: 'ten-times', en: 'an output ten times larger', zh: '输出放大 10 倍' },
      { value: 'tenth', en: 'an output ten times smaller', zh: '输出缩小到 1/10' },
    ],
    answer: (lab) => {
      const y = lab.rmsNorm(WORKED_X, null, { eps: 0 });
      const scaled = lab.rmsNorm(WORKED_X.map((v) => 10 * v), null, { eps: 0 });
      return y.every((v, i) => Math.abs(scaled[i] - v) <= 1e-6) ? 'same' : scaled[0] > y[0] ? 'ten-times' : 'tenth';
    },
    en: {
      question: 'Multiply x by 10 before RMSNorm (ε ignored). What do you get?',
      hint: 'The RMS is a length: what happens to it when x is ten times longer?',
      solution: () => 'The same output: the RMS grows tenfold too, so the ratio does not change. RMSNorm keeps the direction and drops the length.',
    },
    zh: {
      question: '把 x 乘以 10 再做 RMSNorm（忽略 ε），结果会怎样？',
      hint: 'RMS 衡量的是长度：x 变长 10 倍时，它怎样变？',
      solution: () => '输出不变：RMS 也变成 10 倍，比值不变。RMSNorm 只保留方向，丢掉长度。',
    },
  },
  {
    id: 'gemma-port', section: 'precision-and-gemma', kind: 'number', tolerance: 0.002, digits: 3,
    // A fresh Gemma norm stores w = 0; a port with Llama's convention reads it as multiplier 0.
    answer: (lab) => lab.rmsNorm(WORKED_X, [0, 0, 0, 0], { eps: 0, weightOffset: 0 })[0],
    en: {
      question: 'A freshly initialised Gemma norm stores w = [0, 0, 0, 0]. A port that uses Llama\'s x / rms · w instead of x / rms · (1 + w) normalizes x = [2, -1, 3, 0]. What is the first output component?',
      hint: 'What is 1.069 times the stored w?',
      solution: (answer) => `${answer}: every output is zero, where Gemma computes 1.069 (1 + 0 = 1). Check the convention of every norm when porting.`,
    },
    zh: {
      question: '刚初始化的 Gemma Norm 存的是 w = [0, 0, 0, 0]。某个移植版本用了 Llama 的 x / rms · w，而不是 x / rms · (1 + w)，对 x = [2, -1, 3, 0] 做归一化。输出的第一个分量是多少？',
      hint: '1.069 乘以存下来的 w 是多少？',
      solution: (answer) => `${answer}：所有输出都变成 0，而 Gemma 算出的是 1.069（1 + 0 = 1）。移植时每个 Norm 的约定都要核对。`,
    },
  },
  {
    id: 'trunk-normalized', section: 'placement', kind: 'choice',
    choices: ['post', 'pre', 'deepnorm'].map((value) => ({ value, en: value, zh: value })),
    // The placement whose engine formula is not wrapped in Norm(...): the sum, the trunk, is never normalized.
    answer: (lab) => Object.entries(placementFormulas(lab.describe())).find(([p, f]) => ['post', 'pre', 'deepnorm'].includes(p) && !f.startsWith('Norm('))[0],
    en: {
      question: 'Which of these placements (the engine\'s names) leaves the trunk un-normalized?',
      hint: 'Write each as a formula: is the whole update h + … inside a Norm, or only the sublayer\'s input?',
      solution: () => 'pre: h + F(Norm(h)) normalizes only the copy the sublayer reads. post, Norm(h + F(h)), and deepnorm, Norm(αh + F(h)), normalize the sum: the trunk itself.',
    },
    zh: {
      question: '下面哪种放置方式（引擎里的名字）不对主干做归一化？',
      hint: '写成公式：是整个更新 h + …… 都在 Norm 里面，还是只有子层的输入？',
      solution: () => 'pre：h + F(Norm(h)) 只归一化子层读到的那份副本。post 的 Norm(h + F(h)) 与 deepnorm 的 Norm(αh + F(h)) 归一化的是和，也就是主干本身。',
    },
  },
  {
    id: 'llama-name', section: 'placement', kind: 'choice', choices: NORM_JOBS,
    answer: () => normJob('llama', 'post_attention_layernorm'),
    en: {
      question: 'In Llama\'s decoder layer, what does post_attention_layernorm normalize?',
      hint: 'Follow hidden_states: which module reads the output of post_attention_layernorm?',
      solution: () => 'The MLP\'s input: despite "post" in its name it is the norm before the MLP, and Llama is Pre-Norm.',
    },
    zh: {
      question: '在 Llama 的解码器层里，post_attention_layernorm 归一化的是什么？',
      hint: '跟着 hidden_states 走：post_attention_layernorm 的输出交给了哪个模块？',
      solution: () => 'MLP 的输入：名字里有 post，它却是 MLP 之前的 Norm，Llama 是 Pre-Norm。',
    },
  },
  {
    id: 'qk-bound', section: 'qk-norm', kind: 'choice',
    choices: [
      { value: 'sqrt-d', en: '√d_head (times the learned g)', zh: '√d_head（再乘以学到的 g）' },
      { value: 'one', en: '1', zh: '1' },
      { value: 'none', en: 'nothing: it grows with the weights', zh: '没有上限：随权重增长' },
    ],
    // Cauchy-Schwarz: q·k ≤ |q||k| = d_head for RMS-normalized q and k, so the score ≤ √d_head. The engine's
    // experiment reports that bound and shows it holding: at a q/k gain of 64 the plain logits pass it, the
    // QK-Norm ones stay under it.
    answer: (lab) => {
      const run = lab.experiments.qkLogitGrowth({ gains: [64], nLayers: 1, dModel: 16, nHeads: 1, contextLength: 16 });  // d_head 16: bound 4
      return run.maxLogitQkNorm[0] <= run.bound && run.maxLogitPlain[0] > run.bound ? 'sqrt-d' : 'none';
    },
    en: {
      question: 'With QK-Norm applied per head, as in Qwen3, and g all ones, what bounds an attention score q·k / √d_head?',
      hint: 'After RMSNorm, how long is a d-dimensional vector? Then use Cauchy-Schwarz.',
      solution: () => 'Each normalized vector has length √d_head, so q·k ≤ d_head and the score ≤ √d_head (11.3 for d_head = 128), whatever the weights.',
    },
    zh: {
      question: '像 Qwen3 那样逐头做 QK-Norm、g 全为 1 时，注意力分数 q·k / √d_head 的上限是什么？',
      hint: 'RMSNorm 之后，一个 d 维向量有多长？再用柯西-施瓦茨不等式。',
      solution: () => '归一化后的向量长度都是 √d_head，所以 q·k ≤ d_head，分数 ≤ √d_head（d_head = 128 时约 11.3），与权重多大无关。',
    },
  },
  {
    id: 'softcap-50', section: 'softcap', kind: 'number', tolerance: 0.05, digits: 1,
    answer: (lab) => lab.softcap([100], 50)[0],
    en: {
      question: 'Gemma 2 caps attention scores at c = 50. What does a score of 100 become? (one decimal)',
      hint: 'softcap(x) = c · tanh(x / c); tanh(2) ≈ 0.964.',
      solution: (answer) => `50 · tanh(100 / 50) = 50 · tanh(2) = ${answer}: under the cap, never over it.`,
    },
    zh: {
      question: 'Gemma 2 把注意力分数的上限设为 c = 50。分数 100 会变成多少？（保留一位小数）',
      hint: 'softcap(x) = c · tanh(x / c)；tanh(2) ≈ 0.964。',
      solution: (answer) => `50 · tanh(100 / 50) = 50 · tanh(2) = ${answer}：在上限以内，永远不会超过。`,
    },
  },
  {
    id: 'softcap-small', section: 'softcap', kind: 'number', tolerance: 0.01, digits: 2,
    answer: (lab) => lab.softcap([10], 30)[0],
    en: {
      question: 'With the final-logit cap c = 30, what does a logit of 10 become? (two decimals)',
      hint: 'Small scores pass almost unchanged: tanh(1/3) ≈ 0.3215.',
      solution: (answer) => `30 · tanh(10 / 30) = ${answer}: a small logit barely moves.`,
    },
    zh: {
      question: '最终 logits 的上限 c = 30 时，logit 10 会变成多少？（保留两位小数）',
      hint: '小的分数几乎原样通过：tanh(1/3) ≈ 0.3215。',
      solution: (answer) => `30 · tanh(10 / 30) = ${answer}：小的 logit 几乎不变。`,
    },
  },
  {
    id: 'llama-norm-params', section: 'model-table', kind: 'number', tolerance: 0.5, digits: 0,
    // lab.inspectConfig counts every norm of Llama-3.1-8B's published config.json (the config inspector's example).
    answer: (lab) => lab.inspectConfig(exampleText('llama')).normParams,
    en: {
      question: 'How many norm parameters does Llama-3.1-8B have? (32 layers, d_model = 4096, RMSNorm, Pre-Norm, a final norm)',
      hint: 'Count the norms: two per layer plus the final one. Each RMSNorm has one weight per dimension.',
      solution: (answer) => `(32 × 2 + 1) × 4096 = 65 × 4096 = ${answer}: about 0.003% of the 8 billion.`,
    },
    zh: {
      question: 'Llama-3.1-8B 的归一化层一共有多少个参数？（32 层，d_model = 4096，RMSNorm，Pre-Norm，末尾还有一个 Norm）',
      hint: '先数 Norm 的个数：每层两个，再加末尾一个。每个 RMSNorm 每一维有一个权重。',
      solution: (answer) => `(32 × 2 + 1) × 4096 = 65 × 4096 = ${answer}，约占 80 亿参数的 0.003%。`,
    },
  },
  {
    id: 'gpt2-scaling', section: 'init-and-depth', kind: 'number', tolerance: 0.002, digits: 3,
    // The factor the engine applies: attn.o of the same seed with and without residualScaling, divided.
    answer: (lab) => {
      const config = (residualScaling) => ({ nLayers: 12, dModel: 8, nHeads: 1, vocabSize: 2, contextLength: 2, init: { residualScaling, seed: 3 } });
      const [plain, scaled] = [false, true].map((on) => {
        const model = lab.createDecoder(config(on));
        try {
          const o = model.paramLayout().find((p) => p.name === 'layers.0.attn.o.weight');
          return model.params()[o.offset];
        } finally {
          model.dispose();
        }
      });
      return scaled / plain;
    },
    en: {
      question: 'GPT-2 scales the matrices that write into the trunk by 1/√N, N the number of residual layers. For a 12-layer model, what is the factor? (three decimals)',
      hint: 'Each layer has two sublayers writing to the trunk, so N is twice the layer count.',
      solution: (answer) => `N = 2 × 12 = 24 and 1/√24 = ${answer}; the lab's engine applies exactly this factor to attn.o and mlp.down.`,
    },
    zh: {
      question: 'GPT-2 把写入主干的矩阵乘以 1/√N，N 是残差层数。12 层的模型，这个系数是多少？（保留三位小数）',
      hint: '每层有两个子层往主干里写，所以 N 是层数的两倍。',
      solution: (answer) => `N = 2 × 12 = 24，1/√24 = ${answer}；实验室的引擎对 attn.o 和 mlp.down 用的正是这个系数。`,
    },
  },
  {
    id: 'gpt2-which', section: 'init-and-depth', kind: 'choice',
    choices: [
      { value: 'attn.o and mlp.down', en: 'attention\'s output projection and the MLP\'s down projection', zh: '注意力的输出投影与 MLP 的降维投影' },
      { value: 'q and k', en: 'the query and key projections', zh: 'query 与 key 投影' },
      { value: 'embeddings', en: 'the token embeddings', zh: '词嵌入' },
    ],
    // The engine's meaning of init.residualScaling names the matrices it scales.
    answer: (lab) => ['attn.o and mlp.down', 'q and k', 'embeddings'].find((names) => findRow(lab.describe(), 'decoder.init.residualScaling').meaning.includes(names)),
    en: {
      question: 'Which matrices does GPT-2\'s 1/√N scaling shrink?',
      hint: 'Only the matrices whose output is added to the trunk.',
      solution: () => 'The two that write into the residual stream: attention\'s output projection (o_proj) and the MLP\'s down projection (down_proj).',
    },
    zh: {
      question: 'GPT-2 的 1/√N 缩放缩小的是哪些矩阵？',
      hint: '只有输出会被加到主干上的那些矩阵。',
      solution: () => '往残差流里写的两个：注意力的输出投影（o_proj）和 MLP 的降维投影（down_proj）。',
    },
  },
  {
    id: 'gemma-name', section: 'summary', kind: 'choice', choices: NORM_JOBS,
    answer: () => normJob('gemma2', 'post_attention_layernorm'),
    en: {
      question: 'In Gemma 2\'s decoder layer, what does post_attention_layernorm normalize?',
      hint: 'In Gemma 2 the line comes right after self_attn and before the residual add.',
      solution: () => 'Attention\'s output, before the add: Gemma 2 is a sandwich. The same name in Llama is the pre-MLP norm.',
    },
    zh: {
      question: '在 Gemma 2 的解码器层里，post_attention_layernorm 归一化的是什么？',
      hint: '在 Gemma 2 里，这一行紧跟在 self_attn 之后、残差相加之前。',
      solution: () => '注意力的输出，在相加之前：Gemma 2 是三明治结构。同样的名字在 Llama 里是 MLP 之前的 Norm。',
    },
  },
];

/** The sections that have exercises, in chapter order of first appearance. */
export const EXERCISE_SECTIONS = [...new Set(EXERCISES.map((exercise) => exercise.section))];

export const exercisesOf = (section) => EXERCISES.filter((exercise) => exercise.section === section);
