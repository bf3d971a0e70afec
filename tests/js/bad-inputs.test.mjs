// A sweep of bad and edge inputs through the public API, as a new user would type them: every one either gives
// the right answer or throws a ResidualLabError with a stable code (never a bare TypeError, never an abort), and
// after each the module still computes the worked example exactly. The count is printed for the record.
//   node --test tests/js/bad-inputs.test.mjs      after `node scripts/build.mjs` (uses dist/lib/residual-lab.js)
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { load, ResidualLabError } = await import(new URL('../../dist/lib/residual-lab.js', import.meta.url).href);
const lab = await load();

const x = new Float32Array([2, -1, 3, 0]);
const WORKED = [2, -1, 3, 0].map((v) => v / Math.sqrt(14 / 4 + 1e-5)); // RMSNorm of [2, -1, 3, 0], eps 1e-5
const tiny = { vocabSize: 11, dModel: 8, nHeads: 2, nLayers: 1, contextLength: 6 };

// [label, call, expected code]: the call must throw a ResidualLabError with that code.
const REFUSED = [
  ['empty x', () => lab.rmsNorm([]), 'invalid_input'],
  ['x is a string', () => lab.rmsNorm('2 -1 3 0'), 'invalid_input'],
  ['x is a number', () => lab.rmsNorm(4), 'invalid_input'],
  ['x is an object', () => lab.rmsNorm({ length: 4 }), 'invalid_input'],
  ['x is a BigInt64Array', () => lab.rmsNorm(new BigInt64Array(2)), 'invalid_input'],
  ['x is a BigUint64Array', () => lab.layerNorm(new BigUint64Array(2)), 'invalid_input'],
  ['x is a DataView', () => lab.rmsNorm(new DataView(new ArrayBuffer(8))), 'invalid_input'],
  ['x is an ArrayBuffer', () => lab.rmsNorm(new ArrayBuffer(8)), 'invalid_input'],
  ['x holds a BigInt', () => lab.rmsNorm([1n, 2n]), 'invalid_input'],
  ['x holds NaN', () => lab.rmsNorm([1, NaN]), 'invalid_input'],
  ['x holds Infinity', () => lab.layerNorm([1, Infinity]), 'invalid_input'],
  ['x holds a string', () => lab.rmsNorm(['1', 2]), 'invalid_input'],
  ['x is a sparse 2^32 - 1 array', () => lab.rmsNorm(new Array(2 ** 32 - 1)), 'invalid_input'],
  ['x too long', () => lab.rmsNorm(new Float32Array(1e8)), 'invalid_input'],
  ['x overflows float32 when squared', () => lab.rmsNorm([1e20, 1]), 'invalid_input'],
  ['g of the wrong size', () => lab.rmsNorm(x, [1, 1]), 'invalid_input'],
  ['gamma with NaN', () => lab.layerNorm(x, [1, NaN, 1, 1]), 'invalid_input'],
  ['beta of the wrong size', () => lab.layerNorm(x, null, [0]), 'invalid_input'],
  ['dy of the wrong size', () => lab.rmsNormBackward(x, null, [1]), 'invalid_input'],
  ['dy missing', () => lab.layerNormBackward(x, null), 'invalid_input'],
  ['eps negative', () => lab.rmsNorm(x, null, { eps: -1 }), 'invalid_input'],
  ['eps NaN', () => lab.layerNorm(x, null, null, { eps: NaN }), 'invalid_input'],
  ['eps beyond float32', () => lab.rmsNorm(x, null, { eps: 1e39 }), 'invalid_input'],
  ['eps a string', () => lab.rmsNorm(x, null, { eps: '1e-5' }), 'invalid_input'],
  ['unknown kernel option', () => lab.rmsNorm(x, null, { epz: 5 }), 'invalid_input'],
  ['kernel options a string', () => lab.rmsNorm(x, null, 'str'), 'invalid_input'],
  ['kernel option "constructor"', () => lab.layerNorm(x, null, null, { constructor: 1 }), 'invalid_input'],
  ['kernel option "__proto__"', () => lab.rmsNorm(x, null, JSON.parse('{"__proto__": {"eps": 1}}')), 'invalid_input'],
  ['precision unknown', () => lab.rmsNorm(x, null, { precision: 'fp8' }), 'invalid_input'],
  [
    'layerNorm of a constant vector, eps 0',
    () => lab.layerNorm([0.1, 0.1, 0.1], null, null, { eps: 0 }),
    'invalid_input',
  ],
  [
    'layerNormSteps of a constant vector, eps 0',
    () => lab.layerNormSteps([0.1, 0.1, 0.1], null, null, { eps: 0 }),
    'invalid_input',
  ],
  [
    'layerNormBackward of a constant vector, eps 0',
    () => lab.layerNormBackward([0.1, 0.1, 0.1], null, [1, 1, 1], { eps: 0 }),
    'invalid_input',
  ],
  ['rmsNorm of zeros, eps 0', () => lab.rmsNorm([0, 0, 0], null, { eps: 0 }), 'invalid_input'],
  ['alpha NaN', () => lab.dynamicTanh(x, null, null, { alpha: NaN }), 'invalid_input'],
  ['cap 0', () => lab.softcap(x, 0), 'invalid_input'],
  ['cap negative', () => lab.softcap(x, -3), 'invalid_input'],
  ['cap a string', () => lab.softcap(x, '30'), 'invalid_input'],
  ['softmax of an empty vector', () => lab.softmax([]), 'invalid_input'],
  ['parseVector of nothing', () => lab.parseVector(''), 'empty'],
  ['parseVector of a number', () => lab.parseVector(5), 'invalid_input'],
  ['parseVector with NUL', () => lab.parseVector('1 2\u0000 junk'), 'unexpected_char'],
  ['parseVector with a lone surrogate', () => lab.parseVector('1, \ud800'), 'unexpected_char'],
  ['parseVector of 18 MB of spaces', () => lab.parseVector(' '.repeat(18e6) + '1'), 'too_long'],
  ['parseVector of nan', () => lab.parseVector('[1, nan]'), 'not_finite'],
  ['createDecoder: config a string', () => lab.createDecoder('big'), 'invalid_config'],
  ['createDecoder: unknown key', () => lab.createDecoder({ dmodel: 64 }), 'invalid_config'],
  ['createDecoder: "constructor"', () => lab.createDecoder({ constructor: 5 }), 'invalid_config'],
  [
    'createDecoder: JSON "__proto__"',
    () => lab.createDecoder(JSON.parse('{"__proto__": {"nLayers": 2}}')),
    'invalid_config',
  ],
  ['createDecoder: nLayers 0', () => lab.createDecoder({ nLayers: 0 }), 'invalid_config'],
  ['createDecoder: nLayers 2.5', () => lab.createDecoder({ nLayers: 2.5 }), 'invalid_config'],
  ['createDecoder: nHeads does not divide', () => lab.createDecoder({ dModel: 64, nHeads: 3 }), 'invalid_config'],
  ['createDecoder: norm unknown', () => lab.createDecoder({ norm: 'batchnorm' }), 'invalid_config'],
  ['createDecoder: attnSoftcap 1e-50', () => lab.createDecoder({ attnSoftcap: 1e-50 }), 'invalid_config'],
  ['createDecoder: qkGain 1e30', () => lab.createDecoder({ init: { qkGain: 1e30 } }), 'invalid_config'],
  ['createDecoder: embedScale 1e30', () => lab.createDecoder({ init: { embedScale: 1e30 } }), 'invalid_config'],
  ['createDecoder: seed beyond 2^53', () => lab.createDecoder({ init: { seed: 2 ** 60 } }), 'invalid_config'],
  [
    'createDecoder: too large',
    () => lab.createDecoder({ dModel: 512, nHeads: 16, nLayers: 64, contextLength: 128 }),
    'invalid_config',
  ],
  ['experiments: options a number', () => lab.experiments.gradientDecay(42), 'invalid_options'],
  ['experiments: "constructor"', () => lab.experiments.gradientDecay({ constructor: 5 }), 'invalid_options'],
  ['experiments: inherited "toString"', () => lab.experiments.initScaling({ toString: 1 }), 'invalid_options'],
  ['experiments: gain out of range', () => lab.experiments.gradientDecay({ gain: 9 }), 'invalid_options'],
  [
    'experiments: onProgress not a function',
    () => lab.experiments.residualGrowth({}, { onProgress: 'yes' }),
    'invalid_input',
  ],
];

