// The chapter's numbers and claims (content/<code>/chapter.md, one per language): recomputed here in float64 and
// then looked up in the text, so a wrong figure fails, and every language says the same, and only what is true.
// Run: node --test tests/js/content-facts.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { rowAfter } from './markdown-tables.mjs';
import { chapters } from './chapter-text.mjs';
import { CODES, saysIn } from './per-language.mjs';

const round = (v, digits) => v.toFixed(digits);
const softcap = (x, cap) => cap * Math.tanh(x / cap);

// The worked example, recomputed: x = [2, -1, 3, 0], g = 1, eps ignored as in the hand calculation.
function workedExample() {
  const x = [2, -1, 3, 0];
  const meanSquare = x.reduce((s, v) => s + v * v, 0) / x.length;
  const rms = Math.sqrt(meanSquare);
  const mean = x.reduce((s, v) => s + v, 0) / x.length;
  const centered = x.map((v) => v - mean);
  const variance = centered.reduce((s, v) => s + v * v, 0) / x.length;
  const std = Math.sqrt(variance);
  return {
    meanSquare: String(meanSquare),
    rms: round(rms, 3),
    rmsOut: x.map((v) => round(v / rms, 3)),
    centered: `[${centered.join(', ')}]`,
    variance: String(variance),
    std: round(std, 3),
    layerOut: centered.map((v) => round(v / std, 3)),
    // DyT at alpha 0.5, at x1 and with x scaled by 100
    dytOut: x.map((v) => round(Math.tanh(0.5 * v), 3)),
    dytAt100: x.map((v) => String(Math.round(Math.tanh(0.5 * 100 * v)))),
  };
}

const ex = workedExample();
const fmtVector = (parts) => `[${parts.map((p) => (p === '0.000' ? '0' : p)).join(', ')}]`;

// Facts that must appear in a given section ('intro' = before the first section heading).
const FACTS = {
  intro: ['266,240', '0.003%', '65', 'Llama-3.1-8B', 'DecoderLayer.forward', 'config.json'],
  'residual-stream': [
    '4096',
    '64',
    '128256',
    'Qwen2.5-0.5B-Instruct',
    '24',
    '896',
    '0.47',
    '4.8',
    '76.1',
    '58.1',
    '77',
    'FP32',
  ],
  'why-residuals': [round(0.8 ** 32, 4), String(Math.round(1.2 ** 32)), "I + f'", 'ResNet', '2015'],
  normalization: [
    '[2, -1, 3, 0]',
    ex.meanSquare,
    ex.rms,
    fmtVector(ex.rmsOut),
    ex.centered,
    ex.variance,
    ex.std,
    fmtVector(ex.layerOut),
    '[20, -10, 30, 0]',
    '1e-5',
    '1e-6',
    'rms_norm_eps',
    'Zhang',
    'Sennrich',
    '2019',
    'DyT',
    'Zhu',
    '2025',
    '0.5',
    '\\tanh(\\alpha x)',
    fmtVector(ex.dytOut),
    fmtVector(ex.dytAt100),
    '×100',
  ],
  'precision-and-gemma': [
    'LlamaRMSNorm',
    'torch.float32',
    'modeling_gemma2.py',
    'modeling_gemma3.py',
    '`mean`',
    'float32',
    '(1 + w)',
    'Gemma 4',
  ],
  placement: [
    'Xiong',
    '2020',
    'GPT-2',
    'Sun',
    '2025',
    'DeepNet',
    '2022',
    '1000',
    'OLMo 2',
    'input_layernorm',
    'post_attention_layernorm',
    'pre_feedforward_layernorm',
    'post_feedforward_layernorm',
    'self.mlp(self.post_attention_layernorm(h))',
    '\\operatorname{LN}(\\alpha x + G(x))',
    '(2N)^{1/4}',
    '(8N)^{-1/4}',
    'deepnorm',
    '0.02',
    'Xavier',
  ],
  'qk-norm': [
    '\\sqrt{128}',
    round(Math.sqrt(128), 1),
    'ViT-22B',
    'Dehghani',
    'Wortsman',
    '2023',
    'Qwen3',
    'Gemma 3',
    'OLMo 2',
    'q_norm',
    'k_norm',
    'modeling_qwen3.py',
    '.view(n, 32, 128)',
  ],
  softcap: ['attn_logit_softcapping: 50.0', 'final_logit_softcapping: 30.0', 'SDPA', 'eager', 'Gemma 4 31B', 'null'],
  'model-table': ['Transformers 5.21', '2026', 'config.json'],
  'init-and-depth': ['1/\\sqrt{N}', 'initializer_range: 0.02', '64', 'o_proj', 'down_proj'],
  summary: ['09.', 'RoPE'],
  references: [
    'Xiong',
    'Zhang',
    'Sennrich',
    'DeepNet',
    'Dehghani',
    'Wortsman',
    'Gemma 2',
    'Gemma 3',
    'Qwen3',
    'OLMo 2',
    'He',
    '2015',
    'Zhu',
    '(2N)^{1/4}',
  ],
};

