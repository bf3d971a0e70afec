// Claims the chapter, its widgets and exercises make about other people's code, papers and the project's own
// measurements, held to their source: the inspector's architecture table, docs/experiments.md, the engine, and
// the chapter's own figures (a widget that quotes them computes from them). Every language, wherever the claim is.
// Run: node --test tests/js/content-claims.test.mjs     after `node scripts/build.mjs` (uses dist/lib/)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { CONFIG_FIELDS, QK_NORM_FLAGS, inspectConfig } from '../../web/lib/inspect-config.js';
import { exampleText } from '../../web/components/shared/config-examples.js';
import { EXERCISES } from '../../web/components/self-check/exercises.js';
import { LANGUAGES } from '../../web/languages.js';
import { rowAfter } from './markdown-tables.mjs';
import { chapters } from './chapter-text.mjs';
import { CODES, perLanguage, saysIn } from './per-language.mjs';

// each widget's texts by language code (content/<lang>/strings/<tag>.js)
const byLanguage = (part) => Object.fromEntries(LANGUAGES.map((row) => [row.code, row.strings[part]]));
const CONFIG_INSPECTOR_STRINGS = byLanguage('rl-config-inspector');
const GEMMA_STRINGS = byLanguage('rl-gemma-trap');
const PRECISION_STRINGS = byLanguage('rl-precision-lab');
const RESIDUAL_GROWTH_STRINGS = byLanguage('rl-residual-growth');

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

// each language's chapter by ## section id (sections[code].intro is the opening, before the first heading)
const sections = Object.fromEntries(CODES.map((code) => [code, chapters[code].sections]));
/** The text of section `id` in a language, for saysIn. */
const section = (id) => (code) => sections[code][id];

test("soft-capping: fused kernels apply the cap only if written to; Gemma 2's SDPA branch dropped it silently", () => {
  for (const code of CODES) {
    for (const fact of ['FlashAttention', '2.6', '`softcap`', 'flex attention', 'SDPA', 'eager', '2024'])
      assert.ok(sections[code].softcap.includes(fact), `${code}: #softcap lacks ${fact}`);
  }
  saysIn('#softcap', section('softcap'), {
    en: { says: /the cap was silently dropped/, never: /in every version|no place to insert/ },
    zh: { says: /上限就这样被悄悄丢掉了/, never: /每个版本|没有地方插进/ },
  });
});

test('QK-Norm in a config: "the config does not tell" only for the models named; the fields that do tell are the inspector\'s', () => {
  saysIn('#qk-norm', section('qk-norm'), {
    en: { says: /For Llama, Qwen3, Gemma 3 and OLMo 2 the config does not tell you whether the model has QK-Norm/ },
    zh: { says: /对 Llama、Qwen3、Gemma 3 和 OLMo 2 来说，`config.json` 里没有哪个字段会告诉你模型用没用 QK-Norm/ },
  });
  saysIn('#model-table', section('model-table'), {
    en: { never: /never says whether the model has QK-Norm/ },
    zh: { never: /配置文件从来不说/ },
  });
  // the four named models: the architecture table gives each QK-Norm (or not) from its code, whatever a flag says
  for (const type of ['llama', 'qwen3', 'gemma3_text', 'olmo2']) {
    const r = inspectConfig(JSON.stringify({ model_type: type, use_qk_norm: true, qk_layernorm: false }));
    assert.ok(r.layout, type);
    assert.ok(
      r.notes.some((n) => n.code === 'qk_norm_flag_ignored'),
      `${type}: a flag that disagrees with the code is noted`,
    );
  }
  // each field the inspector reads is named where the chapter lists them, with the same architectures as the widget's
  const owners = (text) =>
    text
      .split(/[,、]\s*/)
      .map((s) => s.trim())
      .sort();
  for (const flag of QK_NORM_FLAGS) {
    for (const code of CODES) {
      assert.ok(sections[code]['model-table'].includes(`\`${flag}\``), `${code}: #read-config names ${flag}`);
      const inText = new RegExp(`\`${flag}\`\\s?[（(]([^)）]+)[)）]`).exec(sections[code]['qk-norm']);
      assert.ok(inText, `${code}: #qk-norm names ${flag} with its architectures`);
      const inWidget = /[（(]([^)）]+)[)）]$/.exec(CONFIG_INSPECTOR_STRINGS[code].fieldText[flag]);
      assert.deepEqual(owners(inText[1]), owners(inWidget[1]), `${code}: ${flag}`);
    }
  }
});

