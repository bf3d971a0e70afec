// What readers type, through the public JS API in both WASM flavours: parseVector, every bad-input case (each
// throws a readable ResidualLabError with a code and the module keeps working), and the edges of float32.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { load, ResidualLabError } from '../../dist/lib/residual-lab.js';
import { problemWith } from '../../web/lib/options.js';
import { WORKED_X as x, assertClose, rmsRef } from '../fixtures/float64.mjs';

for (const flavour of ['simd', 'scalar']) {
  describe(`${flavour} build`, () => {
    let lab;
    before(async () => {
      lab = await load({ flavour });
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

    test('a refusal of the division alone carries the steps before it (error.partial); x refused for itself, none', () => {
      const caught = (call) => {
        let thrown;
        assert.throws(call, (error) => Boolean((thrown = error)));
        return thrown;
      };
      const zeros = caught(() => lab.rmsNormSteps([0, 0, 0, 0], null, { eps: 0 }));
      assert.equal(zeros.reason.kind, 'zero_rms');
      assert.deepEqual(
        { ...zeros.partial, squares: [...zeros.partial.squares] },
        { squares: [0, 0, 0, 0], meanSquare: 0, rms: 0 },
      );
      // 1e18 twice, eps 1e-5: the float32 mean is x itself, the spread 0, std = sqrt(eps); only the division is refused
      const constant = caught(() => lab.layerNormSteps([1e18, 1e18], null, null, { eps: 1e-5 }));
      assert.equal(constant.reason.kind, 'constant_x_eps_small');
      assert.deepEqual(
        { ...constant.partial, centered: [...constant.partial.centered] },
        { mean: Math.fround(1e18), centered: [0, 0], variance: 0, std: Math.fround(Math.sqrt(Math.fround(1e-5))) },
      );
      // not constant, but its deviations' squares (2.5e-61) underflow float32: said so, not "constant"
      const tiny = caught(() => lab.layerNormSteps([1e-30, 0], null, null, { eps: 0 }));
      assert.equal(tiny.reason.kind, 'variance_underflow');
      assert.ok(Math.abs(tiny.reason.value / 2.5e-61 - 1) < 1e-6, `variance in double ${tiny.reason.value}`);
      assert.equal(tiny.partial.variance, 0, 'the float32 variance');
      assert.equal(caught(() => lab.layerNormSteps([2, 2], null, null, { eps: 0 })).reason.kind, 'constant_x_eps_zero');
      // squares that overflow float32 have no mean square to show
      assert.equal(caught(() => lab.rmsNormSteps([3.4e38, 3.4e38])).partial, undefined);
      assert.equal(caught(() => lab.rmsNorm([0, 0, 0, 0], null, { eps: 0 })).partial, undefined, 'steps only');
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
      expect('2, 1e-50', 'underflow', 3);
      expect('1.2.3', 'invalid_number', 0);
    });
  });
}
