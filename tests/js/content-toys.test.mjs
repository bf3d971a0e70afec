// The shipped trained toys' residual stream as the chapter (#residual-stream, both languages) and
// docs/experiments.md quote it, recomputed through the API on the files in web/models/: lab.openCheckpoint for the
// trained toy, lab.createDecoder with the toy's initial weights for the toy before training, at the last of the
// first contextLength characters of its probe text. A retrained toy with other numbers fails here until the text
// says what the new files do.
// Run: node --test tests/js/content-toys.test.mjs     after `node scripts/build.mjs` (uses dist/lib/)
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from '../../dist/lib/residual-lab.js';
import { toyWindow, untrainedToyConfig } from '../../web/components/shared/toy-stream.js';
import { record, toyFiles } from '../fixtures/toys.mjs';
import { rowAfter } from './markdown-tables.mjs';
import { LANGUAGES } from '../../web/languages.js';

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const section = (lang) => {
  const text = read(`content/${lang}/chapter.md`);
  const start = text.indexOf('{#residual-stream}');
  return text.slice(start, text.indexOf('\n## ', start));
};
const toyOf = (placement) => record.toys.find((toy) => toy.engineConfig.placement === placement);
const p3 = (value) => value.toPrecision(3);
const f1 = (value) => value.toFixed(1);

/** |h| after each layer and each sublayer's increment at the last position, trained and before training. */
function measure(lab, toy) {
  const T = toy.engineConfig.contextLength;
  const L = toy.engineConfig.nLayers;
  const checkpoint = lab.openCheckpoint(toyFiles(toy));
  return checkpoint.then(async (ckpt) => {
    const ids = ckpt.tokenize(toyWindow(toy)); // what both widgets read
    assert.equal(ids.length, T, 'one token per character');
    const run = await ckpt.run(ids);
    ckpt.dispose();
    const last = (rows) => rows.map((row) => row[T - 1]);
    const trained = { stream: last(run.streamNorms), increments: [] };
    for (let l = 0; l < L; l++) trained.increments.push(run.attnNorms[l][T - 1], run.mlpNorms[l][T - 1]);
    const decoder = lab.createDecoder(untrainedToyConfig(toy));
    const { stats } = decoder.forward(ids);
    decoder.dispose();
    const at = (values, point) => values[point * T + T - 1];
    const untrained = {
      stream: Array.from({ length: L + 1 }, (_, l) => at(stats.streamNorm, 2 * l)),
      increments: Array.from({ length: 2 * L }, (_, j) => at(stats.incrementNorm, j)),
    };
    return { T, L, trained, untrained };
  });
}

let llama, olmo2;
before(async () => {
  const lab = await load();
  llama = await measure(lab, toyOf('pre'));
  olmo2 = await measure(lab, toyOf('olmo2'));
});

/** The numbers `pattern` captures in `text`, as written. */
function captured(text, pattern, lang) {
  const match = pattern.exec(text);
  assert.ok(match, `${lang}: the section lacks ${pattern}`);
  return match.slice(1);
}

