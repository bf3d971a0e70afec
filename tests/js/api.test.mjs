// The public JS API under node: worked numbers, agreement with a float64 reference in both WASM flavours,
// gradients against finite differences, and every bad-input case (each throws a readable Error and the
// module keeps working).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { load, ResidualLabError } from '../../dist/lib/residual-lab.js';
import { problemWith } from '../../web/lib/options.js';

// float64 references, written from the formulas
function rmsRef(x, g, eps, offset = 0) {
  const ms = x.reduce((s, v) => s + v * v, 0) / x.length;
  const r = 1 / Math.sqrt(ms + eps);
  return Array.from(x, (v, i) => v * r * (offset + (g ? g[i] : 1)));
}
function lnRef(x, gamma, beta, eps) {
  const mean = x.reduce((s, v) => s + v, 0) / x.length;
  const variance = x.reduce((s, v) => s + (v - mean) ** 2, 0) / x.length;
  return Array.from(
    x,
    (v, i) => ((v - mean) / Math.sqrt(variance + eps)) * (gamma ? gamma[i] : 1) + (beta ? beta[i] : 0),
  );
}
// DyT: gamma * tanh(alpha * x) + beta
function dytRef(x, gamma, beta, alpha) {
  return Array.from(x, (v, i) => (gamma ? gamma[i] : 1) * Math.tanh(alpha * v) + (beta ? beta[i] : 0));
}
// d/dx_k of sum_i dy_i f(x)_i by central differences in float64
function numericGrad(f, x, dy, h = 1e-6) {
  const xs = Array.from(x);
  return xs.map((_, k) => {
    const plus = xs.slice();
    plus[k] += h;
    const minus = xs.slice();
    minus[k] -= h;
    const fp = f(plus);
    const fm = f(minus);
    return fp.reduce((s, v, i) => s + dy[i] * (v - fm[i]), 0) / (2 * h);
  });
}
function seeded(n, seed) {
  // deterministic values in [-3, 3)
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return (s / 2 ** 32) * 6 - 3;
  });
}
function assertClose(got, want, { atol = 1e-5, rtol = 1e-5 } = {}, label = '') {
  assert.equal(got.length, want.length, `${label} length`);
  for (let i = 0; i < want.length; i++) {
    const tol = atol + Math.abs(want[i]) * rtol;
    assert.ok(Math.abs(got[i] - want[i]) <= tol, `${label}[${i}]: got ${got[i]}, want ${want[i]} (tol ${tol})`);
  }
}