test('every bad input is refused with a ResidualLabError and its code, and the module keeps working', () => {
  for (const [label, call, code] of REFUSED) {
    let error = null;
    try {
      call();
    } catch (err) {
      error = err;
    }
    assert.ok(error instanceof ResidualLabError, `${label}: expected a ResidualLabError, got ${error}`);
    assert.equal(error.code, code, `${label}: code (message: ${error.message})`);
    assert.ok(error.message.length >= 8, `${label}: a message that says what is wrong`);
    const y = lab.rmsNorm(x);
    WORKED.forEach((w, i) =>
      assert.ok(Math.abs(y[i] - w) < 1e-6, `${label}: the module still computes the worked example`),
    );
  }
  console.log(`bad inputs refused with their codes: ${REFUSED.length}`);
});

test('a decoder refuses bad calls with their codes and keeps working', () => {
  const m = lab.createDecoder(tiny);
  const calls = [
    ['tokens outside the vocabulary', () => m.forward([1, 11]), 'invalid_input'],
    ['too many tokens', () => m.forward([1, 2, 3, 4, 5, 6, 7]), 'invalid_input'],
    ['a token beyond int32', () => m.forward([2 ** 32 + 1]), 'invalid_input'],
    ['logitLens beyond int32', () => m.logitLens(2 ** 32 + 3), 'invalid_input'],
    ['setParams of the wrong length', () => m.setParams(new Float32Array(3)), 'invalid_input'],
    ['trainStep "constructor"', () => m.trainStep({ constructor: 1 }), 'invalid_config'],
    ['trainStep lr NaN', () => m.trainStep({ lr: NaN }), 'invalid_config'],
  ];
  for (const [label, call, code] of calls) {
    assert.throws(call, (err) => err instanceof ResidualLabError && err.code === code, label);
  }
  const huge = new Float32Array(m.numParams).fill(1e30);
  m.setParams(huge);
  const r = m.forward([1, 2, 3], [2, 3, 4]);
  assert.notEqual(r.status, 'ok', 'a forward whose numbers are not finite says so');
  m.dispose();
  assert.throws(
    () => m.forward([1]),
    (err) => err.code === 'disposed',
  );
  console.log(`bad decoder calls refused with their codes: ${calls.length}`);
});
