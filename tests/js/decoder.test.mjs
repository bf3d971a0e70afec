// The decoder's public JS API under node's test runner: defaults, forward/backward against finite
// differences computed from JS, parameter round trips, bad configs and bad calls, dispose and the heap.
//   node --test tests/js/decoder.test.mjs          after `node scripts/build.mjs` (uses dist/lib/residual-lab.js)
// RL_DECODER_GLUE=/path/residual_lab.mjs runs the same tests against a module built elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

async function loadDecoderApi() {
  if (process.env.RL_DECODER_GLUE) {
    const glue = process.env.RL_DECODER_GLUE;
    const { default: createModule } = await import(glue);
    const Module = await createModule({ wasmBinary: readFileSync(glue.replace(/\.mjs$/, '.wasm')) });
    const { createDecoderApi } = await import('../../web/lib/decoder.js');
    return createDecoderApi(Module, Module.describeOptions());
  }
  const dist = new URL('../../dist/lib/residual-lab.js', import.meta.url);
  assert.ok(existsSync(fileURLToPath(dist)), 'dist/lib/residual-lab.js is missing: run `node scripts/build.mjs` first');
  const { load } = await import(dist.href);
  const lab = await load();
  assert.equal(typeof lab.createDecoder, 'function', 'the lab object does not expose createDecoder');
  return lab;
}

const lab = await loadDecoderApi();
const TINY = { vocabSize: 11, dModel: 8, nHeads: 2, dFF: 12, nLayers: 2, contextLength: 6 };

