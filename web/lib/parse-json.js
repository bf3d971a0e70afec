// A strict JSON reader for config.json and a sharded checkpoint's index: it names the first problem and its
// position, and refuses NaN, Infinity, a repeated key and nesting deeper than MAX_DEPTH.
import { ResidualLabError } from './errors.js';

const MAX_DEPTH = 64;

/**
 * JSON.parse with the position of the first problem (character index), which JSON.parse does not give in every
 * engine. Objects are made without prototype lookups: "__proto__" is an ordinary key.
 */
export function parseJson(text) {
  const reader = new JsonReader(text);
  const result = reader.value(0);
  reader.space();
  if (reader.i < text.length) reader.fail('text after the end of the JSON value', { kind: 'trailing_text' });
  return result;
}

/** A cursor `i` over `text`, each method reading one kind of JSON value from it. */
class JsonReader {
  constructor(text) {
    this.text = text;
    this.i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a file saved with a byte-order mark
  }

  // `reason` ({ kind, value?, limit? }) lets a page say `what` in its own language.
  fail(what, reason, at = this.i) {
    throw Object.assign(
      new ResidualLabError(`config.json is not valid JSON: ${what} at character ${at + 1}`, {
        code: 'invalid_json',
        position: at,
      }),
      { reason },
    );
  }

  space() {
    const { text } = this;
    while (this.i < text.length && ' \t\n\r'.includes(text[this.i])) this.i += 1;
  }

  expect(word) {
    if (this.text.startsWith(word, this.i)) {
      this.i += word.length;
      return true;
    }
    return false;
  }

  value(depth) {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`, { kind: 'too_deep', limit: MAX_DEPTH });
    this.space();
    const { text, i } = this;
    const c = text[i];
    if (c === undefined) this.fail('the text ends where a value should be', { kind: 'ends_early' });
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    if (this.expect('true')) return true;
    if (this.expect('false')) return false;
    if (this.expect('null')) return null;
    if (text.startsWith('NaN', i) || text.startsWith('Infinity', i))
      this.fail('NaN and Infinity are not JSON', { kind: 'not_finite' });
    const ch = Array.from(text.slice(i))[0];
    return this.fail(`unexpected ${JSON.stringify(ch)}`, { kind: 'unexpected', value: ch });
  }

  object(depth) {
    const { text } = this;
    this.i += 1;
    const out = {};
    this.space();
    if (text[this.i] === '}') {
      this.i += 1;
      return out;
    }
    for (;;) {
      this.space();
      if (text[this.i] !== '"') this.fail('a key in double quotes is expected', { kind: 'key_expected' });
      const keyAt = this.i;
      const key = this.string();
      if (Object.hasOwn(out, key))
        this.fail(`the key ${JSON.stringify(key)} appears twice`, { kind: 'repeated_key', value: key }, keyAt);
      this.space();
      if (text[this.i] !== ':') this.fail('":" is expected after a key', { kind: 'colon_expected' });
      this.i += 1;
      Object.defineProperty(out, key, {
        value: this.value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.space();
      if (text[this.i] === ',') {
        this.i += 1;
        continue;
      }
      if (text[this.i] === '}') {
        this.i += 1;
        return out;
      }
      if (text[this.i] === undefined) this.fail('the object is never closed', { kind: 'object_unclosed' });
      this.fail('"," or "}" is expected', { kind: 'object_separator' });
    }
  }

  array(depth) {
    const { text } = this;
    this.i += 1;
    const out = [];
    this.space();
    if (text[this.i] === ']') {
      this.i += 1;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.space();
      if (text[this.i] === ',') {
        this.i += 1;
        continue;
      }
      if (text[this.i] === ']') {
        this.i += 1;
        return out;
      }
      if (text[this.i] === undefined) this.fail('the array is never closed', { kind: 'array_unclosed' });
      this.fail('"," or "]" is expected', { kind: 'array_separator' });
    }
  }

  string() {
    const { text } = this;
    const start = this.i;
    this.i += 1;
    while (this.i < text.length && text[this.i] !== '"') {
      if (text[this.i] === '\\') this.i += text[this.i + 1] === 'u' ? 6 : 2;
      else if (text.charCodeAt(this.i) < 0x20)
        this.fail('a control character inside a string', { kind: 'control_character' });
      else this.i += 1;
    }
    if (this.i >= text.length) this.fail('the string is never closed', { kind: 'string_unclosed' }, start);
    this.i += 1;
    try {
      return JSON.parse(text.slice(start, this.i));
    } catch {
      return this.fail('an invalid escape in a string', { kind: 'bad_escape' }, start);
    }
  }

  number() {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.i, this.i + 400));
    if (!match) this.fail('an invalid number', { kind: 'bad_number' });
    this.i += match[0].length;
    return Number(match[0]);
  }
}