const CLAIMS = {
  en: {
    window: /at the last of the (\d+) characters of its probe text/,
    untrained: /Before training, the stream is ([\d.]+) long at the embedding and ([\d.]+) after the last layer/,
    below: /every increment is below ([\d.]+)/,
    trained:
      /After (\d+) training steps it is ([\d.]+) at the embedding, ([\d.]+) after layer 0, then ([\d.]+), ([\d.]+) and ([\d.]+)\./,
    largest:
      /layer 0's FFN, which writes ([\d.]+), the largest increment in the toy; every other increment is between ([\d.]+) and ([\d.]+)\./,
    lastLayer: /the stream still lengthens in layer (\d+)/,
    olmo2: /trained toy's (eight) increments all measure between ([\d.]+) and ([\d.]+) and its trunk reaches ([\d.]+);/,
    olmo2Untrained: /still the trunk grows from ([\d.]+) to ([\d.]+) \(×(\d+), against ×(\d+) trained\)\./,
  },
  zh: {
    window: /探测文本 (\d+) 个字符中最后一个位置/,
    untrained: /训练之前，残差流在词嵌入处长 ([\d.]+)，到最后一层之后也只有 ([\d.]+)：/,
    below: /每个增量都不到 ([\d.]+)，/,
    trained:
      /训练 (\d+) 步之后，词嵌入处是 ([\d.]+)，第 0 层之后是 ([\d.]+)，接下来依次是 ([\d.]+)、([\d.]+)、([\d.]+)。/,
    largest: /第 0 层的 FFN，它写进去 ([\d.]+)，是整个玩具里最大的增量；其余增量都在 ([\d.]+) 到 ([\d.]+) 之间。/,
    lastLayer: /第 (\d+) 层还在让主干变长/,
    olmo2: /玩具那 (\d+) 个增量的长度都在 ([\d.]+) 到 ([\d.]+) 之间，主干长到 ([\d.]+)；/,
    olmo2Untrained: /主干却照样从 ([\d.]+) 长到 ([\d.]+)（×(\d+)，训练后是 ×(\d+)）。/,
  },
};
const COUNT_WORDS = { eight: '8' };

test('every language has its patterns of the toy claims', () => {
  assert.deepEqual(Object.keys(CLAIMS).sort(), LANGUAGES.map((row) => row.code).sort());
});

for (const { code: lang } of LANGUAGES) {
  const claims = CLAIMS[lang] ?? {};
  test(`${lang}: the residual-stream section quotes the Llama-style toy as the API measures it`, () => {
    const text = section(lang);
    const { T, L, trained, untrained } = llama;
    assert.deepEqual(captured(text, claims.window, lang), [String(T)]);
    assert.deepEqual(captured(text, claims.untrained, lang), [p3(untrained.stream[0]), p3(untrained.stream[L])]);
    // "below x": x is the largest increment rounded up at two decimals
    const [bound] = captured(text, claims.below, lang);
    assert.equal(bound, (Math.ceil(Math.max(...untrained.increments) * 100) / 100).toFixed(2));
    assert.deepEqual(captured(text, claims.trained, lang), [String(toyOf('pre').steps), ...trained.stream.map(p3)]);
    const [first, ...others] = [trained.increments[1], trained.increments[0], ...trained.increments.slice(2)];
    assert.equal(Math.max(first, ...others), first, "layer 0's MLP writes the largest increment");
    assert.deepEqual(captured(text, claims.largest, lang), [
      p3(first),
      f1(Math.min(...others)),
      f1(Math.max(...others)),
    ]);
    const [layer] = captured(text, claims.lastLayer, lang).map(Number);
    assert.equal(layer, L - 1, 'the last layer');
    assert.ok(trained.stream[L] > trained.stream[L - 1], 'the stream still grows in the last layer');
  });

  test(`${lang}: the residual-stream section quotes the OLMo 2-style toy as the API measures it`, () => {
    const text = section(lang);
    const { L, trained, untrained } = olmo2;
    const [count, ...rest] = captured(text, claims.olmo2, lang);
    assert.equal(COUNT_WORDS[count] ?? count, String(2 * L));
    assert.deepEqual(rest, [
      f1(Math.min(...trained.increments)),
      f1(Math.max(...trained.increments)),
      p3(trained.stream[L]),
    ]);
    // the growth factors that make it "mostly the placement's": ×28 before training against ×38 after
    assert.deepEqual(captured(text, claims.olmo2Untrained, lang), [
      p3(untrained.stream[0]),
      p3(untrained.stream[L]),
      String(Math.round(untrained.stream[L] / untrained.stream[0])),
      String(Math.round(trained.stream[L] / trained.stream[0])),
    ]);
    // "a raw sublayer output's mean square below eps": ms < eps, so |Norm(F)| = √d·√(ms / (ms + eps)) < √d / √2
    // (weights 1)
    const d = toyOf('olmo2').engineConfig.dModel;
    for (const increment of untrained.increments) assert.ok(increment < Math.sqrt(d / 2), `${increment}`);
  });
}