// splitmix64-free little generator: deterministic values in [-1, 1)
function pseudoRandom(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

test('createDecoder() fills every default', () => {
  const m = lab.createDecoder();
  assert.deepEqual(
    { ...m.config, init: { ...m.config.init } },
    {
      vocabSize: 64,
      dModel: 64,
      nHeads: 4,
      dFF: null,
      nLayers: 4,
      contextLength: 64,
      mlp: 'gelu',
      norm: 'layernorm',
      placement: 'pre',
      residual: true,
      qkNorm: false,
      qkNormShape: 'head',
      attnSoftcap: null,
      finalSoftcap: null,
      posEmbed: true,
      rope: false,
      ropeTheta: 10000,
      eps: 1e-5,
      init: { scheme: 'normal', std: 0.02, residualScaling: false, embedScale: 1, zeroQK: false, qkGain: 1, seed: 0 },
    },
  );
  const layout = m.paramLayout();
  const last = layout[layout.length - 1];
  assert.equal(last.name, 'lm_head.weight');
  assert.deepEqual(last.shape, [64, 64]);
  assert.equal(last.offset + last.size, m.numParams);
  assert.equal(m.params().length, m.numParams);
  m.dispose();
});

test('rope and qkNormShape reach the engine: layout, position 0 unturned, an odd head width refused', () => {
  const base = { ...TINY, norm: 'rmsnorm', placement: 'olmo2', qkNorm: true, posEmbed: false };
  const whole = lab.createDecoder({ ...base, qkNormShape: 'projection', rope: true, ropeTheta: 10 });
  const shapeOf = (m, name) => m.paramLayout().find((t) => t.name === name).shape;
  assert.deepEqual(shapeOf(whole, 'layers.0.attn.q_norm.weight'), [8]);
  const plain = lab.createDecoder({ ...base, qkNormShape: 'projection' });
  plain.setParams(whole.params());
  const tokens = [1, 2, 3, 4];
  const a = whole.forward(tokens).logits,
    b = plain.forward(tokens).logits;
  // RoPE turns nothing at position 0 and every later position's attention
  assert.deepEqual(a.slice(0, 11), b.slice(0, 11));
  assert.notDeepEqual(a.slice(33), b.slice(33));
  const perHead = lab.createDecoder(base);
  assert.deepEqual(shapeOf(perHead, 'layers.0.attn.q_norm.weight'), [4]);
  assert.throws(() => lab.createDecoder({ ...TINY, dModel: 6, rope: true }), /rope needs an even head width/);
  assert.throws(() => lab.createDecoder({ ...TINY, qkNormShape: 'layer' }), /qkNormShape/);
  for (const m of [whole, plain, perHead]) m.dispose();
});

test('forward returns loss, logits and per-layer stats of the right shapes', () => {
  const m = lab.createDecoder({
    ...TINY,
    placement: 'sandwich',
    norm: 'rmsnorm',
    qkNorm: true,
    attnSoftcap: 5,
    finalSoftcap: 10,
  });
  const tokens = Int32Array.from([1, 2, 3, 4, 5]);
  const r = m.forward(tokens, [2, 3, 4, 5, 6], { logitLens: 3 });
  assert.ok(Number.isFinite(r.loss) && r.loss > 0);
  assert.equal(r.logits.length, 5 * 11);
  assert.ok(r.logits.every((z) => Math.abs(z) < 10)); // final soft-cap 10
  assert.equal(r.stats.streamNorm.length, 5 * 5);
  assert.equal(r.stats.incrementRatio.length, 4);
  assert.equal(r.stats.maxAttnLogit.length, 4);
  assert.equal(r.logitLens.topTokens.length, 5 * 5 * 3);
  // the loss is the mean cross-entropy of the returned logits
  const targets = [2, 3, 4, 5, 6];
  let total = 0;
  for (let t = 0; t < 5; t++) {
    const row = Array.from(r.logits.subarray(t * 11, t * 11 + 11));
    const m0 = Math.max(...row);
    total += Math.log(row.reduce((s, z) => s + Math.exp(z - m0), 0)) + m0 - row[targets[t]];
  }
  assert.ok(Math.abs(total / 5 - r.loss) < 1e-5);
  assert.equal(m.forward(tokens).loss, null);
  m.dispose();
});

test('backward agrees with finite differences taken through the JS API', () => {
  for (const placement of ['post', 'pre', 'sandwich', 'olmo2', 'deepnorm']) {
    const m = lab.createDecoder({ ...TINY, placement, norm: 'layernorm', mlp: 'swiglu', init: { std: 0.4, seed: 3 } });
    const tokens = [3, 1, 4, 1, 5],
      targets = [9, 2, 6, 5, 3];
    m.forward(tokens, targets);
    const norms = m.backward();
    const grads = m.grads();
    const p0 = m.params();
    const rand = pseudoRandom(7);
    const direction = Float32Array.from(p0, () => rand());
    const length = Math.hypot(...direction);
    direction.forEach((v, i) => {
      direction[i] = v / length;
    });
    const loss = (s) => {
      m.setParams(Float32Array.from(p0, (v, i) => v + s * direction[i]));
      return m.forward(tokens, targets).loss;
    };
    const h = 1e-2;
    const numeric = (loss(h) - loss(-h)) / (2 * h);
    const analytic = grads.reduce((s, g, i) => s + g * direction[i], 0);
    assert.ok(
      Math.abs(numeric - analytic) <= 2e-3 * Math.abs(analytic) + 1e-4,
      `${placement}: numeric ${numeric}, analytic ${analytic}`,
    );
    // per-layer norms name the layer's tensors
    assert.ok(norms.layers[1]['mlp.gate.weight'] > 0);
    assert.ok(norms.global['lm_head.weight'] > 0);
    assert.equal(norms.streamGradNorm.length, 5);
    m.dispose();
  }
});

test('params, setParams and grads round-trip in the PyTorch layout', () => {
  const m = lab.createDecoder(TINY);
  const p = m.params();
  p[0] = 0.125;
  m.setParams(p);
  assert.equal(m.params()[0], 0.125);
  const embed = m.paramLayout().find((t) => t.name === 'embed.weight');
  assert.deepEqual(embed.shape, [11, 8]);
  const kept = m.params()[5];
  p[5] = NaN;
  assert.throws(() => m.setParams(p), /embed\.weight\) is not finite/);
  assert.equal(m.params()[5], kept); // a refused vector changes nothing
  assert.throws(() => m.setParams(new Float32Array(3)), /expected \d+ parameters, got 3/);
  m.dispose();
});

