// The chapter's "try it on a model" line for gradients: one per language, in the section on why deep networks need
// residuals, opening <rl-gradient-flow> on a shipped toy; each number it states is the one ckpt.gradients gives on
// that toy's window, summarized as the widget draws it (gradient-flow/model-gradients.js gradientSummary).
//   node --test tests/js/content-gradients.test.mjs     after `node scripts/build.mjs`
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { gradientSummary } from '../../web/components/gradient-flow/model-gradients.js';
import { toyWindow } from '../../web/components/shared/toys.js';
import { chapters } from './chapter-text.mjs';
import { CODES, perLanguage } from './per-language.mjs';
import { record, toyFiles } from '../fixtures/toys.mjs';

// [text](?grad.model=<toy>#rl-grad): the widget's own address state, as its share menu writes it
const LINK = /\]\(\?grad\.model=([a-z0-9-]+)#rl-grad\)/g;

const lines = Object.fromEntries(
  CODES.map((code) => {
    const ch = chapters[code];
    const found = [];
    ch.lines.forEach((text, i) => {
      if (ch.inCode[i]) return;
      for (const [, toy] of text.matchAll(LINK)) found.push({ text, section: ch.sectionOf[i], toy });
    });
    return [code, found];
  }),
);

test('one line per language opens the gradient widget on a shipped toy, in the section on residuals', () => {
  for (const code of CODES) {
    assert.equal(lines[code].length, 1, `${code}: one line opens the gradient widget on a model`);
    assert.equal(lines[code][0].section, 'why-residuals', `${code}: in the section on why residuals`);
    assert.ok(
      record.toys.some((t) => t.name === lines[code][0].toy),
      `${code}: a shipped toy`,
    );
  }
});

const api = await load();
const opened = [];
after(() => opened.forEach((ckpt) => ckpt.dispose()));

/** gradientSummary of ckpt.gradients on the toy's window (the default next-token loss), as the widget draws it. */
async function summary(name) {
  const toy = record.toys.find((t) => t.name === name);
  const ckpt = await api.openCheckpoint(toyFiles(toy));
  opened.push(ckpt);
  const ids = ckpt.tokenize(toyWindow(toy));
  return { ids, s: gradientSummary(await ckpt.gradients(ids)) };
}

test('the toys’ gradients: what the skips carry and what the branches alone would', async () => {
  const { ids, s } = await summary('toy-llama');
  const olmo = (await summary('toy-olmo2')).s;
  const L = s.layers;
  const inner = Array.from({ length: L - 1 }, (_, k) => L - 1 - k); // layers 3, 2, 1: the stream entering each
  const fixed = (v, d) => v.toFixed(d);
  const stream = inner.map((i) => fixed(s.stream[i], 2));
  const only = inner.map((i) => s.branchOnly[i].toPrecision(3));
  const innerGains = s.gains.slice(1).flatMap((g) => [g.attn, g.mlp]);
  // the factor lost per layer without the skips, from the top down to layer 1's input
  const lost = inner.map((i) => s.branchOnly[i + 1] / s.branchOnly[i]);
  const olmoInner = inner.map((i) => olmo.stream[i]);
  // what the line claims as shape, held here too: the skips keep the inner points within 2x of the top, the
  // branch-only gradient falls layer after layer, and layer 0's MLP lifts the embedding's
  assert.ok(
    inner.every((i) => s.stream[i] > 1 && s.stream[i] < 2),
    'with the skips: within 2x of the top',
  );
  assert.ok(
    inner.every((i) => s.branchOnly[i] < s.branchOnly[i + 1]),
    'without: falling layer after layer',
  );
  assert.ok(s.gains[0].mlp > 1 && s.stream[0] > 10, "layer 0's MLP lifts the embedding's gradient");
  assert.equal(ids.length, 64);
  const range = (values, d) => `${fixed(Math.min(...values), d)}`;
  const upTo = (values, d) => `${fixed(Math.max(...values), d)}`;
  const fragments = {
    en: [
      `over the ${ids.length} characters it reads`,
      `entering layers ${inner.join(', ').replace(/, (\d+)$/, ' and $1')} is ${stream.slice(0, -1).join(', ')} and ${stream.at(-1)} times`,
      `between ${range(innerGains, 2)} and ${upTo(innerGains, 2)} of the gradient it receives`,
      `receive ${only.slice(0, -1).join(', ')} and ${only.at(-1)} of the top gradient`,
      `a factor of ${range(lost, 1)} to ${upTo(lost, 1)} lost per layer`,
      `${fixed(s.stream[0], 1)} times the top gradient with the skips against ${s.branchOnly[0].toPrecision(2)} without`,
      `branch gain of ${fixed(s.gains[0].mlp, 2)}`,
      `(${range(olmoInner, 2)} to ${upTo(olmoInner, 2)} with the skips)`,
      `Only ${L} layers deep`,
    ],
    zh: [
      `在它读的 ${ids.length} 个字符上`,
      `进入第 ${inner.join('、')} 层的残差流上的梯度分别是顶层的 ${stream.join('、')} 倍`,
      `的 ${range(innerGains, 2)} 到 ${upTo(innerGains, 2)} 倍传回去`,
      `只剩顶层梯度的 ${only.slice(0, -1).join('、')} 和 ${only.at(-1)}`,
      `每过一层损失 ${range(lost, 1)} 到 ${upTo(lost, 1)} 倍`,
      `带跳连是顶层的 ${fixed(s.stream[0], 1)} 倍，去掉跳连只有 ${s.branchOnly[0].toPrecision(2)}`,
      `分支增益高达 ${fixed(s.gains[0].mlp, 2)}`,
      `（带跳连时在 ${range(olmoInner, 2)} 到 ${upTo(olmoInner, 2)} 之间）`,
      `玩具只有 ${L} 层`,
    ],
  };
  for (const [code, list] of perLanguage('gradients: fragments', fragments)) {
    const { text, toy } = lines[code][0];
    assert.equal(toy, 'toy-llama', `${code}: the line opens the widget on the toy it speaks of first`);
    for (const fragment of list) assert.ok(text.includes(fragment), `${code}: «${fragment}» in ${text}`);
  }
});
