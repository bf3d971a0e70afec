// Number formatting for everything the lab shows or saves: one rule, formatNumber, that every widget, table, chart
// axis and export goes through. Numbers keep their significant digits at every scale: fixed notation while it
// shows them, scientific notation where fixed would lose them (3.2e-6 is never "0.000"). ASCII minus, so a shown
// vector can be copied back into a field.

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
const superscript = (power) => String(power).replace(/[-0-9]/g, (c) => SUPERSCRIPT[c]);
// Fixed notation from 10^-3 to below 10^6; scientific outside, where fixed needs more than three leading zeros
// or seven integer digits to carry the value.
const SMALLEST_FIXED = 1e-3;
const LARGEST_FIXED = 1e6;

/**
 * The lab's number format. `decimals`: the decimals shown, or more where rounding to them would lose one of the
 * value's first `significant` significant digits: 0.0032, not 0.003.
 * `trim`: drop trailing zeros (3.5, 4, 0) or keep them (3.500). `style`: 'text' writes 3.16 × 10⁻⁶, 'plain'
 * 3.16e-6 (what a vector field and a CSV reader read back). Scientific notation carries max(significant, 3)
 * significant digits.
 */
export function formatNumber(value, { decimals = 3, significant = 2, trim = true, style = 'text' } = {}) {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '∞';
  if (value === -Infinity) return '-∞';
  const size = Math.abs(value);
  if (size === 0) return trim || decimals === 0 ? '0' : (0).toFixed(decimals);
  if (size < SMALLEST_FIXED || size >= LARGEST_FIXED)
    return scientificText(value, Math.max(significant, 3), trim, style);
  // More decimals only where `decimals` would round off more than half a unit of the last significant digit.
  const magnitude = Math.floor(Math.log10(size));
  const lost = Math.abs(Number(value.toFixed(decimals)) - value) > 0.5 * 10 ** (magnitude - significant + 1);
  const text = value.toFixed(lost ? Math.min(20, significant - 1 - magnitude) : decimals);
  return trim && text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

function scientificText(value, digits, trim, style) {
  let [mantissa, exponent] = value.toExponential(digits - 1).split('e');
  if (trim && mantissa.includes('.')) mantissa = mantissa.replace(/\.?0+$/, '');
  const power = Number(exponent);
  return style === 'plain' ? `${mantissa}e${power}` : `${mantissa} × 10${superscript(power)}`;
}

/** `digits` decimals, trailing zeros kept (1.000, 0.500); more, or scientific notation, where a value needs them. */
export const formatFixed = (value, digits = 3) => formatNumber(value, { decimals: digits, trim: false });

/** Up to `digits` decimals without trailing zeros, as the chapter's hand calculation: 3.5, 1.871, 4, 0. */
export const formatTrimmed = (value, digits = 3) => formatNumber(value, { decimals: digits });

/**
 * Tick labels for an axis (uPlot `values`, a bar chart's axis, an exported SVG): as many decimals as the ticks
 * need to differ (0, 0.25, 0.5), scientific notation for ticks that are all tiny or huge.
 */
export function formatTicks(ticks) {
  const decimalsOf = (t) => {
    const text = String(Number(Math.abs(t).toPrecision(12)));
    if (text.includes('e')) return 0;
    return text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
  };
  const decimals = Math.min(6, Math.max(0, ...ticks.filter(Number.isFinite).map(decimalsOf)));
  return ticks.map((t) => (t == null ? '' : formatNumber(t, { decimals, significant: 1 })));
}

/**
 * Labels shown side by side (one bar chart's values) in one precision: every label in fixed notation gets as many
 * decimals as the most precise of them, so 0.32, 10 and 11.01 read 0.32, 10.00, 11.01. Scientific labels and
 * symbols (NaN, ∞) stay as they are.
 */
export function alignDecimals(texts) {
  const FIXED = /^-?\d+(\.\d+)?$/;
  const decimalsOf = (text) => (text.includes('.') ? text.length - text.indexOf('.') - 1 : 0);
  const decimals = Math.max(0, ...texts.filter((t) => FIXED.test(t)).map(decimalsOf));
  return texts.map((text) => {
    if (!FIXED.test(text) || decimalsOf(text) === decimals) return text;
    return `${text}${text.includes('.') ? '' : '.'}${'0'.repeat(decimals - decimalsOf(text))}`;
  });
}

/** A uPlot axis `values` callback with the lab's tick labels. */
export const axisValues = (u, ticks) => formatTicks(ticks);

/** A vector as the reader would type it: "[1.069, -0.535, 1.604, 0]", "[1e-8, 0, 0, 0]". */
export function formatVector(values, digits = 3) {
  return `[${Array.from(values, (v) => formatNumber(v, { decimals: digits, style: 'plain' })).join(', ')}]`;
}

/**
 * A long vector in short: its first and last `ends` values around an ellipsis, "[2, -1, 3, …, 7, 0, 1]"; a vector
 * of at most `2 * ends + 1` values in full.
 */
export function formatVectorSummary(values, ends = 3, digits = 3) {
  if (values.length <= 2 * ends + 1) return formatVector(values, digits);
  const head = formatVector(values.slice(0, ends), digits).slice(0, -1);
  const tail = formatVector(values.slice(values.length - ends), digits).slice(1);
  return `${head}, …, ${tail}`;
}

/**
 * Scientific notation for errors and other small or large numbers: 3.1 × 10⁻⁸ (fixed from 0.01 to 9999).
 * Returns { text, value } where `value` is the machine-readable form ("3.1e-8") for a <data value> element.
 */
export function formatScientific(value, digits = 2) {
  if (!Number.isFinite(value)) return { text: formatNumber(value), value: String(value) };
  if (value === 0) return { text: '0', value: '0' };
  const [mantissa, exponent] = value.toExponential(digits - 1).split('e');
  const power = Number(exponent);
  if (power >= -2 && power <= 3) {
    const decimals = Math.max(0, digits - 1 - power);
    return { text: value.toFixed(decimals), value: value.toPrecision(digits) };
  }
  return { text: `${mantissa} × 10${superscript(power)}`, value: `${mantissa}e${power}` };
}

/** 10 to the power e, as text: 10⁻⁴, 1, 10³. */
export function powerOfTen(e) {
  return e === 0 ? '1' : `10${superscript(e)}`;
}

/**
 * A whole count with grouped digits, as the chapter writes them: 1,048,576. Grouped here rather than by
 * toLocaleString: the page's first Intl formatter starts ICU's number formatting, 20 ms of one widget's first
 * drawing (docs/benchmarks.md, "The page").
 */
export function formatCount(n) {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '∞' : '-∞';
  const whole = Math.round(n);
  let digits = String(Math.abs(whole));
  const exponent = /^(\d)(?:\.(\d+))?e\+(\d+)$/.exec(digits); // from 1e21 on: the shortest digits, then zeros
  if (exponent) digits = `${exponent[1]}${exponent[2] ?? ''}`.padEnd(Number(exponent[3]) + 1, '0');
  return `${whole < 0 ? '-' : ''}${digits.replace(/\B(?=(\d{3})+$)/g, ',')}`;
}

/** A share of a whole as a percentage with `significant` significant digits: 0.0033%. */
export const formatPercent = (fraction, significant = 2) =>
  `${formatNumber(100 * fraction, { decimals: 0, significant })}%`;

/**
 * A factor as text, in one form for every size: ×0.1, ×1.58 (three significant digits, what is used), ×65,540
 * (whole, grouped, up to a million), ×2.05 × 10⁶ beyond.
 */
export function formatFactor(factor) {
  if (!Number.isFinite(factor)) return `×${formatNumber(factor)}`;
  const size = Math.abs(factor);
  if (size >= 1e6) return `×${formatScientific(factor, 3).text}`;
  if (size >= 1000) return `×${formatCount(factor)}`;
  return `×${Number(factor.toPrecision(3))}`;
}

/**
 * A size in bytes, in decimal units: GB with two decimals from 0.1 GB (0.99 GB), MB with one below (0.8 MB), where
 * two decimals of a GB would show a toy's weights as 0.00 GB.
 */
export const formatBytes = (bytes) =>
  bytes >= 1e8 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;

/** A config.json value as such a file writes it: small eps values in exponent form (1e-6, not 0.000001). */
export function shownConfigValue(value) {
  return typeof value === 'number' && value !== 0 && Math.abs(value) < 1e-3
    ? value.toExponential()
    : JSON.stringify(value);
}
