// The chapter's self-check exercises (their text, per language: content/<lang>/strings/exercises.js, by id).
// Every right answer is computed when the exercise is shown, through the public API or from the engine's own
// description (lab.describe(), the forward reader's snippets, which tests hold to their decoder configs); none is
// only a stored value.
//   kind 'number'  answer(lab) -> number; accepted within `tolerance` (absolute) or `relative` of it; shown
//                  with `digits` decimals, or in scientific notation (`scientific`)
//   kind 'choice'  choices: [{ value }]; answer(lab) -> one of the values
import { findRow } from '../../lib/options.js';
import { exampleText } from '../shared/config-examples.js';
import { placementFormulas, stepName } from '../shared/forward-logic.js';
import { SNIPPETS } from '../shared/forward-snippets.js';

const WORKED_X = [2, -1, 3, 0]; // the chapter's worked example, computed by hand with eps ignored
const snippet = (id) => SNIPPETS.find((s) => s.id === id);

// Which job a norm named `name` does in a snippet, as its lines say: the MLP's input, attention's output, or the sum.
function normJob(id, name) {
  const jobs = { 'mlp:norm-in': 'mlp-input', 'attn:norm-out': 'attn-output', 'attn:norm-after': 'sum' };
  const found = Object.keys(jobs).find((key) => stepName(snippet(id), ...key.split(':')) === name);
  return jobs[found];
}

const NORM_JOBS = [{ value: 'mlp-input' }, { value: 'attn-output' }, { value: 'sum' }];

