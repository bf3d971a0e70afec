// The public JS API's norms under node in both WASM flavours: the chapter's worked numbers, agreement with a
// float64 reference (tests/fixtures/float64.mjs), gradients against finite differences, soft-capping and bf16.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { WORKED_X as x, assertClose, lnRef, numericGrad, rmsRef, seeded } from '../fixtures/float64.mjs';

for (const flavour of ['simd', 'scalar']) {
  describe(`${flavour} build`, () => {
    let lab;
    before(async () => {
      lab = await load({ flavour });
    });

    test("the chapter's worked example, and x * 10 gives the same RMSNorm", () => {
      assert.equal(lab.flavour, flavour);
      assertClose(lab.rmsNorm(x, null, { eps: 1e-5 }), [1.069, -0.535, 1.604, 0], { atol: 5e-4, rtol: 0 });
      assertClose(
        lab.rmsNorm(
          x.map((v) => v * 10),
          null,
          { eps: 1e-5 },
        ),
        [1.069, -0.535, 1.604, 0],
        { atol: 5e-4, rtol: 0 },
      );
      assertClose(lab.layerNorm(x, null, null, { eps: 1e-5 }), [0.632, -1.265, 1.265, -0.632], { atol: 5e-4, rtol: 0 });
    });

    test("steps carry the chapter's intermediate numbers", () => {
      const r = lab.rmsNormSteps(x, null, { eps: 0 });
      assert.deepEqual(Array.from(r.squares), [4, 1, 9, 0]);
      assert.equal(r.meanSquare, 3.5);
      assert.ok(Math.abs(r.rms - 1.8708) < 1e-4);
      assertClose(r.output, rmsRef(x, null, 0));
      const l = lab.layerNormSteps(x, null, null, { eps: 0 });
      assert.equal(l.mean, 1);
      assert.deepEqual(Array.from(l.centered), [1, -2, 2, -1]);
      assert.equal(l.variance, 2.5);
      assert.ok(Math.abs(l.std - 1.5811) < 1e-4);
      assertClose(l.output, lnRef(x, null, null, 0));
    });

    test('forward matches float64 for sizes around the SIMD width, with weights and the Gemma offset', () => {
      for (const d of [1, 3, 4, 7, 33, 4096, 5003]) {
        const v = seeded(d, d);
        const g = seeded(d, d + 1);
        const b = seeded(d, d + 2);
        assertClose(lab.rmsNorm(v, g, { eps: 1e-6 }), rmsRef(v, g, 1e-6), { atol: 1e-5, rtol: 1e-4 }, `rms d=${d}`);
        assertClose(
          lab.rmsNorm(v, g, { eps: 1e-6, weightOffset: 1 }),
          rmsRef(v, g, 1e-6, 1),
          { atol: 1e-5, rtol: 1e-4 },
          `gemma d=${d}`,
        );
        assertClose(
          lab.layerNorm(v, g, b, { eps: 1e-5 }),
          lnRef(v, g, b, 1e-5),
          { atol: 1e-5, rtol: 1e-4 },
          `ln d=${d}`,
        );
      }
    });

    test('backward matches finite differences of the float64 reference', () => {
      const v = seeded(7, 11);
      const g = seeded(7, 12);
      const dy = seeded(7, 13);
      const rms = lab.rmsNormBackward(v, g, dy, { eps: 1e-5 });
      assertClose(
        rms.dx,
        numericGrad((xx) => rmsRef(xx, g, 1e-5), v, dy),
        { atol: 1e-4, rtol: 1e-3 },
        'rms dx',
      );
      assertClose(
        rms.dg,
        numericGrad((gg) => rmsRef(v, gg, 1e-5), g, dy),
        { atol: 1e-4, rtol: 1e-3 },
        'rms dg',
      );
      const gemma = lab.rmsNormBackward(v, g, dy, { eps: 1e-5, weightOffset: 1 });
      assertClose(
        gemma.dx,
        numericGrad((xx) => rmsRef(xx, g, 1e-5, 1), v, dy),
        { atol: 1e-4, rtol: 1e-3 },
        'gemma dx',
      );
      const ln = lab.layerNormBackward(v, g, dy, { eps: 1e-5 });
      assertClose(
        ln.dx,
        numericGrad((xx) => lnRef(xx, g, null, 1e-5), v, dy),
        { atol: 1e-4, rtol: 1e-3 },
        'ln dx',
      );
      assertClose(
        ln.dgamma,
        numericGrad((gg) => lnRef(v, gg, null, 1e-5), g, dy),
        { atol: 1e-4, rtol: 1e-3 },
        'ln dgamma',
      );
      assertClose(ln.dbeta, dy, {}, 'ln dbeta');
    });

    test("soft-capping: the chapter's table and the gradient 1 - tanh^2", () => {
      const round1 = (a) => Array.from(a, (v) => Math.round(v * 10) / 10);
      assert.deepEqual(round1(lab.softcap(new Float32Array([10, 30, 60, 200]), 30)), [9.6, 22.8, 28.9, 30.0]);
      assert.deepEqual(round1(lab.softcap(new Float32Array([100]), 50)), [48.2]);
      const xs = new Float32Array([-80, -5, 0, 7, 45]);
      const { dx } = lab.softcapBackward(xs, 30, new Float32Array(5).fill(1));
      assertClose(
        dx,
        Array.from(xs, (v) => 1 - Math.tanh(v / 30) ** 2),
        { atol: 1e-6, rtol: 1e-5 },
      );
    });

    test('bf16 accumulation is clearly worse than fp32 at d = 4096', () => {
      const v = seeded(4096, 5);
      const exact = rmsRef(v, null, 1e-5);
      const maxRel = (got) =>
        Math.max(...Array.from(got, (val, i) => Math.abs(val - exact[i]) / Math.max(Math.abs(exact[i]), 1e-3)));
      const fp32 = maxRel(lab.rmsNorm(v, null, { eps: 1e-5 }));
      const bf16 = maxRel(lab.rmsNorm(v, null, { eps: 1e-5, precision: 'bf16' }));
      assert.ok(fp32 < 1e-5, `fp32 error ${fp32}`);
      assert.ok(bf16 > 100 * fp32 && bf16 > 1e-3, `bf16 error ${bf16} vs fp32 ${fp32}`);
    });
  });
}

test('SIMD and scalar builds agree to float32 rounding', async () => {
  const simd = await load({ flavour: 'simd' });
  const scalar = await load({ flavour: 'scalar' });
  const v = seeded(5003, 99);
  assertClose(simd.rmsNorm(v), scalar.rmsNorm(v), { atol: 1e-6, rtol: 1e-5 });
  assertClose(simd.layerNorm(v), scalar.layerNorm(v), { atol: 1e-6, rtol: 1e-5 });
});
