// The probe's sentences about a run, in every language: an experiment's answer never shows a small nonzero value
// as zero (the lab's number format, web/components/shared/format.js), nor the run's cost line its GFLOP; the eps
// experiment names every norm a layer can have as the reader knows it, never by its weight slot, and labels its
// bars apart; a claim that quotes a measured number says which model it measured; a bar's hover text is written
// with the language's punctuation.
//   node --test tests/js/checkpoint-probe-answers.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NORM_INPUTS } from '../../web/lib/checkpoint/claims.js';
import { LANGUAGES, stringsOf } from '../../web/languages.js';
import { QWEN_SEED } from '../../content/measurements.js';

const TINY = 3.2e-6;
// a zero written with decimals ("0.000", "0.00%"): what toFixed makes of TINY
const SHOWN_AS_ZERO = /(?<![\d.])0\.0+(?![\d.])/;
const t = (id) => `#${id}`;

/** A result of every experiment with an answer of numbers, each of its measured values TINY. */
const TINY_RESULTS = {
  noFinalNorm: {
    position: 3,
    streamNorm: TINY,
    scale: TINY,
    real: { ids: [1], entropy: TINY },
    raw: { ids: [1], entropy: TINY },
    kl: TINY,
    noGain: { ids: [1], kl: TINY },
  },
  dropLayers: { position: 3, layers: [{ layer: 0, kl: TINY, topSurvives: true }] },
  wrongConvention: {
    position: 3,
    right: { normOffset: 0, ids: [1], entropy: TINY },
    wrong: { normOffset: 1, ids: [1], entropy: TINY },
  },
  increments: { position: 3, layers: [{ layer: 0, attn: TINY, mlp: TINY }] },
  epsMargin: { eps: TINY, smallest: { layer: 0, slot: 'attnNormBefore', minMeanSquare: TINY, ratio: TINY } },
  attentionScores: { layers: [{ layer: 0, maxPerHead: [TINY], bound: TINY }] },
  streamTop: { position: 3, k: 5, states: [{ state: 0, norm: TINY, share: TINY }], random: { share: TINY } },
  bf16Norm: { positions: [{ position: 0, meanSquareError: TINY, outputError: TINY }] },
};

test('no answer and no cost line shows a small nonzero value as zero, in any language', () => {
  for (const { code } of LANGUAGES) {
    const s = stringsOf(code, 'rl-checkpoint-probe');
    for (const [name, result] of Object.entries(TINY_RESULTS)) {
      const answer = s.experiments[name].answer(result, t);
      assert.doesNotMatch(answer, SHOWN_AS_ZERO, `${code}, ${name}: ${answer}`);
    }
    const cost = s.runCost({ model: '0.8 MB', read: '0.8 MB', flops: 2.6e7, estimatedSeconds: 0.01 }, 1);
    assert.doesNotMatch(cost, SHOWN_AS_ZERO, `${code}: ${cost}`);
    assert.ok(cost.includes('0.026 GFLOP'), `${code}: ${cost}`);
  }
});

test('the eps experiment names every norm by a reader name, each its own, and gives each bar its own label', () => {
  const slots = [...NORM_INPUTS, 'finalNorm'];
  for (const { code } of LANGUAGES) {
    const s = stringsOf(code, 'rl-checkpoint-probe');
    assert.deepEqual(Object.keys(s.normNames).sort(), [...slots].sort(), `${code}: a name for every norm`);
    const names = slots.map((slot) => s.normNames[slot]);
    assert.equal(new Set(names).size, slots.length, `${code}: no two norms share a name`);
    for (const slot of slots) assert.ok(!s.normNames[slot].includes(slot), `${code}: ${slot} is not its own name`);
    // the bars of a model with every norm: layers 0 and 1, then the final norm
    const bars = [0, 1].flatMap((layer) => NORM_INPUTS.map((slot) => s.normBar(layer, s.normShort[slot])));
    assert.equal(new Set([...bars, s.finalShort]).size, bars.length + 1, `${code}: ${bars.join(' | ')}`);
    for (const [slot, layer] of [
      ['qNorm', 2],
      ['finalNorm', null],
    ]) {
      const answer = s.experiments.epsMargin.answer({
        eps: 1e-6,
        smallest: { layer, slot, minMeanSquare: 0.00536, ratio: 5360 },
      });
      assert.ok(answer.includes(s.normNames[slot]) && !answer.includes(slot), `${code}: ${answer}`);
    }
  }
});

test("a claim quoting the chapter's measurement names the model it was measured on", () => {
  for (const { code } of LANGUAGES) {
    const { claim } = stringsOf(code, 'rl-checkpoint-probe').experiments.streamTop;
    assert.ok(claim.includes(String(QWEN_SEED.embedding)), `${code}: ${claim}`);
    assert.ok(claim.includes(QWEN_SEED.model), `${code}: ${claim}`);
  }
});

test("a bar's hover text is written in its language's punctuation", () => {
  assert.equal(
    stringsOf('en', 'common').barTitle('entropy (nats)', 'the other one', '0.42'),
    'entropy (nats), the other one: 0.42',
  );
  assert.equal(
    stringsOf('zh', 'common').barTitle('熵（nats）', '模型自己的约定', '0.42'),
    '熵（nats），模型自己的约定：0.42',
  );
});