const x = new Float32Array([2, -1, 3, 0]);

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

    test('parseVector reads what readers type', () => {
      for (const [text, want] of [
        ['[2, -1, 3, 0]', [2, -1, 3, 0]],
        ['2 -1 3 0', [2, -1, 3, 0]],
        ['2，−1，3，0', [2, -1, 3, 0]],
        ['[1e-3, 2.5E2]', [0.001, 250]],
      ]) {
        assertClose(lab.parseVector(text), want, { atol: 0, rtol: 1e-7 }, text);
      }
    });

    test('bad input throws a readable ResidualLabError, and the next call works', () => {
      const cases = [
        [() => lab.rmsNorm(new Float32Array(0)), /x is empty/],
        [() => lab.rmsNorm(x, new Float32Array(3)), /g has 3 values but x has 4/],
        [() => lab.layerNorm(x, null, new Float32Array(5)), /beta has 5 values but x has 4/],
        [() => lab.rmsNormBackward(x, null, new Float32Array(2)), /dy has 2 values but x has 4/],
        [() => lab.rmsNorm(x, null, { eps: -1 }), /eps must be a finite number of at least 0/],
        [() => lab.layerNorm(x, null, null, { eps: NaN }), /eps must be a finite number/],
        [() => lab.rmsNorm(new Float32Array([1, NaN])), /x\[1\] is NaN/],
        [() => lab.layerNorm(new Float32Array([1, Infinity])), /x\[1\]/],
        [() => lab.rmsNorm(x, new Float32Array([1, 1, NaN, 1])), /g\[2\] is NaN/],
        [() => lab.softcap(x, 0), /cap must be > 0/],
        [() => lab.softcap(x, -3), /cap must be > 0/],
        [() => lab.rmsNorm(x, null, { precision: 'fp8' }), /precision must be one of fp32, bf16 \(got "fp8"\)/],
        [
          () => lab.rmsNorm(x, null, { epz: 5 }),
          /unknown rmsNorm options key "epz" \(known: eps, weightOffset, precision\)/,
        ],
        [() => lab.rmsNorm(x, null, 'str'), /rmsNorm options must be an object \(got "str"\)/],
        [() => lab.layerNorm(x, null, null, { constructor: 1 }), /unknown layerNorm options key "constructor"/],
        [() => lab.rmsNorm('2 -1 3 0'), /x must be a Float32Array/],
        [() => lab.parseVector(''), /no numbers/],
      ];
      for (const [call, message] of cases) {
        assert.throws(
          call,
          (err) => err instanceof ResidualLabError && err instanceof Error && message.test(err.message),
          String(message),
        );
        assertClose(lab.rmsNorm(x, null, { eps: 1e-5 }), rmsRef(x, null, 1e-5)); // the module still works
      }
    });

    test('at the edges: a constant x, an all-zero x, float32 range and control characters', () => {
      const refused = (call, pattern, code) =>
        assert.throws(
          call,
          (err) =>
            err instanceof ResidualLabError && pattern.test(err.message) && (code === undefined || err.code === code),
          String(pattern),
        );
      // 0.1 is not a float32: the rounded mean leaves a variance of 5.6e-17, rounding noise, not a spread
      const c = [0.1, 0.1, 0.1];
      const constant = /^x is constant: its variance \(5\.55111512e-17\) is rounding noise .* and eps is 0/;
      refused(() => lab.layerNorm(c, null, null, { eps: 0 }), constant);
      refused(() => lab.layerNormSteps(c, null, null, { eps: 0 }), constant);
      refused(() => lab.layerNormBackward(c, null, [1, 0, 0], { eps: 0 }), constant);
      for (const v of lab.layerNorm(c, null, null, { eps: 1e-5 })) assert.ok(Math.abs(v) < 1e-2);
      const zeros = /^x is all zeros and eps is 0/;
      refused(() => lab.rmsNorm([0, 0, 0], null, { eps: 0 }), zeros);
      refused(() => lab.rmsNormSteps([0, 0, 0], null, { eps: 0 }), zeros);
      refused(() => lab.rmsNormBackward([0, 0, 0], null, [1, 0, 0], { eps: 0 }), zeros);
      refused(
        () => lab.rmsNorm([1e-21, 1e-21], null, { eps: 0, precision: 'bf16' }),
        /^in bf16 the mean square of x rounds to 0/,
      );
      // values float32 cannot hold are refused as given, not after rounding
      refused(
        () => lab.rmsNorm(x, null, { eps: 1e39 }),
        /^eps must be representable as a float32: 1e\+39 would become Infinity/,
      );
      refused(
        () => lab.layerNorm(x, null, null, { eps: 1e-50 }),
        /^eps must be representable as a float32: 1e-50 would become 0/,
      );
      refused(
        () => lab.dynamicTanh(x, null, null, { alpha: -1e39 }),
        /alpha must be representable as a float32: -1e\+39/,
      );
      refused(() => lab.softcap(x, 1e-50), /^cap must be representable as a float32: 1e-50 would become 0/);
      refused(
        () => lab.softcapBackward(x, 1e39, x),
        /^cap must be representable as a float32: 1e\+39 would become Infinity/,
      );
      // NUL and other control characters are errors with their position; tab, LF and CR separate
      refused(
        () => lab.parseVector('1 2\u0000 junk'),
        /^unexpected U\+0000 \(a control character\) at character 4/,
        'unexpected_char',
      );
      assert.throws(
        () => lab.parseVector('1 2\u0000 junk'),
        (err) => err.position === 3,
      );
      refused(() => lab.parseVector('1\u001b2'), /U\+001B/, 'unexpected_char');
      assertClose(lab.parseVector('1\t2\r\n3'), [1, 2, 3]);
      // a lone surrogate is named, not echoed as a character the text does not contain
      for (const [text, position] of [
        ['1 \uD800 2', 2],
        ['1, \uDC00', 3],
        ['😀'.slice(0, 1), 0],
        ['1 \uD800', 2],
      ]) {
        assert.throws(
          () => lab.parseVector(text),
          (err) =>
            err.code === 'unexpected_char' &&
            err.position === position &&
            /U\+D[89A-F][0-9A-F]{2} \(a lone surrogate\)/.test(err.message) &&
            !/[\uD800-\uDFFF]|\u{10000}/u.test(err.message),
          text,
        );
      }
    });

    test('the float32 rule is the same sentence in C++ and in options.js, and every number row carries it', () => {
      // softcap's cap has no option row: it reaches the C++ check as given, which says what options.js says
      const capRow = { name: 'cap', type: 'number', min: 0, max: Infinity, minExclusive: true, float32: true };
      for (const cap of [1e-50, 1e39, 1e-40, 3.5e38]) {
        let cpp = '';
        try {
          lab.softcap(x, cap);
        } catch (err) {
          cpp = err.message;
        }
        assert.equal(problemWith(capRow, cap), cpp, String(cap));
      }
      assert.equal(problemWith(capRow, 2 ** -126), '');
      const walk = (rows, where) =>
        rows.forEach((row) => {
          if ((row.type === 'list' ? row.item : row.type) === 'number')
            assert.equal(row.float32, true, `${where}.${row.name}`);
          if (row.fields) walk(row.fields, `${where}.${row.name}`);
        });
      const tables = lab.describe();
      for (const [key, value] of Object.entries(tables)) {
        if (Array.isArray(value)) walk(value, key);
        else for (const [name, rows] of Object.entries(value)) walk(rows, `${key}.${name}`);
      }
    });

    test('parse errors carry a code and the position of the problem', () => {
      const expect = (text, code, position) =>
        assert.throws(
          () => lab.parseVector(text),
          (err) => err.code === code && err.position === position && err.message.length > 10,
          `${text} -> ${code}@${position}`,
        );
      expect('[1, 2x]', 'unexpected_char', 5);
      expect('[1, nan]', 'not_finite', 4);
      expect('1, , 2', 'missing_value', 3);
      expect('[1, 2', 'unclosed_bracket', 5);
      expect('1e99', 'out_of_range', 0);
      expect('1.2.3', 'invalid_number', 0);
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