test('bad configs and bad calls throw clear errors, and the module keeps working', () => {
  assert.throws(() => lab.createDecoder({ nLayers: 0 }), /nLayers must be an integer from 1 to 1024 \(got 0\)/);
  assert.throws(() => lab.createDecoder({ dModel: 64, nHeads: 3 }), /nHeads \(3\) must divide dModel \(64\)/);
  assert.throws(
    () => lab.createDecoder({ placement: 'peri' }),
    /placement must be one of pre, post, sandwich, olmo2, deepnorm \(got "peri"\)/,
  );
  assert.throws(() => lab.createDecoder({ norm: 'batchnorm' }), /norm must be one of/);
  assert.throws(() => lab.createDecoder({ dmodel: 64 }), /unknown config key "dmodel"/);
  assert.throws(() => lab.createDecoder({ init: { sede: 1 } }), /unknown init key "sede"/);
  // own keys only: inherited names and JSON's "__proto__" are unknown keys, not loopholes
  for (const key of ['constructor', 'toString', '__proto__']) {
    assert.throws(() => lab.createDecoder(JSON.parse(`{"${key}": 5}`)), new RegExp(`unknown config key "${key}"`));
  }
  assert.throws(
    () => lab.createDecoder({ init: JSON.parse('{"__proto__": {"std": 1}}') }),
    /unknown init key "__proto__"/,
  );
  assert.throws(() => lab.createDecoder({ nLayers: 2.5 }), /nLayers must be an integer from 1 to 1024 \(got 2.5\)/);
  assert.throws(() => lab.createDecoder({ attnSoftcap: -1 }), /attnSoftcap must be a finite number above 0 \(got -1\)/);
  assert.throws(() => lab.createDecoder({ eps: NaN }), /eps must be a finite number above 0 and at most 1 \(got NaN\)/);
  assert.throws(
    () => lab.createDecoder({ dModel: 512, nHeads: 16, nLayers: 64, contextLength: 128 }),
    /model too large/,
  );
  const m = lab.createDecoder(TINY);
  assert.throws(() => m.forward([1, 11, 2]), /token 11 at position 1 is outside the vocabulary \[0, 11\)/);
  assert.throws(() => m.forward([1, 2, 3, 4, 5, 6, 7]), /exceeds contextLength 6/);
  assert.throws(() => m.forward([1, 2], [3]), /targets has 1 entries/);
  assert.throws(() => m.forward([1, 2.5]), /tokens\[1\] must be an integer/);
  assert.throws(() => m.forward([2 ** 32 + 1]), /tokens\[0\] must be an integer token id/);
  assert.throws(() => m.trainStep({ lr: NaN }), /lr must be a finite number above 0 and at most 100 \(got NaN\)/);
  assert.throws(() => m.trainStep({ learningRate: 1 }), /unknown trainStep options key "learningRate"/);
  assert.throws(() => m.trainStep({ constructor: 1 }), /unknown trainStep options key "constructor"/);
  m.forward([1, 2, 3]);
  assert.throws(() => m.backward(), /with targets/);
  assert.ok(Number.isFinite(m.forward([1, 2, 3], [2, 3, 4]).loss));
  m.dispose();
  assert.throws(() => m.forward([1]), /disposed/);
});

