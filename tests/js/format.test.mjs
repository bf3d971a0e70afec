// Number formatting of the widgets (web/components/shared/format.js) and single-number parsing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  alignDecimals,
  formatBytes,
  formatCount,
  formatFactor,
  formatFixed,
  formatNumber,
  formatPercent,
  formatScientific,
  formatTicks,
  formatTrimmed,
  formatVector,
  formatVectorSummary,
  powerOfTen,
} from '../../web/components/shared/format.js';
import { parseNumber } from '../../web/components/shared/parse-number.js';
import { describeError } from '../../web/components/shared/i18n.js';
import { WIDGET_STRINGS } from '../../web/widget-strings.js';

test('counts group their digits in threes, as en-US does, at every size and sign', () => {
  const cases = [0, 7, 999, 1000, 65540, 1048576, -1234567, 2.5, 3.5, 2 ** 53 + 2, 1e21, 123456789012345680000000];
  for (const n of cases) assert.equal(formatCount(n), Math.round(n).toLocaleString('en-US'), String(n));
  assert.equal(formatCount(1048576), '1,048,576');
  assert.equal(formatCount(-0.4), '0'); // no negative zero (toLocaleString writes -0)
  assert.equal(formatCount(Infinity), '∞');
  assert.equal(formatCount(NaN), 'NaN');
});

test('vectors print as the chapter writes them', () => {
  assert.equal(
    formatVector([(1 / 0.935414346693485) * 1, -0.5345224838248488, 1.6035674514745464, 0]),
    '[1.069, -0.535, 1.604, 0]',
  );
  assert.equal(formatVector(Float32Array.of(4, 1, 9, 0)), '[4, 1, 9, 0]');
  assert.equal(formatTrimmed(3.5), '3.5');
  assert.equal(formatTrimmed(Math.sqrt(3.5)), '1.871');
  assert.equal(formatTrimmed(Math.sqrt(2.5)), '1.581');
});

test('fixed decimals: no negative zero, non-finite values named; trimmed: exact zero is 0', () => {
  assert.equal(formatFixed(0), '0.000');
  assert.equal(formatFixed(-0), '0.000');
  assert.equal(formatTrimmed(-0), '0');
  assert.equal(formatFixed(29.99969, 1), '30.0');
  assert.equal(formatFixed(9.6402, 1), '9.6');
  assert.equal(formatFixed(NaN), 'NaN');
  assert.equal(formatFixed(-Infinity), '-∞');
});

test('small and large numbers keep their significant digits: scientific where fixed would lose them', () => {
  // RMSNorm of [1e-8, 0, 0, 0] with eps 1e-5: 1e-8 / sqrt(2.5e-17 + 1e-5) = 3.162e-6, not "0.000"
  const rms = 1e-8 / Math.sqrt(1e-16 / 4 + 1e-5);
  assert.equal(formatFixed(rms), '3.16 × 10⁻⁶');
  assert.equal(formatTrimmed(rms), '3.16 × 10⁻⁶');
  assert.equal(formatVector([rms, 0, 0, 0]), '[3.16e-6, 0, 0, 0]', 'a vector stays one a field reads back');
  assert.equal(formatVector([1e-8, 0, 0, 0]), '[1e-8, 0, 0, 0]');
  assert.equal(formatTrimmed(0.0004), '4 × 10⁻⁴');
  assert.equal(formatFixed(-0.0001), '-1.00 × 10⁻⁴');
  assert.equal(formatTrimmed(0.00316), '0.0032', 'more decimals rather than 0.003');
  assert.equal(formatTrimmed(0.09975), '0.1', 'rounding that keeps two significant digits stays');
  assert.equal(formatTrimmed(0.00123, 2), '0.0012');
  assert.equal(formatFixed(0.03, 1), '0.030');
  assert.equal(formatFixed(0.5, 1), '0.5', 'a value the decimals hold keeps them');
  assert.equal(formatTrimmed(2.5e7), '2.5 × 10⁷');
  assert.equal(formatNumber(2.5e7, { style: 'plain' }), '2.5e7');
  for (const value of [3.14159e-12, -2.71828e-7, 1.5e-3, 0.123456, 7.654321, 98765.4321, 1.23456e9]) {
    const shown = Number(formatNumber(value, { style: 'plain' }));
    assert.ok(Math.abs(shown - value) <= 0.005 * Math.abs(value), `${value} shown as ${shown}`);
  }
});

