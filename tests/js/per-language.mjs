// Per-language expectations of the content tests: tables keyed by language code with an entry for every language
// of web/languages.js, so a language added there makes each table fail, naming what it still needs, instead of
// going unchecked.
import assert from 'node:assert/strict';
import { LANGUAGES } from '../../web/languages.js';

export const CODES = LANGUAGES.map((row) => row.code);

/** `table`'s entries as [code, entry] in the order of LANGUAGES, after asserting it has one for each language. */
export function perLanguage(what, table) {
  const missing = CODES.filter((code) => !Object.hasOwn(table, code));
  assert.deepEqual(
    missing,
    [],
    `${what}: no entry for ${missing.join(', ')} (every language of web/languages.js needs one)`,
  );
  const unknown = Object.keys(table).filter((key) => !CODES.includes(key));
  assert.deepEqual(unknown, [], `${what}: ${unknown.join(', ')} is no language of web/languages.js`);
  return CODES.map((code) => [code, table[code]]);
}

/**
 * In every language, the text `textOf(code)` holds each of its entry's `says` and none of its `never` (each a
 * regular expression, a string it must contain, or a list of them).
 */
export function saysIn(what, textOf, table) {
  for (const [code, { says = [], never = [], ...rest }] of perLanguage(what, table)) {
    assert.deepEqual(Object.keys(rest), [], `${code}, ${what}: an entry has says and never only`);
    const text = textOf(code);
    assert.equal(typeof text, 'string', `${code}: ${what} is missing`);
    for (const pattern of [says].flat()) assert.ok(holds(text, pattern), `${code}, ${what}: does not say ${pattern}`);
    for (const pattern of [never].flat()) assert.ok(!holds(text, pattern), `${code}, ${what}: says ${pattern}`);
  }
}

const holds = (text, pattern) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));
