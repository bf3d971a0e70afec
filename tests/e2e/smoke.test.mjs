// The served lab loads its WASM under the strict CSP and computes through the public API in the page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

test('the page loads the lab and runs the kernels with no console error', async () => {
  const view = await lab.open('');
  const result = await view.page.evaluate(async () => {
    const { load } = await import('./lib/residual-lab.js');
    const api = await load();
    const x = new Float32Array([2, -1, 3, 0]);
    let badInput = null;
    try {
      api.rmsNorm(new Float32Array(0));
    } catch (err) {
      badInput = { name: err.name, message: err.message };
    }
    return {
      flavour: api.flavour,
      rms: Array.from(api.rmsNorm(x, null, { eps: 1e-5 })),
      rms10: Array.from(
        api.rmsNorm(
          x.map((v) => v * 10),
          null,
          { eps: 1e-5 },
        ),
      ),
      ln: Array.from(api.layerNorm(x, null, null, { eps: 1e-5 })),
      parsed: Array.from(api.parseVector('[2，−1, 3e0, 0]')),
      badInput,
    };
  });
  assert.equal(result.flavour, 'relaxed', 'Chromium validates relaxed SIMD');
  const near = (got, want) =>
    got.forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 5e-4, `got ${got}, want ${want}`));
  near(result.rms, [1.069, -0.535, 1.604, 0]);
  near(result.rms10, [1.069, -0.535, 1.604, 0]);
  near(result.ln, [0.632, -1.265, 1.265, -0.632]);
  assert.deepEqual(result.parsed, [2, -1, 3, 0]);
  assert.equal(result.badInput?.name, 'ResidualLabError');
  assert.match(result.badInput.message, /empty/);
  await view.screenshot('smoke-page');
  view.assertClean();
  await view.close();
});