test("QK-Norm's bound is per head; OLMo 2 normalizes the whole projection (its q_norm size, from the inspector); the papers used LayerNorm", () => {
  const olmo = inspectConfig(exampleText('olmo2'));
  const qNorm = olmo.norms.find((n) => n.name === 'self_attn.q_norm').size;
  const heads = olmo.fields.find((f) => f.name === 'num_attention_heads').value;
  const headDim = qNorm / heads;
  assert.equal(
    headDim,
    inspectConfig(exampleText('qwen3')).norms.find((n) => n.name === 'self_attn.q_norm').size,
    "the same head width as Qwen3-8B's per-head norm",
  );
  const whole = `\\sqrt{${qNorm}} = ${Math.sqrt(qNorm)}`;
  saysIn('#qk-norm', section('qk-norm'), {
    en: {
      says: [
        `all ${heads} heads × ${headDim} = ${qNorm} values at once`,
        whole,
        /Once each head's \$q\$ and \$k\$ are normalized, the score is bounded/,
        /Wortsman et al\. \(2023\) both [^.]*LayerNorm/,
      ],
    },
    zh: {
      says: [
        `${heads} 个头 × ${headDim} 维共 ${qNorm} 个数一起归一化`,
        whole,
        /每个头的 \$q\$、\$k\$ 都归一化之后/,
        /Wortsman 等（2023）[^。]*LayerNorm/,
      ],
    },
  });
  saysIn('#summary', section('summary'), {
    en: { says: /when each head is normalized on its own/ },
    zh: { says: /逐头归一化、头维度 128 时约为 11\.3/ },
  });
  assert.ok(EXERCISES.some((e) => e.id === 'qk-bound'));
  const bound = byLanguage('exercises');
  saysIn('the qk-bound exercise', (code) => bound[code]['qk-bound'].question, {
    en: { says: /per head/ },
    zh: { says: /逐头/ },
  });
});

test("warmup at std 0.02: the chapter quotes docs/experiments.md, where the effect reverses in the lab's decoder", () => {
  const docs = read('docs/experiments.md');
  const cells = rowAfter(docs, 'std 0.02', '3e-3', '0');
  assert.ok(cells, 'the std 0.02, lr 3e-3 row of the warmup table');
  const losses = cells.map((cell) => /^([\d.]+) \([\d.]+\)$/.exec(cell)?.[1]);
  assert.ok(losses.length === 4 && losses.every(Boolean), `four "loss (spread)" cells: ${cells.join(' | ')}`);
  const [postNo, postWarm, preNo, preWarm] = losses;
  // the reversal itself: warmup costs Post-Norm and helps Pre-Norm at this init
  assert.ok(Number(postWarm) > Number(postNo) && Number(preWarm) < Number(preNo), cells.join(' | '));
  const stall = /pre-norm\s+without warmup stalled \(([\d.]+)\) while post-norm trained/.exec(docs)?.[1];
  assert.ok(stall, 'the 12-layer measurement');
  // the doc and the chapter name the random-init decoder alike: the lab's decoder (the toys are trained checkpoints)
  assert.match(docs, /at the lab's decoder's scale, which architecture needs it depends on the\s+initialisation/);
  saysIn('#placement', section('placement'), {
    en: {
      says: `the effect reversed in the lab's decoder: at 6 layers Post-Norm trains without warmup (loss ${postNo}, and ${postWarm} with it) while warmup helps Pre-Norm (${preNo} without, ${preWarm} with), and at 12 layers Pre-Norm without warmup stalls at ${stall} while Post-Norm trains`,
      never: /all but vanishes|reversed in the toy|the toy's failure/,
    },
    zh: {
      says: `项目在本站的解码器上实测，结果正好反了过来：6 层时，Post-Norm 不预热也训得动（loss ${postNo}，预热后反而是 ${postWarm}），预热帮到的是 Pre-Norm（不预热 ${preNo}，预热 ${preWarm}）；到 12 层，不预热的 Pre-Norm 停在 ${stall} 下不去`,
      never: /差别就几乎消失|在玩具模型里正好反了过来|玩具模型“训练失败”/,
    },
  });
});

