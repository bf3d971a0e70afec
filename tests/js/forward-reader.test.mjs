// <rl-forward-reader>'s logic against the engine's option tables: every snippet's config is a valid decoder
// config, its line annotations describe the same layout as its config, and the formulas come from the engine.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { SNIPPETS } from '../../web/components/shared/forward-snippets.js';
import {
  checkPlacement,
  decisiveLines,
  expectedPlacement,
  lineKeys,
  placementFormulas,
  placementRow,
  stepName,
  SUBLAYERS,
  sublayerSteps,
} from '../../web/components/shared/forward-logic.js';

/**
 * The layout the lines' annotations describe, read the way a reader reads code: a norm of the sum is Post-Norm
 * (DeepNorm when the skip is scaled too); otherwise norms on the branch's input and output make a sandwich, on
 * the output alone OLMo 2's, on the input alone Pre-Norm. Null when the two sublayers disagree or no rule fits.
 * Held against each snippet's config below, so an annotation and its config cannot drift apart.
 */
function layoutOfLines(snippet) {
  const layouts = SUBLAYERS.map((sub) => {
    const steps = sublayerSteps(snippet, sub);
    const has = (step) => steps.includes(step);
    const before = (a, b) => has(a) && has(b) && steps.indexOf(a) < steps.indexOf(b);
    if (!has('sublayer') || !has('add')) return null;
    if (has('norm-after')) {
      if (!before('add', 'norm-after') || has('norm-in') || has('norm-out')) return null;
      return has('skip-scale') ? 'deepnorm' : 'post';
    }
    if (has('skip-scale')) return null;
    const normIn = before('norm-in', 'sublayer');
    const normOut = before('sublayer', 'norm-out') && before('norm-out', 'add');
    if (normIn && normOut) return 'sandwich';
    if (normOut) return 'olmo2';
    if (normIn) return 'pre';
    return null;
  });
  return layouts.every((layout) => layout === layouts[0]) ? layouts[0] : null;
}

let lab;
let tables;
before(async () => {
  lab = await load();
  tables = lab.describe();
});

test('every snippet is 6 to 15 lines and names a valid decoder config', () => {
  for (const snippet of SNIPPETS) {
    assert.ok(snippet.lines.length >= 6 && snippet.lines.length <= 15, `${snippet.id}: ${snippet.lines.length} lines`);
    assert.ok(placementRow(tables).choices.includes(expectedPlacement(snippet, tables)), snippet.id);
  }
});

test("the snippets cover every placement the engine offers, and the chapter's models", () => {
  const covered = new Set(SNIPPETS.map((snippet) => expectedPlacement(snippet, tables)));
  assert.deepEqual([...covered].sort(), [...placementRow(tables).choices].sort());
  assert.deepEqual(
    SNIPPETS.map((s) => s.id),
    ['transformer', 'bert', 'gpt2', 'llama', 'gemma2', 'olmo2', 'deepnet'],
  );
});

test("each snippet's line annotations describe its config's placement", () => {
  for (const snippet of SNIPPETS) assert.equal(layoutOfLines(snippet), expectedPlacement(snippet, tables), snippet.id);
});

test("the engine builds each snippet's config, with the norms that placement has", () => {
  for (const snippet of SNIPPETS) {
    const model = lab.createDecoder({
      ...snippet.config,
      nLayers: 1,
      dModel: 8,
      nHeads: 2,
      vocabSize: 4,
      contextLength: 4,
    });
    try {
      assert.equal(model.config.placement, expectedPlacement(snippet, tables));
      // the block's norms (q_norm and k_norm sit inside attention: layers.0.attn.q_norm)
      const norms = model.paramLayout().filter((p) => /^layers\.0\.[a-z_]+norm\.weight$/.test(p.name)).length;
      const annotated = ['attn', 'mlp']
        .flatMap((sub) => sublayerSteps(snippet, sub))
        .filter((s) => s.startsWith('norm')).length;
      assert.equal(norms, annotated, `${snippet.id}: norms per layer`);
    } finally {
      model.dispose();
    }
  }
});

test("checkPlacement: only the config's placement is right", () => {
  const gemma = SNIPPETS.find((s) => s.id === 'gemma2');
  const llama = SNIPPETS.find((s) => s.id === 'llama');
  assert.deepEqual(checkPlacement(gemma, 'sandwich', tables), { correct: true, expected: 'sandwich' });
  assert.deepEqual(checkPlacement(gemma, 'pre', tables), { correct: false, expected: 'sandwich' });
  assert.deepEqual(checkPlacement(llama, 'pre', tables), { correct: true, expected: 'pre' });
  // The naming trap: the same name, post_attention_layernorm, is a pre-MLP norm in Llama and an output norm in Gemma 2.
  assert.equal(stepName(llama, 'mlp', 'norm-in'), 'post_attention_layernorm');
  assert.equal(stepName(gemma, 'attn', 'norm-out'), 'post_attention_layernorm');
});

test("placementFormulas reads the engine's meaning of each placement", () => {
  const formulas = placementFormulas(tables);
  assert.deepEqual(Object.keys(formulas), placementRow(tables).choices);
  assert.equal(formulas.post, 'Norm(h + F(h))');
  assert.equal(formulas.pre, 'h + F(Norm(h))');
  assert.equal(formulas.deepnorm, 'Norm(alpha h + F(h))');
  for (const [choice, formula] of Object.entries(formulas)) assert.match(formula, /F\(/, choice);
});

test('decisive lines are the norms, the adds and the scaled skip', () => {
  const gpt2 = SNIPPETS.find((s) => s.id === 'gpt2');
  assert.deepEqual(
    decisiveLines(gpt2).map((i) => gpt2.lines[i].code.trim()),
    ['h = self.ln_1(h)', 'h = attn_output + residual', 'h = self.ln_2(h)', 'h = residual + feed_forward'],
  );
  assert.deepEqual(lineKeys(gpt2.lines[3]), ['attn:norm-in']);
  assert.deepEqual(lineKeys(gpt2.lines[0]), []);
});
