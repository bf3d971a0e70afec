// The chapter's measurement set beside the reader's in <rl-checkpoint-probe> (web/components/checkpoint-probe/
// seed.js): the model is recognised from the real Qwen2.5-0.5B-Instruct config.json and from nothing else (its
// near misses, the shipped toys, the fixture families), and the comparison's rows read the run at the points the
// chapter states, checked against a run of a Qwen-shaped checkpoint of 24 layers.
//   node --test tests/js/checkpoint-seed.test.mjs     after `node scripts/build.mjs`
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { load } from '../../dist/lib/residual-lab.js';
import { QWEN_SEED } from '../../content/measurements.js';
import { probeRows } from '../../web/components/checkpoint-probe/compute.js';
import {
  SEEDS,
  comparable,
  configOf,
  middleLayers,
  seedOf,
  seedRows,
} from '../../web/components/checkpoint-probe/seed.js';
import { FAMILIES, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { qwenShaped } from '../fixtures/checkpoints/qwen-shaped.mjs';
import { models } from '../fixtures/toys.mjs';

const realText = readFileSync(new URL('../fixtures/configs/qwen2.5-0.5b-instruct.json', import.meta.url), 'utf8');
const real = JSON.parse(realText);

let lab;
before(async () => {
  lab = await load();
});

test('the real Qwen2.5-0.5B-Instruct config.json is recognised, as text, bytes or object', () => {
  assert.equal(seedOf(real), QWEN_SEED);
  assert.equal(seedOf(configOf({ 'config.json': realText })), QWEN_SEED);
  assert.equal(seedOf(configOf({ 'config.json': new TextEncoder().encode(realText).buffer })), QWEN_SEED);
  assert.deepEqual(SEEDS, [QWEN_SEED]);
});

test('near misses are not the seed: each shape field changed, other Qwen sizes, another family of the same shape', () => {
  for (const [key, value] of Object.entries(QWEN_SEED.config)) {
    const changed = typeof value === 'number' ? value * 2 : typeof value === 'boolean' ? !value : `${value}x`;
    assert.equal(seedOf({ ...real, [key]: changed }), null, `${key}: ${changed}`);
    const { [key]: _, ...without } = real;
    assert.equal(seedOf(without), null, `without ${key}`);
    if (typeof value === 'number') assert.equal(seedOf({ ...real, [key]: String(value) }), null, `${key} as text`);
  }
  const nearMisses = {
    'Qwen2.5-1.5B-Instruct': {
      hidden_size: 1536,
      num_hidden_layers: 28,
      num_attention_heads: 12,
      intermediate_size: 8960,
    },
    'Qwen3-0.6B': {
      model_type: 'qwen3',
      hidden_size: 1024,
      num_hidden_layers: 28,
      num_attention_heads: 16,
      num_key_value_heads: 8,
      intermediate_size: 3072,
      head_dim: 128,
    },
    'a Llama of the same shape': { model_type: 'llama', architectures: ['LlamaForCausalLM'] },
    'untied head': { tie_word_embeddings: false },
    'another RoPE base': { rope_theta: 10000 },
  };
  for (const [name, fields] of Object.entries(nearMisses)) assert.equal(seedOf({ ...real, ...fields }), null, name);
});

test('the shipped toys, the fixture families and configs that do not parse are not the seed', () => {
  const toys = readdirSync(models).filter((name) => name.startsWith('toy-'));
  assert.ok(toys.length >= 2, toys.join());
  for (const toy of toys) {
    const text = readFileSync(`${models}${toy}/config.json`);
    assert.equal(seedOf(configOf({ 'config.json': new Uint8Array(text) })), null, toy);
  }
  for (const family of FAMILIES)
    for (const tied of [false, true])
      assert.equal(seedOf(makeConfig(family, { tied })), null, `${family} tied ${tied}`);
  assert.equal(configOf({ 'config.json': '{ not json' }), null);
  assert.equal(configOf({}), null);
  assert.equal(seedOf(null), null);
  assert.equal(seedOf([]), null);
});

test("the comparison's rows read the run where the chapter measured: embedding, layer 0, middle, 22, 23, the FFN", async () => {
  const { files } = qwenShaped();
  const ckpt = await lab.openCheckpoint(files);
  try {
    const ids = [3, 14, 15, 9, 26, 5, 35];
    const T = ids.length;
    const run = await ckpt.run(ids, { lens: { k: 3, position: T - 1 } });
    const rows = seedRows(
      QWEN_SEED,
      probeRows(run, await ckpt.normWeights(), (id) => `#${id}`),
    );
    const at = (norms) => norms[T - 1];
    const byKey = Object.fromEntries(rows.map((row) => [row.key, row]));
    assert.deepEqual(Object.keys(byKey), [
      'embedding',
      'afterLayer0',
      'middle',
      'peak',
      'last',
      'lastFfn',
      'increments',
    ]);
    assert.deepEqual(
      rows.map((row) => row.seed),
      [0.47, 4.8, [15, 20], 76.1, 58.1, 77, [1, 15]],
      "the chapter's numbers",
    );
    assert.equal(run.streamNorms.length, 25);
    assert.equal(byKey.embedding.yours, at(run.streamNorms[0]));
    assert.equal(byKey.afterLayer0.yours, at(run.streamNorms[1]));
    assert.deepEqual(middleLayers(24), [6, 17]);
    const middle = run.streamNorms.slice(7, 19).map(at);
    assert.equal(byKey.middle.yours, Math.max(...middle), 'where the climb reaches, not its lowest');
    assert.equal(byKey.peak.layer, 22);
    assert.equal(byKey.peak.yours, at(run.streamNorms[23]));
    assert.equal(byKey.last.layer, 23);
    assert.equal(byKey.last.yours, at(run.streamNorms[24]));
    assert.equal(byKey.lastFfn.yours, at(run.mlpNorms[23]));
    const others = [...run.attnNorms, ...run.mlpNorms.slice(0, 23)].map(at);
    assert.deepEqual(byKey.increments.yours, { within: others.filter((v) => v >= 1 && v <= 15).length, of: 47 });
  } finally {
    ckpt.dispose();
  }
});

test('increments are counted within the closed range; the middle is the middle half of the layers', () => {
  const L = 8;
  const rows = {
    layers: L,
    streamAt: [0, 1, 2, 3, 4, 5, 6, 7, 8].map((v) => v * 10),
    attnAt: [0.5, 1, 15, 15.01, 3, 3, 3, 3],
    mlpAt: [2, 2, 2, 2, 2, 2, 2, 99],
  };
  const seed = { ...QWEN_SEED, peak: { layer: 6, norm: 76.1 } };
  const byKey = Object.fromEntries(seedRows(seed, rows).map((row) => [row.key, row]));
  assert.deepEqual(middleLayers(L), [2, 5]);
  assert.equal(byKey.middle.yours, 60, 'the highest after layers 2 .. 5 (states 3 .. 6)');
  assert.equal(byKey.peak.yours, 70);
  assert.equal(byKey.last.yours, 80);
  assert.equal(byKey.lastFfn.yours, 99);
  assert.deepEqual(byKey.increments.yours, { within: 13, of: 15 }, '0.5 and 15.01 outside; the last FFN apart');
});

test("comparable: the chapter's prompt (spaces around it aside) at its last position, and nothing else", () => {
  assert.deepEqual(comparable(QWEN_SEED, '年假怎么申请？', 4, 5), { prompt: true, position: true });
  assert.deepEqual(comparable(QWEN_SEED, ' 年假怎么申请？\n', 4, 5), { prompt: true, position: true });
  assert.deepEqual(comparable(QWEN_SEED, '年假怎么申请?', 4, 5), { prompt: false, position: true });
  assert.deepEqual(comparable(QWEN_SEED, '年假怎么申请？', 3, 5), { prompt: true, position: false });
});