test('the Gemma trap says what (1 + w) fixes (a fresh w = 0 is a multiplier of 1), not where trained values sit', async () => {
  for (const code of CODES) {
    assert.match(GEMMA_STRINGS[code].wHint, /w = 0/);
    assert.doesNotMatch(GEMMA_STRINGS[code].wHint, /near 0|在 0 附近/);
  }
  const { load } = await import('../../dist/lib/residual-lab.js');
  const lab = await load();
  const x = [2, -1, 3, 0];
  assert.deepEqual(
    lab.rmsNorm(x, [0, 0, 0, 0], { weightOffset: 1 }),
    lab.rmsNorm(x, [1, 1, 1, 1]),
    'w = 0 under (1 + w) is a multiplier of 1',
  );
});

test("residual growth: the widget compares bottom with top, 0.47 -> 58.1, its ratio computed from the chapter's figures", () => {
  // where each language states the norm of the embedding and of the stream after the final layer
  const measured = perLanguage('the residual stream at the bottom and the top', {
    en: [/the embedding: only ([\d.]+);/, /after the final layer: back down to ([\d.]+)\./],
    zh: [/词嵌入：只有 ([\d.]+)；/, /最后一层之后：回落到 ([\d.]+)。/],
  }).map(([code, patterns]) => [code, patterns.map((p) => Number(p.exec(sections[code]['residual-stream'])[1]))]);
  const [bottom, top] = measured[0][1];
  for (const [code, figures] of measured) assert.deepEqual(figures, [bottom, top], code);
  const growth = `${bottom} → ${top}`;
  const ratio = `×${Math.round(top / bottom)}`;
  const shown = perLanguage('the growth as the widget shows it', {
    en: `${growth} (${ratio})`,
    zh: `${growth}（${ratio}）`,
  });
  for (const [code, quoted] of shown) {
    const s = RESIDUAL_GROWTH_STRINGS[code];
    for (const text of [s.untrained('2.0'), s.trained('9.0')])
      assert.ok(text.includes(quoted) && !text.includes('76'), `${code}: ${text}`);
  }
});

test('bf16: the upcast spares the squares, their mean and the scale; the product with the weight is still rounded to bf16', () => {
  saysIn('#precision-and-gemma', section('precision-and-gemma'), {
    en: {
      says: /the upcast saves is the rounding to 8 bits of each square, of their mean and of the scale[^.]*\. It does not save the output: [^.]*multiplies it by the weight in bf16, so the final product is still rounded/,
    },
    zh: {
      says: /升精度真正省掉的，是每个平方、它们的均值，以及 rsqrt[^。]*。输出那一步它管不到：[^。]*在 bf16 里乘上 weight，所以最终的乘积照样要舍入/,
    },
  });
  saysIn('the precision lab', (code) => PRECISION_STRINGS[code].models, {
    en: { says: /multiplies it by the weight in bf16, so the final product is still rounded/ },
    zh: { says: /在 bf16 里乘上 weight，最后这次乘积照样要舍入/ },
  });
});

