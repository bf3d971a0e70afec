// A strict JSON reader for config.json and a sharded checkpoint's index: it names the first problem and its
// position, and refuses NaN, Infinity, a repeated key and nesting deeper than MAX_DEPTH.
import { ResidualLabError } from './errors.js';

const MAX_DEPTH = 64;

/**
 * JSON.parse with the position of the first problem (character index), which JSON.parse does not give in every
 * engine. Objects are made without prototype lookups: "__proto__" is an ordinary key.
 */
export function parseJson(text) {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a file saved with a byte-order mark
  // `reason` ({ kind, value?, limit? }) lets a page say `what` in its own language.
  const fail = (what, reason, at = i) => {
    throw Object.assign(
      new ResidualLabError(`config.json is not valid JSON: ${what} at character ${at + 1}`, {
        code: 'invalid_json',
        position: at,
      }),
      { reason },
    );
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i += 1;
  };
  const expect = (word) => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return true;
    }
    return false;
  };
  const value = (depth) => {
    if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`, { kind: 'too_deep', limit: MAX_DEPTH });
    space();
    const c = text[i];
    if (c === undefined) fail('the text ends where a value should be', { kind: 'ends_early' });
    if (c === '{') return object(depth);
    if (c === '[') return array(depth);
    if (c === '"') return string();
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    if (expect('true')) return true;
    if (expect('false')) return false;
    if (expect('null')) return null;
    if (text.startsWith('NaN', i) || text.startsWith('Infinity', i))
      fail('NaN and Infinity are not JSON', { kind: 'not_finite' });
    const ch = Array.from(text.slice(i))[0];
    return fail(`unexpected ${JSON.stringify(ch)}`, { kind: 'unexpected', value: ch });
  };
  const object = (depth) => {
    i += 1;
    const out = {};
    space();
    if (text[i] === '}') {
      i += 1;
      return out;
    }
    for (;;) {
      space();
      if (text[i] !== '"') fail('a key in double quotes is expected', { kind: 'key_expected' });
      const keyAt = i;
      const key = string();
      if (Object.hasOwn(out, key))
        fail(`the key ${JSON.stringify(key)} appears twice`, { kind: 'repeated_key', value: key }, keyAt);
      space();
      if (text[i] !== ':') fail('":" is expected after a key', { kind: 'colon_expected' });
      i += 1;
      Object.defineProperty(out, key, {
        value: value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      space();
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (text[i] === '}') {
        i += 1;
        return out;
      }
      if (text[i] === undefined) fail('the object is never closed', { kind: 'object_unclosed' });
      fail('"," or "}" is expected', { kind: 'object_separator' });
    }
  };
  const array = (depth) => {
    i += 1;
    const out = [];
    space();
    if (text[i] === ']') {
      i += 1;
      return out;
    }
    for (;;) {
      out.push(value(depth + 1));
      space();
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (text[i] === ']') {
        i += 1;
        return out;
      }
      if (text[i] === undefined) fail('the array is never closed', { kind: 'array_unclosed' });
      fail('"," or "]" is expected', { kind: 'array_separator' });
    }
  };
  const string = () => {
    const start = i;
    i += 1;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i += text[i + 1] === 'u' ? 6 : 2;
      else if (text.charCodeAt(i) < 0x20) fail('a control character inside a string', { kind: 'control_character' });
      else i += 1;
    }
    if (i >= text.length) fail('the string is never closed', { kind: 'string_unclosed' }, start);
    i += 1;
    try {
      return JSON.parse(text.slice(start, i));
    } catch {
      return fail('an invalid escape in a string', { kind: 'bad_escape' }, start);
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) fail('an invalid number', { kind: 'bad_number' });
    i += match[0].length;
    return Number(match[0]);
  };
  const result = value(0);
  space();
  if (i < text.length) fail('text after the end of the JSON value', { kind: 'trailing_text' });
  return result;
}
