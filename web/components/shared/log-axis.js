// A log axis for curves plotted as log10(value) on a linear uPlot scale (uPlot's own log scale only covers about
// 10^-16 .. 10^16, and a gradient after 64 layers of gain 0.05 is 10^-83). Ticks sit at 1, 2, 5 × 10^k when the
// curves span few decades, at every n-th power of ten when they span many; labels are the values, not logs.
import { h } from './dom.js';
import { formatScientific, powerOfTen } from './format.js';

const MAX_TICKS = 8;

/** uPlot `splits` for a log10 axis. */
export function logSplits(u, axisIndex, min, max) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  const low = Math.floor(min);
  const high = Math.ceil(max);
  const decades = Math.max(1, high - low);
  const mantissas = decades <= 2 ? [1, 2, 5] : [1];
  const step = Math.max(1, Math.ceil(decades / MAX_TICKS));
  const ticks = [];
  for (let k = Math.ceil(low / step) * step; k <= high; k += step) {
    for (const m of mantissas) {
      const t = k + Math.log10(m);
      if (t >= min - 1e-9 && t <= max + 1e-9) ticks.push(t);
    }
  }
  // A flat curve may span less than one 1-2-5 step: three evenly spaced ticks then.
  return ticks.length >= 2 ? ticks : [min, (min + max) / 2, max];
}

/** uPlot `values` for a log10 axis: 10⁻³ at whole powers; 0.50, 0.20, 0.10 on all ticks when some fall between. */
export function logValues(u, ticks) {
  const whole = (t) => Math.abs(t - Math.round(t)) < 1e-9;
  const powersOnly = ticks.every((t) => t == null || whole(t));
  return ticks.map((t) => {
    if (t == null) return '';
    return powersOnly ? powerOfTen(Math.round(t)) : formatScientific(10 ** t, 2).text;
  });
}

/** Values to plot on a log10 axis; zeros and negatives become gaps. */
export const log10OrGap = (values) => Array.from(values, (v) => (v > 0 ? Math.log10(v) : null));

/** A number shown as 1.23 × 10⁻⁴ in a <data> element carrying the exact value (for tests and copy). */
export function shownScientific(value, digits = 3) {
  const f = formatScientific(value, digits);
  return h('data', { value: String(value), title: f.value }, f.text);
}
