// RoPE's inverse frequencies, theta^(-2i/dh) in Transformers' float32 steps, have two homes: the C++ kernel
// rope_inverse_frequencies (wasm/src/kernels/attention.hpp; the toy decoder's) and web/lib/checkpoint/model.js
// invFreq (a checkpoint's, before its rope_scaling). They agree bit for bit over the head widths and bases below,
// so a change to either formula fails here.
//   node --test tests/js/rope-frequencies.test.mjs     after `node scripts/build.mjs` (uses dist/lib/wasm/)
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { invFreq } from '../../web/lib/checkpoint/model.js';
import { instantiateSimdModule } from './simd-module.mjs';

const HEAD_DIMS = [4, 8, 16, 32, 64, 96, 128, 256];
const THETAS = [10000, 500000, 1000000, 10000.5, 1e4 * 3.7];

let Module;
before(async () => {
  Module = await instantiateSimdModule();
});

/** The C++ kernel's frequencies through the raw export rl_rope_inverse_frequencies, or its status when refused. */
function cppFrequencies(dh, theta) {
  const p = Module._malloc(4 * Math.max(1, dh / 2));
  try {
    const status = Module._rl_rope_inverse_frequencies(p, dh, theta);
    return status === 0 ? Module.HEAPF32.slice(p >> 2, (p >> 2) + dh / 2) : status;
  } finally {
    Module._free(p);
  }
}

const bits = (floats) => [...new Uint32Array(Float32Array.from(floats).buffer)];

test("model.js invFreq is the C++ kernel's rope_inverse_frequencies, bit for bit", () => {
  for (const dh of HEAD_DIMS)
    for (const theta of THETAS) {
      const cpp = cppFrequencies(dh, theta);
      assert.equal(cpp.length, dh / 2, `dh ${dh}, theta ${theta}`);
      assert.deepEqual(bits(invFreq(dh, theta, null)), bits(cpp), `dh ${dh}, theta ${theta}`);
    }
});

test('the float32 steps, not theta^(-2i/dh) in float64 rounded once: dh 16, theta 1e4', () => {
  const steps = cppFrequencies(16, 10000);
  const once = Float32Array.from({ length: 8 }, (_, i) => 1 / 10000 ** ((2 * i) / 16));
  // 1, 0.316228, 0.1, 0.0316228, 0.01, 0.00316228, 0.001, 0.000316228
  assert.deepEqual(
    bits(steps),
    [0x3f800000, 0x3ea1e89b, 0x3dcccccd, 0x3d0186e3, 0x3c23d70a, 0x3b4f3e38, 0x3a83126f, 0x39a5cb60],
  );
  // entries 3, 5 and 7 are one float32 ulp above the float64 formula's
  assert.deepEqual(
    bits(steps).map((b, i) => b - bits(once)[i]),
    [0, 0, 0, 1, 0, 1, 0, 1],
  );
});

test('the export refuses an odd or non-positive head width and a base that is not a positive finite number', () => {
  const message = () => Module.UTF8ToString(Module._rl_error_message());
  for (const dh of [0, -4, 7]) {
    assert.equal(cppFrequencies(dh, 10000), 1, `dh ${dh}`);
    assert.equal(message(), `dh must be an even number from 2 to 1048576 (got ${dh})`);
  }
  for (const [theta, shown] of [
    [0, '0'],
    [-1, '-1'],
    [Infinity, 'Infinity'],
    [NaN, 'NaN'],
  ]) {
    assert.equal(cppFrequencies(8, theta), 1, `theta ${theta}`);
    assert.equal(message(), `theta must be a finite number above 0 (got ${shown})`);
  }
});
