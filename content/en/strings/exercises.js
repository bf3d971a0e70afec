// Text of the self-check exercises (web/components/self-check/exercises.js), by exercise id, in English:
// { question, hint, solution(answerText), choices: { value: label } for a choice }.

const NORM_JOBS = {
  'mlp-input': "the MLP's input (the norm before the MLP)",
  'attn-output': "attention's output, before it is added to the trunk",
  sum: 'the sum h + attention(h): the trunk itself',
};

export default {
  'trunk-add': {
    question: "In a Pre-Norm layer, h ← h + F(Norm(h)). What happens to the sublayer's result F(Norm(h))?",
    hint: 'Look at the formula: which operation joins h and F?',
    solution: () =>
      'It is added to h: the trunk h passes through unchanged and every sublayer adds an increment to it.',
    choices: {
      add: 'it is added to h',
      replace: 'it replaces h',
      multiply: 'it multiplies h',
    },
  },
  'gradient-decay': {
    question:
      "A stack of 32 layers without residuals; each layer scales the gradient by 0.8. What fraction of the output's gradient reaches the first layer? (e.g. 0.05 or 5e-2)",
    hint: 'The factors multiply: 0.8 × 0.8 × … 32 times.',
    solution: (answer) =>
      `0.8³² ≈ ${answer}: less than a thousandth. The gradient-flow experiment (32 layers, gain 0.8, residual off) measures the same number.`,
  },
  'residual-jacobian': {
    question: 'With a residual, a layer computes h + f(h). What is its Jacobian?',
    hint: 'Differentiate each term: the derivative of h with respect to h is the identity.',
    solution: () =>
      "I + f′: even when f′ is small, the identity carries the gradient through (with residuals, the gradient-flow experiment's first layer gets more gradient than the last, not less).",
    choices: {
      'identity-plus': 'I + f′',
      'f-only': 'f′',
      identity: 'I',
    },
  },
  'rmsnorm-by-hand': {
    question:
      'RMSNorm of x = [2, -1, 3, 0] with g all ones and ε ignored: what is the first component? (three decimals)',
    hint: 'Mean of the squares, then its square root; divide 2 by it.',
    solution: (answer) => `(4 + 1 + 9 + 0) / 4 = 3.5, √3.5 = 1.871, and 2 / 1.871 = ${answer}.`,
  },
  'layernorm-by-hand': {
    question: 'LayerNorm of the same x = [2, -1, 3, 0] (γ ones, β zeros, ε ignored): what is the second component?',
    hint: 'Subtract the mean first, then divide by the standard deviation.',
    solution: (answer) =>
      `The mean is 1, so -1 becomes -2; the variance is 2.5, its root 1.581, and -2 / 1.581 = ${answer}.`,
  },
  'scale-invariance': {
    question: 'Multiply x by 10 before RMSNorm (ε ignored). What do you get?',
    hint: 'The RMS is a length: what happens to it when x is ten times longer?',
    solution: () =>
      'The same output: the RMS grows tenfold too, so the ratio does not change. RMSNorm keeps the direction and drops the length.',
    choices: {
      same: 'the same output',
      'ten-times': 'an output ten times larger',
      tenth: 'an output ten times smaller',
    },
  },
  'gemma-port': {
    question:
      "A freshly initialized Gemma norm stores w = [0, 0, 0, 0]. A port that uses Llama's x / rms · w instead of x / rms · (1 + w) normalizes x = [2, -1, 3, 0]. What is the first output component?",
    hint: 'What is 1.069 times the stored w?',
    solution: (answer) =>
      `${answer}: every output is zero, where Gemma computes 1.069 (1 + 0 = 1). Check the convention of every norm when porting.`,
  },
  'trunk-normalized': {
    question: "Which of these placements (the engine's names) leaves the trunk un-normalized?",
    hint: "Write each as a formula: is the whole update h + … inside a Norm, or only the sublayer's input?",
    solution: () =>
      'pre: h + F(Norm(h)) normalizes only the copy the sublayer reads. post, Norm(h + F(h)), and deepnorm, Norm(αh + F(h)), normalize the sum: the trunk itself.',
    choices: {
      post: 'post',
      pre: 'pre',
      deepnorm: 'deepnorm',
    },
  },
  'llama-name': {
    question: "In Llama's decoder layer, what does post_attention_layernorm normalize?",
    hint: 'Follow hidden_states: which module reads the output of post_attention_layernorm?',
    solution: () =>
      'The MLP\'s input: despite "post" in its name it is the norm before the MLP, and Llama is Pre-Norm.',
    choices: NORM_JOBS,
  },
  'qk-bound': {
    question:
      'With QK-Norm applied per head, as in Qwen3, and g all ones, what bounds an attention score q·k / √d_head?',
    hint: 'After RMSNorm, how long is a d-dimensional vector? Then use Cauchy-Schwarz.',
    solution: () =>
      'Each normalized vector has length √d_head, so q·k ≤ d_head and the score ≤ √d_head (11.3 for d_head = 128), whatever the weights.',
    choices: {
      'sqrt-d': '√d_head (times the learned g)',
      one: '1',
      none: 'nothing: it grows with the weights',
    },
  },
  'softcap-50': {
    question: 'Gemma 2 caps attention scores at c = 50. What does a score of 100 become? (one decimal)',
    hint: 'softcap(x) = c · tanh(x / c); tanh(2) ≈ 0.964.',
    solution: (answer) => `50 · tanh(100 / 50) = 50 · tanh(2) = ${answer}: under the cap, never over it.`,
  },
  'softcap-small': {
    question: 'With the final-logit cap c = 30, what does a logit of 10 become? (two decimals)',
    hint: 'Small scores pass almost unchanged: tanh(1/3) ≈ 0.3215.',
    solution: (answer) => `30 · tanh(10 / 30) = ${answer}: a small logit barely moves.`,
  },
  'llama-norm-params': {
    question:
      'How many norm parameters does Llama-3.1-8B have? (32 layers, d_model = 4096, RMSNorm, Pre-Norm, a final norm)',
    hint: 'Count the norms: two per layer plus the final one. Each RMSNorm has one weight per dimension.',
    solution: (answer) => `(32 × 2 + 1) × 4096 = 65 × 4096 = ${answer}: about 0.003% of the 8 billion.`,
  },
  'gpt2-scaling': {
    question:
      'GPT-2 scales the matrices that write into the trunk by 1/√N, N the number of residual layers. For a 12-layer model, what is the factor? (three decimals)',
    hint: 'Each layer has two sublayers writing to the trunk, so N is twice the layer count.',
    solution: (answer) =>
      `N = 2 × 12 = 24 and 1/√24 = ${answer}; the lab's engine applies exactly this factor to attn.o and mlp.down.`,
  },
  'gpt2-which': {
    question: "Which matrices does GPT-2's 1/√N scaling shrink?",
    hint: 'Only the matrices whose output is added to the trunk.',
    solution: () =>
      "The two that write into the residual stream: attention's output projection (o_proj) and the MLP's down projection (down_proj).",
    choices: {
      'attn.o and mlp.down': "attention's output projection and the MLP's down projection",
      'q and k': 'the query and key projections',
      embeddings: 'the token embeddings',
    },
  },
  'gemma-name': {
    question: "In Gemma 2's decoder layer, what does post_attention_layernorm normalize?",
    hint: 'In Gemma 2 the line comes right after self_attn and before the residual add.',
    solution: () =>
      "Attention's output, before the add: Gemma 2 is a sandwich. The same name in Llama is the pre-MLP norm.",
    choices: NORM_JOBS,
  },
};