// The soft-cap table: [cap, x], with the value recomputed rather than typed in.
const SOFTCAP_ROWS = [
  [30, 10],
  [30, 30],
  [30, 60],
  [30, 200],
  [50, 100],
];

// model row prefix (first cell) -> norms per layer (first character of the fourth cell)
const MODEL_ROWS = [
  ['Transformer', '2'],
  ['GPT-2', '2'],
  ['Llama-3.1-8B', '2'],
  ['Qwen3-8B', '2'],
  ['DeepSeek-V3', '2'],
  ['OLMo 2', '2'],
  ['Gemma 2', '4'],
  ['Gemma 3', '4'],
  ['Gemma 4 31B', '4'],
];

for (const lang of CODES) {
  const ch = chapters[lang];
  test(`${lang}: the chapter's facts and worked numbers sit in their sections`, () => {
    for (const [section, facts] of Object.entries(FACTS)) {
      const body = ch.sectionText(section);
      for (const fact of facts) assert.ok(body.includes(fact), `#${section} lacks "${fact}"`);
    }
  });

  test(`${lang}: the soft-cap table holds cap * tanh(x / cap), recomputed`, () => {
    const body = ch.sectionText('softcap');
    for (const [cap, x] of SOFTCAP_ROWS) {
      const value = String(round(softcap(x, cap), 1));
      assert.deepEqual(
        rowAfter(body, String(cap), String(x)),
        [value],
        `softcap table: the row ${cap} | ${x} | ${value}`,
      );
    }
  });

  test(`${lang}: the model table has the nine models in order with their norm counts`, () => {
    const rows = ch
      .sectionText('model-table')
      .split('\n')
      .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
      .slice(1) // header row
      .map((l) =>
        l
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    assert.equal(rows.length, MODEL_ROWS.length, 'model table row count');
    MODEL_ROWS.forEach(([name, norms], k) => {
      assert.equal(rows[k].length, 5, `row ${k + 1} must have 5 cells`);
      assert.ok(rows[k][0].includes(name), `row ${k + 1} should be ${name}, is ${rows[k][0]}`);
      assert.equal(rows[k][3][0], norms, `${name}: norms per layer`);
    });
    assert.ok(rows[2][1].includes('1e-5') && rows[3][1].includes('1e-6'), 'Llama eps 1e-5, Qwen3 eps 1e-6');
    assert.ok(rows[6][1].includes('1 + w') && rows[7][1].includes('1 + w'), 'Gemma 2/3 use (1 + w)');
    assert.ok(!rows[8][1].includes('1 + w'), 'Gemma 4 multiplies by w');
    assert.ok(rows[0][3].includes('3'), "the original Transformer's decoder layers have 3 norms");
  });
}

// ---------- fidelity: every language says the same, and only what is true ----------

/** The text of section `id` in a language, for saysIn. */
const section = (id) => (code) => chapters[code].sectionText(id);

test('every language: the norms\' share of Llama-3.1-8B is about 0.003 %, not "less than"', () => {
  const share = (266240 / 8.03e9) * 100; // 0.0033 %
  assert.equal(share.toFixed(3), '0.003');
  assert.ok(share > 0.003, 'the share is above 0.003 %, so "less than 0.003 %" would be false');
  saysIn('the chapter', (code) => chapters[code].text, {
    en: { says: 'about 0.003% of the model' },
    zh: { says: '约占总量（80.3 亿）的 0.003%', never: '不到总量的 0.003%' },
  });
});

test("every language: the summary's residual-stream line passes through the final norm", () => {
  saysIn('#summary', section('summary'), {
    en: { says: /embedding straight to the output layer/ },
    zh: { says: /64 个增量，再经过最后一个 Norm/ },
  });
});

test('every language: the warmup race is said to plateau at the unigram loss, not to diverge', async () => {
  const { stringsOf } = await import('../../web/languages.js');
  for (const code of CODES) assert.doesNotMatch(stringsOf(code, 'rl-warmup-race').hint, /diverge|发散/, `${code} hint`);
  // The level the chart draws comes with every warmup result (a ten-step race of one tiny run is enough to read it).
  const { load } = await import('../../dist/lib/residual-lab.js');
  const lab = await load();
  const entropy = lab.experiments.warmup({
    nLayers: 1,
    dModel: 16,
    nHeads: 2,
    contextLength: 16,
    steps: 10,
    warmupSteps: 1,
    runs: ['pre'],
  }).unigramEntropy;
  assert.ok(entropy > 2.5 && entropy < Math.log(38), `unigram entropy ${entropy}`);
  const shown = entropy.toFixed(2);
  // docs/experiments.md states it to three decimals, more than once: one rounding everywhere
  const docs = readFileSync(new URL('../../docs/experiments.md', import.meta.url), 'utf8');
  const stated = [
    ...docs.matchAll(/unigram entropy[^0-9]{0,20}(\d\.\d{3})\b|(\d\.\d{3}) nats \(the unigram entropy\)/g),
  ].map((m) => m[1] ?? m[2]);
  assert.ok(stated.length >= 2, `docs/experiments.md states the unigram entropy: ${stated}`);
  for (const value of stated) assert.equal(value, entropy.toFixed(3), 'docs/experiments.md: the unigram entropy');
  saysIn('#placement', section('placement'), {
    en: {
      says: new RegExp(
        `a loss that stalls at about the unigram entropy of the training text \\(${shown} nats, the dotted line`,
      ),
    },
    zh: { says: new RegExp(`损失停在训练文本的一元熵附近下不去（${shown} nats，图中的点线）`) },
  });
});

test('every language: the placement lab comes after the sandwich and OLMo 2 are taught', () => {
  for (const code of CODES) {
    const { text } = chapters[code];
    const widget = text.indexOf('<rl-placement-lab>');
    assert.ok(
      widget > text.indexOf('{#sandwich}') && widget > text.indexOf('OLMo 2'),
      `${code}: after the sandwich section starts`,
    );
  }
});

test('every language: the gradient-flow widget is introduced with the numbers it shows as it opens (gain 0.1, 32 layers)', async () => {
  const { load } = await import('../../dist/lib/residual-lab.js');
  const lab = await load();
  const ratio = async (residual) => {
    const { gradNorms } = await lab.experiments.gradientDecay({ nLayers: 32, gain: 0.1, residual });
    return gradNorms[0] / gradNorms[32];
  };
  const plain = await ratio(false);
  const residual = await ratio(true);
  assert.equal(Math.round(Math.log10(plain)), -32);
  for (const code of CODES) {
    const text = chapters[code].sectionText('why-residuals');
    assert.ok(text.includes('0.1') && text.includes('10⁻³²'), `${code}: gain 0.1 and 10^-32`);
    assert.ok(text.includes(residual.toFixed(2)), `${code}: the residual ratio ${residual.toFixed(2)}`);
  }
});

test("every language: the precision lab says which operations its bfloat16 path rounds, and what PyTorch's bf16 mean does", async () => {
  const { stringsOf } = await import('../../web/languages.js');
  saysIn('the precision lab', (code) => stringsOf(code, 'rl-precision-lab').models, {
    en: {
      says: [
        /every square, the running sum after every addition, the mean, mean \+ ε, the reciprocal square root and every product/,
        /torch.mean accumulates in float32/,
      ],
    },
    zh: { says: /内部用 float32 累加/ },
  });
});