test('at the edges: overflowing forwards say so, float32 and int32 ranges are refused, a loss jump is flagged at once', () => {
  const m = lab.createDecoder(TINY);
  assert.equal(m.forward([1, 2, 3], [2, 3, 4]).status, 'ok');
  m.setParams(new Float32Array(m.numParams).fill(1e30));
  const r = m.forward([1, 2, 3], [2, 3, 4]);
  assert.equal(r.status, 'nonfinite_logits');
  assert.ok(!Number.isFinite(r.loss));
  assert.equal(m.forward([1, 2, 3]).status, 'nonfinite_logits');
  // what float32 cannot hold is refused, quoted as given (1e-50 would have reached the C++ as 0, "off")
  assert.throws(
    () => lab.createDecoder({ attnSoftcap: 1e-50 }),
    /attnSoftcap must be representable as a float32: 1e-50 would become 0/,
  );
  assert.throws(
    () => lab.createDecoder({ finalSoftcap: 1e39 }),
    /finalSoftcap must be representable as a float32: 1e\+39 would become Infinity/,
  );
  assert.throws(() => lab.createDecoder({ eps: 1e-45 }), /eps must be representable as a float32: 1e-45/);
  // int32 arguments are refused past 2 ** 31 - 1, not wrapped (2 ** 32 + 3 would be 3)
  m.forward([1, 2, 3]);
  assert.throws(() => m.logitLens(2 ** 32 + 3), /k must be an integer from 1 to 2147483647 \(got 4294967299\)/);
  assert.throws(
    () => m.forward([1, 2], null, { logitLens: 2 ** 32 + 3 }),
    /logitLens must be an integer from 0 to 2147483647/,
  );
  assert.throws(() => m.forward([2 ** 31]), /tokens\[0\] must be an integer token id/);
  assert.equal(m.logitLens(3).k, 3);
  m.dispose();
  // lr 10: the step whose loss jumps tenfold is the first one flagged
  const t = lab.createDecoder({
    vocabSize: 96,
    dModel: 32,
    nHeads: 2,
    nLayers: 2,
    contextLength: 32,
    init: { seed: 1 },
  });
  const steps = [t.trainStep({ lr: 10, seqLen: 32 })];
  for (let i = 0; i < 5; i++) steps.push(t.trainStep());
  const jump = steps.findIndex((s, i) => i > 0 && s.loss > 10 * steps[0].loss);
  assert.ok(jump > 0, `losses ${steps.map((s) => s.loss).join(', ')}`);
  assert.deepEqual(
    steps.slice(0, jump).map((s) => s.status),
    Array(jump).fill('ok'),
  );
  assert.equal(steps[jump].status, 'loss_exploded');
  assert.equal(steps[jump].diverged, true);
  t.dispose();
});

test('trainStep runs AdamW on the corpus and reports loss, gradient norm and the scheduled lr', () => {
  const m = lab.createDecoder({
    vocabSize: 96,
    dModel: 32,
    nHeads: 2,
    nLayers: 2,
    contextLength: 32,
    init: { seed: 1 },
  });
  const first = m.trainStep({ lr: 3e-3, warmupSteps: 4, seqLen: 32 });
  assert.equal(first.lr, 3e-3 / 4); // linear warmup: the first update uses peak / W
  assert.ok(Number.isFinite(first.loss) && first.gradNorm > 0 && first.updated);
  let last = first;
  for (let i = 0; i < 40; i++) last = m.trainStep();
  assert.equal(last.step, 40);
  assert.equal(last.lr, 3e-3);
  assert.ok(last.loss < first.loss - 0.5, `loss ${first.loss} -> ${last.loss}`);
  assert.throws(() => m.trainStep({ lr: 1 }), /fixed by the first trainStep/);
  m.resetTraining();
  assert.equal(m.trainStep({ lr: 1e-3 }).step, 0);
  m.dispose();
});

test('creating and disposing 1,000 models leaves the heap where it was', () => {
  assert.equal(typeof lab.wasmHeapBytes, 'function', 'the lab object does not expose wasmHeapBytes');
  assert.equal(typeof lab.liveDecoders, 'function', 'the lab object does not expose liveDecoders');
  const warm = lab.createDecoder({ ...TINY, nLayers: 4 });
  warm.forward([1, 2, 3], [2, 3, 4]);
  warm.backward();
  warm.dispose();
  const before = lab.wasmHeapBytes();
  for (let i = 0; i < 1000; i++) {
    const m = lab.createDecoder({ ...TINY, nLayers: 4, init: { seed: i } });
    m.forward([1, 2, 3], [2, 3, 4]);
    m.backward();
    m.dispose();
  }
  assert.equal(lab.liveDecoders(), 0);
  assert.equal(lab.wasmHeapBytes(), before);
});