test("(1 + w) is Gemma 1, 2 and 3 and Qwen3-Next, in the text, the formula and the widget's labels", () => {
  for (const code of CODES) {
    const precision = sections[code]['precision-and-gemma'];
    for (const fact of ['modeling_gemma.py', 'Qwen3-Next', '\\text{Gemma 1, 2, 3, Qwen3-Next:}'])
      assert.ok(precision.includes(fact), `${code}: ${fact}`);
    assert.ok(sections[code].summary.includes('Qwen3-Next'), `${code}: summary`);
  }
  for (const code of CODES) {
    const s = GEMMA_STRINGS[code];
    assert.match(s.gemmaConvention, /Gemma 1.*2.*3.*Qwen3-Next/, `${code} label`);
    assert.match(s.llamaConvention, /Llama.*Gemma 4/, `${code} label`);
    for (const key of ['gemma', 'rightGemma', 'wrongLlama']) assert.match(s[key], /1 \+ w/, `${code} ${key}`);
  }
});

test('references: every author cited with a year is listed; (1 + w) is credited to the reference code, not the reports', () => {
  const cited = perLanguage('how a citation with a year is written', {
    en: /([A-Z][a-z]+) et al\.,? \(?(\d{4})/g,
    zh: /([A-Z][a-z]+) ?等[（，(]\s*(\d{4})/g,
  });
  for (const [lang, citation] of cited) {
    const body = Object.entries(sections[lang])
      .filter(([id]) => id !== 'references')
      .map(([, text]) => text)
      .join('\n');
    const refs = sections[lang].references.split('\n').filter((l) => l.startsWith('- '));
    const citations = [...body.matchAll(citation)].map((m) => [m[1], m[2]]);
    assert.ok(
      citations.some(([name]) => name === 'Sun'),
      `${lang}: Sun et al. is cited`,
    );
    for (const [name, year] of citations)
      assert.ok(
        refs.some((r) => r.includes(name) && r.includes(year)),
        `${lang}: ${name} (${year}) is missing from the references`,
      );
    const onePlusW = refs.filter((r) => r.includes('(1 + w)'));
    assert.equal(onePlusW.length, 1, `${lang}: one reference for (1 + w)`);
    assert.match(onePlusW[0], /modeling_gemma\.py/);
    assert.ok(
      refs.some((r) => /Gemma 2/.test(r) && /Gemma Team/.test(r)),
      `${lang}: the reports stay listed`,
    );
  }
});

test('config.json: the stability fields are one group, the sizes the norms depend on (and tie_word_embeddings) another', () => {
  const group = new Map(CONFIG_FIELDS.map((f) => [f.name, f.group]));
  const stability = new Set(['eps', 'softcap', 'init']);
  const sentenceEnd = perLanguage('where a sentence ends', { en: /(?<=\.)\s+(?=[A-Z])/, zh: '。' });
  for (const [lang, end] of sentenceEnd) {
    const list = sections[lang]['model-table'].split(end);
    const fieldsOf = (sentence) =>
      [...sentence.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((name) => group.has(name));
    const stable = list.find((s) => s.includes('`rms_norm_eps`'));
    const sizes = list.find((s) => s.includes('`hidden_size`'));
    assert.notEqual(stable, sizes, `${lang}: sizes are not listed with the stability fields`);
    assert.deepEqual(
      fieldsOf(stable).filter((name) => !stability.has(group.get(name))),
      [],
      `${lang}: only stability fields in "${stable}"`,
    );
    assert.ok(fieldsOf(stable).includes('initializer_range'), `${lang}: initializer_range is a stability field`);
    for (const name of ['hidden_size', 'num_hidden_layers', 'head_dim', 'tie_word_embeddings'])
      assert.ok(fieldsOf(sizes).includes(name), `${lang}: ${name} with the sizes`);
  }
});

test('the opening says the same in every language: the norms have a large say in whether 32 layers stack and train', () => {
  saysIn('the opening', section('intro'), {
    en: {
      says: /whether 32 layers can be stacked, and whether training survives to the end, depends in large part on them/,
      never: /stacked at all/,
    },
    zh: { says: /模型能不能堆到 32 层、训练会不会中途失控，很大程度上由它们说了算/ },
  });
});

// The chapter file whole, for claims that are one sentence wherever it sits.
const whole = (code) => chapters[code].text;

test("Xavier's gradients: the order turns around above layer 0, from the layer initGradients computes", async () => {
  const { load } = await import('../../dist/lib/residual-lab.js');
  const lab = await load();
  const r = lab.experiments.initGradients({
    placements: ['post', 'pre'],
    depths: [12],
    nLayers: 12,
    init: { scheme: 'xavier' },
  });
  const [post, pre] = ['post', 'pre'].map((p) => Array.from(r.perLayer[p].mlpDown));
  assert.equal(post.length, 12);
  assert.ok(pre[0] > post[0], 'layer 0: Pre-Norm larger');
  const from = post.findIndex((v, l) => v > pre[l]);
  post.slice(from).forEach((v, i) => assert.ok(v > pre[from + i], `layer ${from + i}: Post-Norm larger`));
  // the project's table agrees with the run (its columns: layers 0, 3, 6, 9, 11)
  const experiments = read('docs/experiments.md');
  const perLayer = experiments.slice(experiments.indexOf('Per layer (12 layers)'), experiments.indexOf('What agrees'));
  const [postRow, preRow] = ['post', 'pre'].map((p) => rowAfter(perLayer, 'Xavier', p).map(Number));
  // each entry to its three significant digits (within half a unit of the last, a hair more for a tie)
  const agrees = (shown, value) => Math.abs(shown - value) <= 0.51 * 10 ** (Math.floor(Math.log10(shown)) - 2);
  [0, 3, 6, 9, 11].forEach((l, i) => {
    assert.ok(agrees(postRow[i], post[l]), `docs post layer ${l}: ${postRow[i]} for ${post[l]}`);
    assert.ok(agrees(preRow[i], pre[l]), `docs pre layer ${l}: ${preRow[i]} for ${pre[l]}`);
  });
  saysIn('the chapter', whole, {
    en: {
      says: new RegExp(
        `Pre-Norm's gradient is still the larger at layer 0, but from layer ${from} upward Post-Norm's is`,
      ),
      never: /gap narrows/,
    },
    zh: {
      says: new RegExp(`只有第 0 层仍是 Pre-Norm 的梯度更大，从第 ${from} 层往上都是 Post-Norm 的更大`),
      never: /差距会缩小/,
    },
  });
});

test('what computes live is every widget; the figures the text quotes are fixed (README, the slides, every page footer)', () => {
  const readme = read('README.md');
  assert.match(readme, /Every widget computes live in your browser/);
  assert.doesNotMatch(readme, /Every number on the page is computed live/);
  const slides = read('examples/slides/index.html');
  assert.match(slides, /every widget on these slides computes live/);
  assert.doesNotMatch(slides, /every number/i);
  saysIn('the footer', (code) => LANGUAGES.find((row) => row.code === code).strings.page.footer, {
    en: { says: /Every widget computes live/, never: /Every number/ },
    zh: { says: /每个交互组件都在你的浏览器里用 WebAssembly 现场计算/, never: /所有数字/ },
  });
});

test("the precision lab's note: PyTorch's upcast spares the scale, not x̂, which is cast back to bf16", () => {
  const text = (code) =>
    Object.values(PRECISION_STRINGS[code])
      .filter((v) => typeof v === 'string')
      .join('\n');
  saysIn('the emulation note', text, {
    en: { says: /casts x̂ back to bf16/, never: /x times that scale/ },
    zh: { says: /把 x̂ 转回 bf16/, never: /x 乘这个因子/ },
  });
});

test('dropping the soft-cap: what it costs is hedged alike (Google: very minor; Transformers: SDPA worse; long contexts unmeasured)', () => {
  saysIn('the chapter', whole, {
    en: {
      says: /Google reported only very minor differences .* SDPA, which drops the cap, to be worse\. The course adds that long contexts show it most; the lab has not measured that\./,
      never: /most noticeable with long contexts/,
    },
    zh: {
      says: /Google 报告推理时去掉上限只带来很小的差别.*SDPA（它会丢掉上限）的结果更差。课程原文还说上下文越长越明显，这一点本项目没有实测过。/,
      never: /差得越明显/,
    },
  });
});

test("(1 + w): Qwen3-Next's main RMSNorms only (its gated norm multiplies by w); Google's own code is the source", () => {
  for (const code of CODES) {
    for (const fact of ['`Qwen3NextRMSNorm`', 'Gated DeltaNet', 'add_unit_offset=True', '`1 + scale`'])
      assert.ok(whole(code).includes(fact), `${code}: ${fact}`);
  }
  saysIn('the chapter', whole, {
    en: {
      says: /Gemma 1 to 3 and Qwen3-Next's main RMSNorms multiply by/,
      never: /Qwen3-Next's does the same|The Gemma reference code in Transformers/,
    },
    zh: { says: /Gemma 1 到 3 和 Qwen3-Next 的主 RMSNorm 乘的是/ },
  });
  saysIn("the Gemma trap's (1 + w) label", (code) => GEMMA_STRINGS[code].gemmaConvention, {
    en: { says: /Qwen3-Next’s main RMSNorms/ },
    zh: { says: /Qwen3-Next 的主 RMSNorm/ },
  });
  assert.match(read('docs/api.md'), /\(Gemma 1-3, Qwen3-Next's main RMSNorms\)/);
});

test("DyT's alpha starts at 0.5 by default; DeepNet's beta scales the FFN, value and output projections, as the engine's init does", () => {
  assert.match(read('wasm/src/decoder/init.cpp'), /deepnorm: attn\.v, attn\.o and the MLP weights times beta/);
  saysIn('the chapter', whole, {
    en: {
      says: [
        /initialized to 0\.5 by default \(the paper tunes that start for its LLaMA runs, by kind of block\)/,
        /the FFN's weights and attention's value and output projections are scaled down by \$\\beta\$ \(the query and key projections are not\)/,
      ],
      never: /its weights scaled down by/,
    },
    zh: {
      says: [
        /默认初始值为 0\.5（论文在 LLaMA 上的实验按模块种类另调了这个初值）/,
        /FFN 的权重和注意力的 value、输出投影乘上 \$\\beta\$（query、key 投影不乘）/,
      ],
    },
  });
});

test("use_qk_norm: Llama 4's is a parameter-free L2 norm after RoPE, on its RoPE layers only, wherever the flag is read", () => {
  saysIn('the chapter', whole, {
    en: { says: /Llama 4's, when on, is a parameter-free L2 norm after RoPE, and only in its RoPE layers/ },
    zh: { says: /Llama 4 打开后用的是 RoPE 之后一个没有参数的 L2 归一化，而且只加在用 RoPE 的层里/ },
  });
  const fromFlag = (code) => CONFIG_INSPECTOR_STRINGS[code].qkFromFlag('use_qk_norm', true);
  saysIn("the inspector's use_qk_norm note", fromFlag, {
    en: { says: /Llama 4 only in its RoPE layers, as a parameter-free L2 norm after RoPE/ },
    zh: { says: /Llama 4 只在用 RoPE 的层里加，而且是 RoPE 之后一个没有参数的 L2 归一化/ },
  });
  for (const code of CODES) assert.doesNotMatch(fromFlag(code), /exactly when|恰好/);
});

test("the OLMo 2-style toy: raw outputs below eps, growth mostly the placement's, about 20 s of training, as docs/experiments.md says", () => {
  const experiments = read('docs/experiments.md');
  assert.match(experiments, /15-20 s each on an idle core/);
  assert.match(experiments, /Growth there is mostly the\s+placement's/);
  assert.match(experiments, /each sublayer's raw output has a mean square far below eps/);
  saysIn('the chapter', whole, {
    en: {
      says: [
        /trained for about 20 seconds on a templated corpus/,
        /each sublayer's raw output is so small that its mean square falls below eps.*There the growth comes mostly from where the norm sits, not from training\./,
      ],
      never: /trained for minutes|as much as from training/,
    },
    zh: {
      says: [
        /训练了大约 20 秒的模型/,
        /每个子层的原始输出小到均方还不及 eps.*在那里，增长主要来自归一化放的位置，而不是训练。/,
      ],
    },
  });
});

test('a sublayer\'s increment is "fairly modest" (the source: 相对不大), in every language', () => {
  saysIn('the chapter', whole, {
    en: { says: /each layer makes a fairly modest edit/ },
    zh: { says: /单个子层写入的增量并不算大/, never: /要小得多/ },
  });
});

test('bf16 sums: the running sum outgrows a typical square; the emulation shows the worst case, not a bound', () => {
  saysIn('the chapter', whole, {
    en: {
      says: [
        /a few hundred times larger than a typical square/,
        /its bf16 error shows the worst case, not a guaranteed bound/,
      ],
      never: /any single square|is an upper bound/,
    },
    zh: { says: [/比一个典型的平方大出几百倍/, /bf16 误差是最坏情况下的样子，并不是对真实实现误差的有保证的上限/] },
  });
});

test("the Qwen figure is the course's, not re-measured by the lab; 'no chat template' is said to be an inference", () => {
  saysIn('the chapter', whole, {
    en: {
      says: /These numbers are the course's measurement, not re-measured by the lab \(you can re-measure them with the probe further down\)\. The course names no chat template; that the prompt went in without one is our inference/,
    },
    zh: {
      says: /这组数字来自课程的实测，本项目没有重新测量（你可以用下文的探针自己测）。课程没有提对话模板；说输入没套模板，是我们从最后一个位置正是“？”推断出来的/,
    },
  });
  const probe = byLanguage('rl-checkpoint-probe');
  saysIn("the probe's seed conditions", (code) => probe[code].seed.conditions('p', '？', 'FP32'), {
    en: { says: /the lab does not re-measure it.*No chat template, as we infer from that last position\./ },
    zh: { says: /本项目不重新测量.*没有套对话模板，这是我们从最后一个位置推断的。/ },
  });
  assert.match(read('docs/checkpoints.md'), /no chat template: our inference/);
});

test('a page with its own word for the sandwich placement (三明治 in Chinese) uses it in every widget, as its chapter does', () => {
  // null: the page says "sandwich", the word the strings' keys spell, so no other word is to be held to
  const ownWord = perLanguage('the word for the sandwich placement', {
    en: null,
    zh: { word: '三明治', hint: /Post-Norm、三明治和 OLMo 2/ },
  });
  for (const [code, own] of ownWord) {
    if (own === null) continue;
    assert.equal(RESIDUAL_GROWTH_STRINGS[code].names.sandwich, own.word, `${code}: rl-residual-growth`);
    assert.match(RESIDUAL_GROWTH_STRINGS[code].hint, own.hint, `${code}: rl-residual-growth hint`);
    assert.equal(byLanguage('rl-placement-lab')[code].names.sandwich, own.word, `${code}: rl-placement-lab`);
    for (const file of readdirSync(new URL(`../../content/${code}/strings/`, import.meta.url))) {
      const text = read(`content/${code}/strings/${file}`).replace(/\bsandwich:/g, ''); // keys are code, not text
      assert.doesNotMatch(text, /sandwich/i, `content/${code}/strings/${file}`);
    }
  }
});

test('the model table names the norms inside attention in one bracket; a failed run points up to its message', () => {
  const strings = (code) => LANGUAGES.find((row) => row.code === code).strings;
  saysIn('Gemma 4 norms', (code) => strings(code)['rl-model-table'].normCount(2, true, 1), {
    en: { says: /^2 \(plus q_norm, k_norm and v_norm\)$/, never: /\)\s*\(/ },
    zh: { says: /^2（\+ q_norm、k_norm、v_norm）$/, never: /）\s*（/ },
  });
  // the run's error is drawn above the results region that carries this label
  saysIn('the stale label after a failed run', (code) => strings(code).common.staleRun, {
    en: { says: /see above/, never: /below/ },
    zh: { says: /见上方/, never: /下方|见下/ },
  });
});