export const EXERCISES = [
  {
    id: 'trunk-add',
    section: 'residual-stream',
    kind: 'choice',
    choices: [{ value: 'add' }, { value: 'replace' }, { value: 'multiply' }],
    // The engine's Pre-Norm formula, "h + F(Norm(h))": the sublayer's result is a term added to h.
    answer: (lab) => (placementFormulas(lab.describe()).pre.startsWith('h + ') ? 'add' : 'replace'),
  },
  {
    id: 'gradient-decay',
    section: 'why-residuals',
    kind: 'number',
    relative: 0.02,
    scientific: true,
    // The linear variant multiplies by gain times a random orthogonal matrix, which keeps lengths: the gradient
    // at the input is exactly gain^32 of the gradient at the output (gradNorms[0], normalized to the output) at
    // any width; width 16 keeps the check instant on the page's thread.
    answer: (lab) =>
      lab.experiments.gradientDecay({ nLayers: 32, gain: 0.8, residual: false, variant: 'linear', width: 16 })
        .gradNorms[0],
  },
  {
    id: 'residual-jacobian',
    section: 'why-residuals',
    kind: 'choice',
    choices: [{ value: 'identity-plus' }, { value: 'f-only' }, { value: 'identity' }],
    // The residual-on experiment keeps the input gradient from vanishing: the identity term survives any f′.
    answer: (lab) =>
      lab.experiments.gradientDecay({ nLayers: 32, gain: 0.8, residual: true, width: 16 }).gradNorms[0] > 1
        ? 'identity-plus'
        : 'f-only',
  },
  {
    id: 'rmsnorm-by-hand',
    section: 'normalization',
    kind: 'number',
    tolerance: 0.002,
    digits: 3,
    answer: (lab) => lab.rmsNorm(WORKED_X, null, { eps: 0 })[0],
  },
  {
    id: 'layernorm-by-hand',
    section: 'normalization',
    kind: 'number',
    tolerance: 0.002,
    digits: 3,
    answer: (lab) => lab.layerNorm(WORKED_X, null, null, { eps: 0 })[1],
  },
  {
    id: 'scale-invariance',
    section: 'normalization',
    kind: 'choice',
    choices: [{ value: 'same' }, { value: 'ten-times' }, { value: 'tenth' }],
    answer: (lab) => {
      const y = lab.rmsNorm(WORKED_X, null, { eps: 0 });
      const scaled = lab.rmsNorm(
        WORKED_X.map((v) => 10 * v),
        null,
        { eps: 0 },
      );
      return y.every((v, i) => Math.abs(scaled[i] - v) <= 1e-6) ? 'same' : scaled[0] > y[0] ? 'ten-times' : 'tenth';
    },
  },
  {
    id: 'gemma-port',
    section: 'precision-and-gemma',
    kind: 'number',
    tolerance: 0.002,
    digits: 3,
    // A fresh Gemma norm stores w = 0; a port with Llama's convention reads it as multiplier 0.
    answer: (lab) => lab.rmsNorm(WORKED_X, [0, 0, 0, 0], { eps: 0, weightOffset: 0 })[0],
  },
  {
    id: 'trunk-normalized',
    section: 'placement',
    kind: 'choice',
    choices: ['post', 'pre', 'deepnorm'].map((value) => ({ value })),
    // The placement whose engine formula is not wrapped in Norm(...): the sum, the trunk, is never normalized.
    answer: (lab) =>
      Object.entries(placementFormulas(lab.describe())).find(
        ([p, f]) => ['post', 'pre', 'deepnorm'].includes(p) && !f.startsWith('Norm('),
      )[0],
  },
  {
    id: 'llama-name',
    section: 'placement',
    kind: 'choice',
    choices: NORM_JOBS,
    answer: () => normJob('llama', 'post_attention_layernorm'),
  },
  {
    id: 'qk-bound',
    section: 'qk-norm',
    kind: 'choice',
    choices: [{ value: 'sqrt-d' }, { value: 'one' }, { value: 'none' }],
    // Cauchy-Schwarz: q·k ≤ |q||k| = d_head for RMS-normalized q and k, so the score ≤ √d_head. The engine's
    // experiment reports that bound and shows it holding: at a q/k gain of 64 the plain logits pass it, the
    // QK-Norm ones stay under it.
    answer: (lab) => {
      const run = lab.experiments.qkLogitGrowth({ gains: [64], nLayers: 1, dModel: 16, nHeads: 1, contextLength: 16 }); // d_head 16: bound 4
      return run.maxLogitQkNorm[0] <= run.bound && run.maxLogitPlain[0] > run.bound ? 'sqrt-d' : 'none';
    },
  },
  {
    id: 'softcap-50',
    section: 'softcap',
    kind: 'number',
    tolerance: 0.05,
    digits: 1,
    answer: (lab) => lab.softcap([100], 50)[0],
  },
  {
    id: 'softcap-small',
    section: 'softcap',
    kind: 'number',
    tolerance: 0.01,
    digits: 2,
    answer: (lab) => lab.softcap([10], 30)[0],
  },
  {
    id: 'llama-norm-params',
    section: 'model-table',
    kind: 'number',
    tolerance: 0.5,
    digits: 0,
    // lab.inspectConfig counts every norm of Llama-3.1-8B's published config.json (the config inspector's example).
    answer: (lab) => lab.inspectConfig(exampleText('llama')).normParams,
  },
  {
    id: 'gpt2-scaling',
    section: 'init-and-depth',
    kind: 'number',
    tolerance: 0.002,
    digits: 3,
    // The factor the engine applies: attn.o of the same seed with and without residualScaling, divided.
    answer: (lab) => {
      const config = (residualScaling) => ({
        nLayers: 12,
        dModel: 8,
        nHeads: 1,
        vocabSize: 2,
        contextLength: 2,
        init: { residualScaling, seed: 3 },
      });
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
  },
  {
    id: 'gpt2-which',
    section: 'init-and-depth',
    kind: 'choice',
    choices: [{ value: 'attn.o and mlp.down' }, { value: 'q and k' }, { value: 'embeddings' }],
    // The engine's meaning of init.residualScaling names the matrices it scales.
    answer: (lab) =>
      ['attn.o and mlp.down', 'q and k', 'embeddings'].find((names) =>
        findRow(lab.describe(), 'decoder.init.residualScaling').meaning.includes(names),
      ),
  },
  {
    id: 'gemma-name',
    section: 'summary',
    kind: 'choice',
    choices: NORM_JOBS,
    answer: () => normJob('gemma2', 'post_attention_layernorm'),
  },
];

/** The sections that have exercises, in chapter order of first appearance. */
export const EXERCISE_SECTIONS = [...new Set(EXERCISES.map((exercise) => exercise.section))];

export const exercisesOf = (section) => EXERCISES.filter((exercise) => exercise.section === section);
