// Language of a widget (from the nearest `lang` attribute) and the messages every widget shares. The languages
// are rows of one table (../../languages.js); every text lives in content/<lang>/strings/.
import { languageCode, languageRow, stringsOf } from '../../languages.js';

/** The code of the language row the nearest `lang` attribute picks (the page's, else the fallback language). */
export function languageOf(element) {
  const tagged = element.closest('[lang]');
  return languageCode(tagged ? tagged.getAttribute('lang') : document.documentElement.getAttribute('lang'));
}

// A value from the URL is quoted up to this many characters: a hostile link must not fill the page.
export const QUOTE_LIMIT = 40;

/**
 * `raw` in quotes, cut to QUOTE_LIMIT characters (whole code points) with "…" and, in language `lang`, how long
 * it was.
 */
export function quoted(raw, lang) {
  const length = raw.length - (raw.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
  if (length <= QUOTE_LIMIT) return JSON.stringify(raw);
  const prefix = Array.from(raw.slice(0, 2 * QUOTE_LIMIT))
    .slice(0, QUOTE_LIMIT)
    .join('');
  return `${JSON.stringify(`${prefix}…`)}${common(lang).quotedLength(length.toLocaleString(languageRow(lang).numberLocale))}`;
}

/** The messages every widget shares, in language `lang` (content/<lang>/strings/common.js). */
export const common = (lang) => stringsOf(lang, 'common');

/**
 * A readable message, in the page language, for an Error thrown by the lab or by a widget's own checks.
 * Errors carry a stable `code` (and `position` for typed text); unknown codes fall back to the English message.
 */
export function describeError(error, lang, text = '') {
  const strings = common(lang);
  const reason = strings.reasons[error?.reason?.kind];
  if (reason) return reason(shownReason(error.reason));
  const template = strings.errors[error?.code];
  const position = Number.isInteger(error?.position) ? error.position : undefined;
  let message;
  if (typeof template === 'function') {
    const ch = position !== undefined ? (Array.from(text.slice(position))[0] ?? '') : '';
    message = error.code === 'not_in_range' ? template(error.min, error.max) : template(ch);
  } else {
    message = template ?? strings.unexplained(error?.message ?? String(error));
  }
  return position !== undefined ? message + strings.at(position) : message;
}

/** An Error with a code, for checks the widget makes itself (sizes, ranges), translated by describeError. */
export function widgetError(code, details = {}) {
  return Object.assign(new Error(code), { code, ...details });
}

// A reason's numbers as a message quotes them: three significant digits, powers of ten outside 0.001 to 1e6.
const shownNumber = (v) =>
  typeof v !== 'number' || v === 0
    ? String(v)
    : Math.abs(v) >= 1e6 || Math.abs(v) < 1e-3
      ? v.toExponential(2).replace(/\.?0+e/, 'e')
      : String(Number(v.toPrecision(3)));
const shownReason = (reason) => ({ ...reason, value: shownNumber(reason.value), limit: shownNumber(reason.limit) });