test('axis ticks: as many decimals as the ticks need, never a 0..0 axis', () => {
  assert.deepEqual(formatTicks([0, 1e-8]), ['0', '1 × 10⁻⁸']);
  assert.deepEqual(formatTicks([-2.5e-6, 0, 5e-6]), ['-2.5 × 10⁻⁶', '0', '5 × 10⁻⁶']);
  assert.deepEqual(formatTicks([0, 0.25, 0.5, 0.75, 1]), ['0', '0.25', '0.5', '0.75', '1']);
  assert.deepEqual(formatTicks([-200, 0, 200, null]), ['-200', '0', '200', '']);
  assert.deepEqual(formatTicks([0, 0.0002, 0.0004]), ['0', '2 × 10⁻⁴', '4 × 10⁻⁴']);
});

test('a long vector is summarized by its ends', () => {
  const values = Float32Array.from({ length: 1000 }, (_, i) => i / 4);
  assert.equal(formatVectorSummary(values), '[0, 0.25, 0.5, …, 249.25, 249.5, 249.75]');
  assert.equal(formatVectorSummary([1, 2, 3]), '[1, 2, 3]');
  assert.equal(formatVectorSummary([1, 2, 3, 4, 5, 6, 7]), '[1, 2, 3, 4, 5, 6, 7]');
  assert.equal(formatVectorSummary([1, 2, 3, 4, 5, 6, 7, 8]), '[1, 2, 3, …, 6, 7, 8]');
  assert.equal(formatPercent(266240 / 8030261248), '0.0033%');
});

test('scientific notation gives text and a machine-readable value', () => {
  assert.deepEqual(formatScientific(3.14e-8), { text: '3.1 × 10⁻⁸', value: '3.1e-8' });
  assert.deepEqual(formatScientific(0.42), { text: '0.42', value: '0.42' });
  assert.deepEqual(formatScientific(12345), { text: '1.2 × 10⁴', value: '1.2e4' });
  assert.deepEqual(formatScientific(0), { text: '0', value: '0' });
  assert.equal(Number(formatScientific(2.75e-5).value), 2.8e-5);
  assert.equal(powerOfTen(-4), '10⁻⁴');
  assert.equal(powerOfTen(0), '1');
});

test('slider factors', () => {
  assert.equal(formatFactor(10 ** 1), '×10');
  assert.equal(formatFactor(10 ** -1), '×0.1');
  assert.equal(formatFactor(10 ** 2), '×100');
  assert.equal(formatFactor(Number((10 ** 0.2).toPrecision(3))), '×1.58', 'the factor used, not a rounder one');
  assert.equal(formatFactor(65540.2), '×65,540', 'one form: grouped digits, no "×6.554 × 10⁴"');
  assert.equal(formatFactor(2.048e6), '×2.05 × 10⁶');
  assert.equal(formatFactor(1.1297), '×1.13');
});

test('parseNumber accepts plain and exponent notation and names the problem otherwise', () => {
  assert.equal(parseNumber('1e-5'), 1e-5);
  assert.equal(parseNumber(' 0.5 '), 0.5);
  assert.equal(parseNumber('−2'), -2);
  assert.throws(() => parseNumber('abc'), { code: 'not_a_number' });
  assert.throws(() => parseNumber('0x10'), { code: 'not_a_number' });
  assert.throws(() => parseNumber('2', { max: 1 }), { code: 'not_in_range', max: 1 });
  assert.throws(() => parseNumber('2.5', { integer: true }), { code: 'not_integer' });
});

