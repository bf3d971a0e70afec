// Number formatting for what the widgets show. ASCII minus, so a shown vector can be copied back into a field.

/** Fixed decimals, never "-0.000". */
export function formatFixed(value, digits = 3) {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '∞';
  if (value === -Infinity) return '-∞';
  const text = value.toFixed(digits);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** Up to `digits` decimals without trailing zeros, as the chapter's hand calculation: 3.5, 1.871, 4, 0. */
export function formatTrimmed(value, digits = 3) {
  const text = formatFixed(value, digits);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** A vector as the reader would type it: "[1.069, -0.535, 1.604, 0]". */
export function formatVector(values, digits = 3, format = formatTrimmed) {
  return `[${Array.from(values, (v) => format(v, digits)).join(', ')}]`;
}

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

/**
 * Scientific notation for errors and other small or large numbers: 3.1 × 10⁻⁸.
 * Returns { text, value } where `value` is the machine-readable form ("3.1e-8") for a <data value> element.
 */
export function formatScientific(value, digits = 2) {
  if (!Number.isFinite(value)) return { text: formatFixed(value), value: String(value) };
  if (value === 0) return { text: '0', value: '0' };
  const [mantissa, exponent] = value.toExponential(digits - 1).split('e');
  const power = Number(exponent);
  if (power >= -2 && power <= 3) {
    const decimals = Math.max(0, digits - 1 - power);
    return { text: formatFixed(value, decimals), value: value.toPrecision(digits) };
  }
  const superscript = String(power).replace(/[-0-9]/g, (c) => SUPERSCRIPT[c]);
  return { text: `${mantissa} × 10${superscript}`, value: `${mantissa}e${power}` };
}

/** 10 to the power e, as text: 10⁻⁴, 1, 10³. */
export function powerOfTen(e) {
  return e === 0 ? '1' : `10${String(e).replace(/[-0-9]/g, (c) => SUPERSCRIPT[c])}`;
}

/**
 * A factor as text, in one form for every size: ×0.1, ×1.58 (three significant digits, what is used), ×65,540
 * (whole, grouped, up to a million), ×2.05 × 10⁶ beyond.
 */
export function formatFactor(factor) {
  if (!Number.isFinite(factor)) return `×${formatFixed(factor)}`;
  const size = Math.abs(factor);
  if (size >= 1e6) return `×${formatScientific(factor, 3).text}`;
  if (size >= 1000) return `×${Math.round(factor).toLocaleString('en-US')}`;
  return `×${Number(factor.toPrecision(3))}`;
}

/** A config.json value as such a file writes it: small eps values in exponent form (1e-6, not 0.000001). */
export function shownConfigValue(value) {
  return typeof value === 'number' && value !== 0 && Math.abs(value) < 1e-3 ? value.toExponential() : JSON.stringify(value);
}
