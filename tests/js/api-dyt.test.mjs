// DyT (y = gamma * tanh(alpha x) + beta) through the public JS API in both WASM flavours: the worked numbers,
// agreement with the float64 reference, gradients against finite differences, and bad input.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { load, ResidualLabError } from '../../dist/lib/residual-lab.js';
import { WORKED_X as x, assertClose, dytRef, numericGrad, seeded } from '../fixtures/float64.mjs';

for (const flavour of ['simd', 'scalar']) {
  describe(`${flavour} build`, () => {
    let lab;
    before(async () => {
      lab = await load({ flavour });
    });

    test('DyT of [2, -1, 3, 0] at alpha 0.5 is tanh(alpha x), then gamma and beta; its steps show alpha x and tanh', () => {
      const want = [Math.tanh(1), Math.tanh(-0.5), Math.tanh(1.5), 0]; // 0.7616, -0.4621, 0.9051, 0
      assertClose(lab.dynamicTanh(x, null, null, { alpha: 0.5 }), want, { atol: 1e-6, rtol: 1e-6 }, 'dyt');
      assertClose(lab.dynamicTanh(x), want, { atol: 1e-6, rtol: 1e-6 }, 'alpha defaults to 0.5');
      const gamma = new Float32Array([2, 1, -1, 3]);
      const beta = new Float32Array([0, 0.5, 1, -2]);
      assertClose(
        lab.dynamicTanh(x, gamma, beta, { alpha: 0.5 }),
        [2 * Math.tanh(1), Math.tanh(-0.5) + 0.5, 1 - Math.tanh(1.5), -2],
        { atol: 1e-6, rtol: 1e-6 },
        'dyt with gamma, beta',
      );
      const steps = lab.dynamicTanhSteps(x, gamma, beta, { alpha: 0.5 });
      assert.deepEqual(Array.from(steps.scaled), [1, -0.5, 1.5, 0]);
      assertClose(steps.tanh, want, { atol: 1e-6, rtol: 1e-6 }, 'steps tanh');
      assertClose(
        steps.output,
        lab.dynamicTanh(x, gamma, beta, { alpha: 0.5 }),
        { atol: 0, rtol: 0 },
        'steps output = dynamicTanh',
      );
      assertClose(
        lab.dynamicTanh(x, null, null, { alpha: 1 }),
        [Math.tanh(2), Math.tanh(-1), Math.tanh(3), 0],
        { atol: 1e-6, rtol: 1e-6 },
        'alpha 1',
      );
    });

    test('DyT matches float64 for sizes around the SIMD width, with weights and several alphas', () => {
      for (const d of [1, 3, 4, 7, 33, 4096, 5003]) {
        const v = seeded(d, 3 * d);
        const gamma = seeded(d, 3 * d + 1);
        const beta = seeded(d, 3 * d + 2);
        for (const alpha of [0.5, 2, -0.3]) {
          assertClose(
            lab.dynamicTanh(v, gamma, beta, { alpha }),
            dytRef(v, gamma, beta, alpha),
            { atol: 2e-6, rtol: 1e-5 },
            `dyt d=${d} alpha=${alpha}`,
          );
        }
        assertClose(
          lab.dynamicTanh(v, null, null, { alpha: 0.5 }),
          dytRef(v, null, null, 0.5),
          { atol: 2e-6, rtol: 1e-5 },
          `dyt d=${d} no weights`,
        );
      }
    });

    test('DyT backward: dx, dalpha, dgamma, dbeta match finite differences of the float64 reference', () => {
      const v = seeded(7, 21);
      const gamma = seeded(7, 22);
      const dy = seeded(7, 23);
      const alpha = 0.7;
      const g = lab.dynamicTanhBackward(v, gamma, dy, { alpha });
      assertClose(
        g.dx,
        numericGrad((xx) => dytRef(xx, gamma, null, alpha), v, dy),
        { atol: 1e-4, rtol: 1e-3 },
        'dyt dx',
      );
      assertClose(
        g.dgamma,
        numericGrad((gg) => dytRef(v, gg, null, alpha), gamma, dy),
        { atol: 1e-4, rtol: 1e-3 },
        'dyt dgamma',
      );
      assertClose(
        g.dbeta,
        numericGrad((bb) => dytRef(v, gamma, bb, alpha), new Float32Array(7), dy),
        { atol: 1e-4, rtol: 1e-3 },
        'dyt dbeta',
      );
      assertClose(
        [g.dalpha],
        numericGrad(([a]) => dytRef(v, gamma, null, a), [alpha], dy),
        { atol: 1e-4, rtol: 1e-3 },
        'dyt dalpha',
      );
      assert.ok(Math.abs(g.dalpha) > 0.1, `dalpha is not trivially 0 (${g.dalpha})`);
      const ones = lab.dynamicTanhBackward(v, null, dy, { alpha }); // gamma null = ones
      assertClose(
        ones.dx,
        numericGrad((xx) => dytRef(xx, null, null, alpha), v, dy),
        { atol: 1e-4, rtol: 1e-3 },
        'dyt dx, gamma ones',
      );
    });

    test("scaling x by 10 moves DyT's output but not RMSNorm's or LayerNorm's", () => {
      const x10 = x.map((v) => v * 10);
      const opts = { eps: 1e-5 };
      assertClose(
        lab.rmsNorm(x10, null, opts),
        lab.rmsNorm(x, null, opts),
        { atol: 1e-5, rtol: 0 },
        'rms scale-invariant',
      );
      assertClose(
        lab.layerNorm(x10, null, null, opts),
        lab.layerNorm(x, null, null, opts),
        { atol: 1e-5, rtol: 0 },
        'ln scale-invariant',
      );
      const dyt1 = lab.dynamicTanh(x, null, null, { alpha: 0.5 });
      const dyt10 = lab.dynamicTanh(x10, null, null, { alpha: 0.5 });
      assertClose(
        dyt10,
        [Math.tanh(10), Math.tanh(-5), Math.tanh(15), 0],
        { atol: 1e-6, rtol: 1e-6 },
        'dyt at x10 saturates',
      );
      const moved = Math.max(...Array.from(dyt10, (v, i) => Math.abs(v - dyt1[i])));
      assert.ok(moved > 0.2, `DyT moves by ${moved}`); // tanh(-5) - tanh(-0.5) = -0.53
    });

    test('bad DyT input throws with a message and a code, and the next call works', () => {
      const cases = [
        [() => lab.dynamicTanh(new Float32Array(0)), /x is empty/],
        [() => lab.dynamicTanh(new Float32Array([1, NaN])), /x\[1\] is NaN/],
        [() => lab.dynamicTanh(x, new Float32Array(3)), /gamma has 3 values but x has 4/],
        [() => lab.dynamicTanh(x, null, new Float32Array(5)), /beta has 5 values but x has 4/],
        [() => lab.dynamicTanh(x, new Float32Array([1, Infinity, 1, 1])), /gamma\[1\] is Infinity/],
        [() => lab.dynamicTanh(x, null, null, { alpha: NaN }), /alpha must be a finite number \(got NaN\)/],
        [() => lab.dynamicTanh(x, null, null, { alpha: Infinity }), /alpha must be a finite number \(got Infinity\)/],
        [() => lab.dynamicTanh(x, null, null, { alpha: '0.5' }), /alpha must be a finite number \(got "0.5"\)/],
        [() => lab.dynamicTanh(x, null, null, { alfa: 1 }), /unknown dynamicTanh options key "alfa" \(known: alpha\)/],
        [() => lab.dynamicTanhSteps(x, null, null, { eps: 1e-5 }), /unknown dynamicTanhSteps options key "eps"/],
        [() => lab.dynamicTanhSteps(x, null, null, { alpha: -Infinity }), /alpha must be a finite number/],
        [() => lab.dynamicTanhBackward(x, null, new Float32Array(2)), /dy has 2 values but x has 4/],
        [() => lab.dynamicTanhBackward(x, null, new Float32Array([0, 0, NaN, 0])), /dy\[2\] is NaN/],
        [() => lab.dynamicTanhBackward(x, null, null), /dy is required/],
        [() => lab.dynamicTanhBackward(x, null, x, { alpha: NaN }), /alpha must be a finite number/],
      ];
      for (const [call, message] of cases) {
        assert.throws(
          call,
          (err) => err instanceof ResidualLabError && err.code === 'invalid_input' && message.test(err.message),
          String(message),
        );
        assertClose(lab.dynamicTanh(x), [Math.tanh(1), Math.tanh(-0.5), Math.tanh(1.5), 0], { atol: 1e-6, rtol: 1e-6 }); // still works
      }
    });
  });
}
