// The chapter's "try it on a model" lines: one per experiment of the probe (web/lib/checkpoint/claims.js) in
// every language's chapter (web/languages.js), each in the section that makes the claim and linking the probe at
// that experiment (and at the toy it speaks of); each number a line states about a shipped toy is the one the
// experiment computes on that toy (lab.openCheckpoint, the toy's files and probe window, as the probe runs them).
//   node --test tests/js/content-experiments.test.mjs     after `node scripts/build.mjs`
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { CLAIMS } from '../../web/lib/checkpoint/claims.js';
import { readTokenizer, shownToken } from '../../web/components/checkpoint-probe/compute.js';
import { TOY_NAMES, toyWindow } from '../../web/components/shared/toys.js';
import { chapters } from './chapter-text.mjs';
import { CODES, perLanguage } from './per-language.mjs';
import { record, toyFiles } from '../fixtures/toys.mjs';

// [text](?probe.experiment=<name>[&probe.toy=<toy>]#rl-probe): the probe's own address state, as it writes it
const LINK = /\]\(\?probe\.experiment=([A-Za-z0-9]+)(?:&probe\.toy=([a-z0-9-]+))?#rl-probe\)/g;

/** Each language's lines that open the probe at an experiment: name -> [{ text, section, toy }]. */
function experimentLines(ch) {
  const found = {};
  ch.lines.forEach((text, i) => {
    if (ch.inCode[i]) return;
    for (const [, name, toy] of text.matchAll(LINK))
      (found[name] ??= []).push({ text, section: ch.sectionOf[i], toy: toy ?? TOY_NAMES[0] });
  });
  return found;
}
const lines = Object.fromEntries(CODES.map((code) => [code, experimentLines(chapters[code])]));

test('every experiment has one line per language, in the same section, opening the probe at it', () => {
  const names = Object.keys(CLAIMS);
  for (const code of CODES) {
    assert.deepEqual(Object.keys(lines[code]).sort(), [...names].sort(), `${code}: the experiments linked`);
    for (const name of names) {
      assert.equal(lines[code][name].length, 1, `${code}: one line opens ${name}`);
      assert.ok(TOY_NAMES.includes(lines[code][name][0].toy), `${code}: ${name} opens a shipped toy`);
    }
  }
  for (const name of names) {
    const [first, ...others] = CODES.map((code) => lines[code][name][0]);
    for (const other of others) {
      assert.equal(other.section, first.section, `${name}: the same section in every language`);
      assert.equal(other.toy, first.toy, `${name}: the same toy in every language`);
    }
  }
});

const api = await load();
const opened = new Map();
/** The experiment `name` on a shipped toy, run as the probe runs it; `t(id)` the token as the probe shows it. */
async function measured(toyName, name) {
  if (!opened.has(toyName)) {
    const toy = record.toys.find((x) => x.name === toyName);
    const files = toyFiles(toy);
    const ckpt = await api.openCheckpoint(files);
    opened.set(toyName, { ckpt, ids: ckpt.tokenize(toyWindow(toy)), tokenName: readTokenizer(files).name });
  }
  const { ckpt, ids, tokenName } = opened.get(toyName);
  return { result: await ckpt.claim(name, ids), forward: ckpt.forward, t: (id) => shownToken(tokenName(id)) };
}

/**
 * Every language's line for experiment `name` opens the probe on `toy`, the toy it speaks of first, and holds each
 * of its fragments (one list per language code).
 */
function says(name, toy, fragments) {
  for (const [code, list] of perLanguage(`${name}: fragments`, fragments)) {
    const { text, toy: linked } = lines[code][name][0];
    assert.equal(linked, toy, `${code}: the ${name} line opens the probe on ${toy}`);
    for (const fragment of list) assert.ok(text.includes(fragment), `${code}: «${fragment}» in ${text}`);
  }
}
after(() => {
  for (const { ckpt } of opened.values()) ckpt.dispose();
});

const fixed = (v, digits) => v.toFixed(digits);
const percent = (share, digits = 1) => (100 * share).toFixed(digits);
const last = (a) => a[a.length - 1];

test('where the length lives: the toy Llama’s largest coordinates after layer 0 and after the last, against a random direction', async () => {
  const { result, forward } = await measured('toy-llama', 'streamTop');
  const [, first, ...later] = result.states;
  const end = last(result.states);
  const { random } = result;
  assert.ok(
    later.every((s, i) => s.share < (i ? later[i - 1] : first).share),
    'the later layers spread the length out',
  );
  const [top] = first.coords;
  // the words' grounds: after layer 0 past what 95 of 100 random directions give, after the last below their mean
  assert.ok(first.share > random.p95 && top.share > random.top, 'after layer 0: notable');
  assert.ok(end.share < random.share, 'after the last: below a random direction');
  says('streamTop', 'toy-llama', {
    en: [
      `the ${result.k} largest of its ${forward.d} coordinates hold ${percent(first.share)}% after layer 0`,
      `a random direction's ${result.k} largest hold ${percent(random.share)}% on average (${percent(random.p95)}% at the 95th percentile)`,
      `coordinate ${top.index} alone holds ${percent(top.share)}% (a random direction's largest, ${percent(random.top)}%)`,
      `down to ${percent(end.share)}% after the last, below a random direction's`,
    ],
    zh: [
      `第 0 层之后，${forward.d} 个坐标里最大的 ${result.k} 个就占了 ${percent(first.share)}%`,
      `随机方向最大的 ${result.k} 个平均占 ${percent(random.share)}%，95% 分位为 ${percent(random.p95)}%`,
      `光是第 ${top.index} 个坐标就占 ${percent(top.share)}%（随机方向最大的一个平均占 ${percent(random.top)}%）`,
      `到最后一层之后降到 ${percent(end.share)}%，比随机方向还低`,
    ],
  });
});

test('a random direction’s share, computed: the Monte Carlo mean against the exact mean share of the largest coordinate', async () => {
  const { randomShares } = await import('../../web/lib/checkpoint/claims.js');
  // d = 2: an isotropic direction is (cos φ, sin φ), φ uniform, so the larger share is max(cos² φ, sin² φ) =
  // (1 + |cos 2φ|) / 2, of mean 1 / 2 + 1 / π; for k = d every share is 1
  assert.ok(Math.abs(randomShares(2, 1).top - (0.5 + 1 / Math.PI)) < 0.01);
  assert.equal(randomShares(8, 8).share.toFixed(12), (1).toFixed(12));
  assert.deepEqual(randomShares(64, 5), randomShares(64, 5), 'seeded');
});

test('eps beside the mean square: the toy Llama’s every norm, layer 0’s two and the later ones', async () => {
  const { result, forward } = await measured('toy-llama', 'epsMargin');
  const { smallest, eps, rows } = result;
  // every norm of the layout is a row: two per layer (pre-norm, no q/k norm) and the final one
  assert.equal(rows.length, 2 * forward.layers + 1);
  assert.deepEqual([smallest.layer, smallest.slot], [0, 'attnNormBefore'], 'the smallest is the embedding’s');
  assert.ok(Math.sqrt(1 + 1 / smallest.ratio) - 1 < 0.001, 'ε changes the divisor by less than 0.1%');
  const second = rows.find((r) => r.layer === 0 && r.slot === 'mlpNormBefore');
  const later = rows.filter((r) => r.layer !== 0); // the final norm's row has layer null
  assert.equal(later.length, rows.length - 2, 'the sentence covers every row but layer 0’s two');
  const floor = Math.floor(Math.min(...later.map((r) => r.ratio)) / 1e5) * 1e5; // "over 200,000": the bound stated
  assert.ok(floor >= 1e5 && second.ratio < floor, 'layer 0’s second norm is not among those over it');
  says('epsMargin', 'toy-llama', {
    en: [
      `(ε = ${eps.toExponential()})`,
      `the embedding's, ${smallest.minMeanSquare.toPrecision(3)} at layer 0's first norm: ${Math.round(smallest.ratio)} times ε`,
      `layer 0's second norm meets ${Math.round(second.ratio)} times ε`,
      `every norm after layer 0, the final one included, meets a mean square over ${floor.toLocaleString('en-US')} times ε`,
    ],
    zh: [
      `（ε = ${eps.toExponential()}）`,
      `词嵌入的均方，在第 0 层的第一个 Norm 处为 ${smallest.minMeanSquare.toPrecision(3)}，是 ε 的 ${Math.round(smallest.ratio)} 倍`,
      `第 0 层的第二个 Norm 处是 ε 的 ${Math.round(second.ratio)} 倍`,
      `第 0 层之后的每个 Norm（包括最终的 Norm）遇到的均方都超过 ε 的 ${floor / 1e4} 万倍`,
    ],
  });
});

test('BF16 arithmetic: the toy Llama’s final norm, summed in BF16', async () => {
  const { result, forward } = await measured('toy-llama', 'bf16Norm');
  const meanSquare = percent(Math.max(...result.positions.map((p) => Math.abs(p.meanSquareError))), 2);
  const output = percent(Math.max(...result.positions.map((p) => p.outputError)), 2);
  says('bf16Norm', 'toy-llama', {
    en: [
      `sums only ${forward.d} squares`,
      `off by up to ${meanSquare}%`,
      `output by up to ${output}% of its largest value`,
    ],
    zh: [`只累加 ${forward.d} 个平方`, `均方仍最多偏差 ${meanSquare}%`, `最多是其最大值的 ${output}%`],
  });
});

test('the wrong weight convention: both toys read as 1 + w', async () => {
  const llama = await measured('toy-llama', 'wrongConvention');
  const olmo = await measured('toy-olmo2', 'wrongConvention');
  for (const { result, forward } of [llama, olmo]) {
    assert.equal(forward.normOffset, 0, 'the toys multiply by w');
    assert.equal(result.wrong.normOffset, 1, 'and are read as 1 + w');
  }
  for (const toy of ['toy-llama', 'toy-olmo2']) {
    const { ckpt } = opened.get(toy);
    for (const w of await ckpt.normWeights()) {
      const { mean } = w.multiplier ?? w;
      assert.ok(mean > 0.5 && mean < 1.5, `${toy}: gains near 1`);
    }
  }
  const t = llama.t;
  const right = t(llama.result.right.ids[0]);
  assert.equal(right, record.toys.find((x) => x.name === 'toy-llama').probeText[64], 'the right next character');
  assert.equal(t(olmo.result.wrong.ids[0]), t(olmo.result.right.ids[0]), 'the toy OLMo 2 keeps its top token');
  const wrong = t(llama.result.wrong.ids[0]);
  const p = fixed(llama.result.wrong.probs[0], 4);
  const entropies = [fixed(olmo.result.wrong.entropy, 3), fixed(olmo.result.right.entropy, 3)];
  says('wrongConvention', 'toy-llama', {
    en: [
      `top token changes from \`${right}\`, the right next character, to \`${wrong}\`, at probability ${p}`,
      `keeps \`${right}\` on top`,
      `its entropy ${entropies[0]} nats instead of ${entropies[1]}`,
    ],
    zh: [
      `从正确的下一个字符 \`${right}\` 变成了 \`${wrong}\`，概率 ${p}`,
      `排第一的仍是 \`${right}\``,
      `熵从 ${entropies[1]} nats 降到 ${entropies[0]}`,
    ],
  });
});

test('no final norm: what the toy Llama’s final norm divides by, the entropy without the division, and the gain’s part', async () => {
  const { result, forward } = await measured('toy-llama', 'noFinalNorm');
  assert.equal(result.real.ids.length, 5, 'the line speaks of the top five');
  assert.equal(forward.finalSoftcap, 0, 'no soft-cap: every logit is scaled alike');
  assert.deepEqual(result.raw.ids, result.real.ids, 'the division alone keeps the order');
  // the logits without the division are the real ones times the scale: the probabilities are p^scale, renormalized
  const sharpened = result.real.probs.map((p) => p ** result.scale);
  const ratio = (probs) => probs[1] / probs[0];
  assert.ok(Math.abs(ratio(result.raw.probs) / ratio(sharpened) - 1) < 1e-3, 'raw = real × scale');
  assert.ok(result.raw.entropy < result.real.entropy, 'sharper');
  // the entropy without the division is near 0: two significant digits say how near
  const [real, raw] = [fixed(result.real.entropy, 3), result.raw.entropy.toPrecision(2)];
  const [kl, noGainKl] = [fixed(result.kl, 3), fixed(result.noGain.kl, 3)];
  says('noFinalNorm', 'toy-llama', {
    en: [
      `divides the last stream, ${fixed(result.streamNorm, 2)} long, by ${fixed(result.scale, 3)}`,
      `multiplies every logit by ${fixed(result.scale, 3)}`,
      `drops from ${real} to ${raw} nats (KL ${kl} nats)`,
      `KL ${noGainKl} nats`,
    ],
    zh: [
      `把长 ${fixed(result.streamNorm, 2)} 的残差流除以 ${fixed(result.scale, 3)}`,
      `每个 logit 都乘上 ${fixed(result.scale, 3)}`,
      `熵从 ${real} nats 降到 ${raw}（KL ${kl} nats）`,
      `KL 为 ${noGainKl} nats`,
    ],
  });
});

test('increments against the stream: the toy Llama’s ratios shrink for attention, grow for the MLP', async () => {
  const { result } = await measured('toy-llama', 'increments');
  const [l0, ...deeper] = result.layers;
  const end = last(deeper);
  assert.equal(result.layers.length, 4, 'the line speaks of four layers');
  for (let i = 1; i < deeper.length; i++) {
    assert.ok(deeper[i].attn < deeper[i - 1].attn, 'attention’s ratio shrinks after layer 1');
    assert.ok(deeper[i].mlp > deeper[i - 1].mlp, 'the MLP’s grows');
  }
  // the MLPs' writes themselves grow with depth (the reason the line gives)
  const { ckpt, ids } = opened.get('toy-llama');
  const run = await ckpt.run(ids);
  const writes = run.mlpNorms.slice(1).map((n) => n[result.position]);
  assert.ok(
    writes.every((w, i) => !i || w > writes[i - 1]),
    'the later MLPs write more',
  );
  says('increments', 'toy-llama', {
    en: [
      `from ${fixed(deeper[0].attn, 3)} to ${fixed(end.attn, 3)} in layer ${end.layer}`,
      `from ${fixed(deeper[0].mlp, 3)} in layer 1 to ${fixed(end.mlp, 3)} in layer ${end.layer}`,
      `layer 0's MLP, at ${fixed(l0.mlp, 3)}`,
      'Four layers trained for seconds',
    ],
    zh: [
      `由 ${fixed(deeper[0].attn, 3)} 降到第 ${end.layer} 层的 ${fixed(end.attn, 3)}`,
      `由第 1 层的 ${fixed(deeper[0].mlp, 3)} 升到第 ${end.layer} 层的 ${fixed(end.mlp, 3)}`,
      `第 0 层 MLP 的 ${fixed(l0.mlp, 3)}`,
      '4 层、只训练了片刻的模型',
    ],
  });
});

test('the layer-drop line: which of the toy Llama’s layers, each dropped alone, keep the top token, and the costliest', async () => {
  const { result, t } = await measured('toy-llama', 'dropLayers');
  const L = result.layers.length;
  const kept = result.layers.filter((l) => l.topSurvives).map((l) => l.layer);
  const lost = result.layers.filter((l) => !l.topSurvives).map((l) => l.layer);
  assert.ok(kept.length && lost.length, 'the line names both kinds');
  const worst = result.layers.reduce((a, b) => (b.kl > a.kl ? b : a)).layer;
  const top = t(result.top);
  const en = (layers) => layers.map((l) => `layer ${l}`).join(' or ');
  const zh = (layers) => layers.map((l) => `第 ${l} 层`).join('或');
  says('dropLayers', 'toy-llama', {
    en: [
      `On the ${L}-layer toy Llama`,
      `dropping ${en(kept)} alone keeps \`${top}\` on top; dropping ${en(lost)} does not`,
      `dropping layer ${worst} costs the most`,
    ],
    zh: [
      `在 ${L} 层的玩具 Llama 上`,
      `单独去掉${zh(kept)}，排第一的仍是 \`${top}\`；单独去掉${zh(lost)}则不然`,
      `去掉第 ${worst} 层代价最大`,
    ],
  });
});

test('attention scores: the toy OLMo 2 under its whole-projection bound, past the per-head one; the toy Llama unbounded', async () => {
  const olmo = await measured('toy-olmo2', 'attentionScores');
  const llama = await measured('toy-llama', 'attentionScores');
  const f = olmo.forward;
  assert.equal(f.qkNorm, 'whole', 'the toy OLMo 2 normalizes whole projections');
  assert.equal(llama.result.layers[0].bound, null, 'the toy Llama has no bound');
  const max = (r) => Math.max(...r.layers.flatMap((l) => l.maxPerHead));
  // the ceiling the same gains would set with a norm per head: scale * max|g_q| * max|g_k| * head_dim
  const perHead = f.headDim / Math.sqrt(f.heads * f.headDim * f.kvHeads * f.headDim);
  for (const l of olmo.result.layers) {
    assert.ok(Math.max(...l.maxPerHead) <= l.bound, `layer ${l.layer}: no score passes the bound`);
    assert.ok(Math.max(...l.maxPerHead) > l.bound * perHead, `layer ${l.layer}: a head passes the per-head ceiling`);
  }
  const bound0 = fixed(olmo.result.layers[0].bound, 2);
  const [top, unbounded] = [fixed(max(olmo.result), 2), fixed(max(llama.result), 2)];
  assert.ok(max(olmo.result) < 0.5 * Math.min(...olmo.result.layers.map((l) => l.bound)), 'far below the bound');
  says('attentionScores', 'toy-olmo2', {
    en: [`(${bound0} in layer 0)`, `the largest, ${top}, stays far below it`, `its scores reach ${unbounded}`],
    zh: [`（第 0 层是 ${bound0}）`, `最大的 ${top} 离上界还远`, `分数最高到 ${unbounded}`],
  });
});

test('soft-caps: neither toy can run them, and the lines say so', async () => {
  for (const toy of TOY_NAMES) {
    const { result } = await measured(toy, 'softcaps');
    assert.ok(result.unsupported, `${toy} sets no soft-cap`);
  }
  says('softcaps', 'toy-llama', {
    en: ['Neither toy sets a soft-cap', 'cannot run this one', 'Gemma 2 checkpoint'],
    zh: ['两个玩具都没有设软上限', '做不了这个实验', 'Gemma 2 的检查点'],
  });
});