test('a one-sided range is said as one bound, never "between -Infinity and 1000"', () => {
  const message = (text, range, lang = 'en') => {
    try {
      parseNumber(text, range);
    } catch (error) {
      return describeError(error, lang, text);
    }
    return null;
  };
  assert.equal(message('2000', { max: 1000 }), 'must be at most 1000');
  assert.equal(message('-1', { min: 0 }), 'must be at least 0');
  assert.equal(message('5', { min: 0, max: 1 }), 'must be between 0 and 1');
  assert.equal(message('2000', { max: 1000 }, 'zh'), '不能大于 1000');
  assert.equal(message('-1', { min: 0 }, 'zh'), '不能小于 0');
});

test('one bar chart writes its values in one precision: the most precise label sets the decimals of all', () => {
  assert.deepEqual(alignDecimals(['0.32', '10', '11.01']), ['0.32', '10.00', '11.01']);
  assert.deepEqual(alignDecimals(['-1.5', '2', '0.25']), ['-1.50', '2.00', '0.25']);
  assert.deepEqual(alignDecimals(['3', '4']), ['3', '4']);
  // Scientific notation and symbols carry their own precision.
  assert.deepEqual(alignDecimals(['3.2 × 10⁻⁶', '1.5', '∞', 'NaN', '7']), ['3.2 × 10⁻⁶', '1.5', '∞', 'NaN', '7.0']);
});

test("sizes in bytes: GB from 0.1 GB, MB below, so a toy's weights are not 0.00 GB", () => {
  assert.equal(formatBytes(408576), '0.4 MB'); // toy-llama's weights, as the probe holds them
  assert.equal(formatBytes(52e6), '52.0 MB');
  assert.equal(formatBytes(99.9e6), '99.9 MB');
  assert.equal(formatBytes(1e8), '0.10 GB');
  assert.equal(formatBytes(536870912), '0.54 GB'); // the default residency budget, 512 MiB
  assert.equal(formatBytes(0.99e9), '0.99 GB');
  assert.equal(formatBytes(16.1e9), '16.10 GB');
  // the probe's status line after a run of a toy (checkpoint-probe.js formats the sizes for it)
  const toy = { mode: 'resident', kept: formatBytes(408576), budget: formatBytes(536870912) };
  const [en, zh] = ['en', 'zh'].map((code) => WIDGET_STRINGS[code]['rl-checkpoint-probe']);
  assert.equal(
    en.residency(toy),
    'The weights fit the 0.54 GB budget and stay in memory (0.4 MB held): the next run reads no weights.',
  );
  assert.equal(zh.residency(toy), '权重没有超出 0.54 GB 的常驻预算，留在内存里（现占 0.4 MB）：下次运行不再读权重。');
  assert.equal(
    en.residency({ ...toy, mode: 'streamed' }),
    'The weights are larger than the 0.54 GB budget for keeping them: every run reads them from the files again.',
  );
  // its cost and progress lines, a toy's sizes in MB and Qwen2.5-0.5B's in GB
  const cost = { model: formatBytes(408576), read: formatBytes(408576), flops: 2.1e7, estimatedSeconds: 0.01 };
  assert.equal(
    en.runCost(cost, 1),
    'The weights take 0.4 MB on disk; this run reads 0.4 MB of them and computes 0.021 GFLOP, an estimated second.',
  );
  assert.equal(
    zh.runCost({ ...cost, model: formatBytes(988094208), read: formatBytes(988094208) }, 2),
    '分给 2 个线程并行计算。权重在磁盘上占 0.99 GB；这次运行要读其中的 0.99 GB，计算 0.021 GFLOP，估计需要 1 秒。',
  );
  assert.equal(
    en.runProgress('Layer 1 of 2 done', formatBytes(204288), formatBytes(408576)),
    'Layer 1 of 2 done: 0.2 MB of 0.4 MB read.',
  );
  assert.equal(
    zh.runProgress('已完成第 1 / 2 层', formatBytes(204288), formatBytes(408576)),
    '已完成第 1 / 2 层：已读 0.2 MB / 0.4 MB。',
  );
});