test("docs/experiments.md's table of the toys' streams is what the API measures", () => {
  const docs = read('docs/experiments.md');
  const row = (name, state) => {
    const cells = rowAfter(docs, `\`${name}\``, state);
    assert.ok(cells, `docs: no row for ${name}, ${state}`);
    return cells;
  };
  const pairs = (increments) =>
    Array.from(
      { length: increments.length / 2 },
      (_, l) => `${p3(increments[2 * l])}, ${p3(increments[2 * l + 1])}`,
    ).join('; ');
  for (const [name, m] of [
    ['toy-llama', llama],
    ['toy-olmo2', olmo2],
  ]) {
    const trained = row(name, 'trained');
    assert.deepEqual(trained, [...m.trained.stream.map(p3), pairs(m.trained.increments)], `${name} trained`);
    const untrained = row(name, 'before training');
    assert.deepEqual(untrained.slice(0, -1), m.untrained.stream.map(p3), `${name} before training`);
    const increments =
      name === 'toy-llama'
        ? `all ${Math.min(...m.untrained.increments).toPrecision(2)} to ${Math.max(...m.untrained.increments).toPrecision(2)}`
        : pairs(m.untrained.increments);
    assert.equal(untrained.at(-1), increments, `${name} increments before training`);
  }
  const growth = (m, state) => m[state].stream.at(-1) / m[state].stream[0];
  assert.ok(
    docs.includes(
      `before it the trunk grows ×${p3(growth(llama, 'untrained'))}, after it ×${p3(growth(llama, 'trained'))}`,
    ),
    'docs: the Llama-style growth',
  );
  const [u0, uTop] = [olmo2.untrained.stream[0], olmo2.untrained.stream.at(-1)];
  assert.ok(
    docs.includes(`×${Math.round(growth(olmo2, 'untrained'))} (${p3(u0)} to ${p3(uTop)})`) &&
      docs.includes(`${p3(olmo2.trained.stream.at(-1))} (×${Math.round(growth(olmo2, 'trained'))})`),
    'docs: the OLMo 2-style growth',
  );
});

// What each language's position-0 hint says of the shipped toys (its sentence shown while a toy is drawn).
const ZERO_WHY = {
  en: /their position 0 ends within a fifth of the last position’s length, shorter in the Llama-style toy, longer in the OLMo 2-style one/,
  zh: /相差不到五分之一，仿 Llama 的短一些，仿 OLMo 2 的长一些/,
};

test("the probe's position-0 hint says what the shipped toys show: within a fifth of the last position, shorter in the Llama-style toy, longer in the OLMo 2-style one", async () => {
  const lab = await load();
  const ratio = {};
  for (const toy of record.toys) {
    const ckpt = await lab.openCheckpoint(toyFiles(toy));
    const ids = ckpt.tokenize(toyWindow(toy));
    const top = (await ckpt.run(ids)).streamNorms.at(-1);
    ckpt.dispose();
    ratio[toy.engineConfig.placement] = top[0] / top[ids.length - 1];
  }
  for (const r of Object.values(ratio)) assert.ok(Math.abs(r - 1) < 0.2, `within a fifth: ${r}`);
  assert.ok(ratio.pre < 1, `Llama-style: position 0 shorter (${ratio.pre})`);
  assert.ok(ratio.olmo2 > 1, `OLMo 2-style: position 0 longer (${ratio.olmo2})`);
  for (const { code, strings } of LANGUAGES) {
    assert.ok(ZERO_WHY[code], `${code}: no pattern of the position-0 hint`);
    assert.match(strings['rl-checkpoint-probe'].zeroToys, ZERO_WHY[code], code);
  }
});
