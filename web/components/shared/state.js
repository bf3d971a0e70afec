// Widget state as a table (the idea of TensorFlow Playground's state.ts): every setting is one row
// { name, type, default, ... }, so the whole view of a widget can be written into the URL query and read back.
// Keys are `<prefix>.<name>` (prefix per widget instance), defaults are left out of the URL, and a value that
// does not parse is reported as a problem and replaced by the default: reading a URL never throws.
//
// Row types (the option tables' vocabulary, lab.describe(), plus text):
//   number   finite float, optional min / max (inclusive)
//   integer  like number, and a whole number
//   choice   one of `choices` (strings)
//   boolean  'true' / 'false' in the URL
//   text     a string of at most `maxLength` characters; `validate(text, context)` may throw to reject it
//            (vectors are stored as the text the reader typed, and checked with the lab's parseVector).
// A row that sets an option of the API names it: { name: 'layers', option: 'experiments.warmup.nLayers',
// max: 12 } takes its type, default, bounds and choices from that option's row; the widget may narrow the bounds
// or the choices and pick another default inside them, and defineState refuses a row that leaves the option's.
//
// The same rows are the element's attributes: row `maxGain` is attribute `max-gain` (attributeName: a run of
// capitals starts a lower-case word, `zeroQK` is `zero-qk`), read with the same parsers as the URL.

import { findRow } from '../../lib/options.js';

const TYPES = {
  number: {
    parse(raw, row) {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(raw.trim())) return problem('not_a_number');
      return checkRange(Number(raw), row);
    },
    check: (value, row) => typeof value === 'number' && Number.isFinite(value) && inRange(value, row),
    format: (value) => String(value),
  },
  integer: {
    parse(raw, row) {
      if (!/^[+-]?\d+$/.test(raw.trim())) return problem('not_an_integer');
      return checkRange(Number(raw), row);
    },
    check: (value, row) => Number.isSafeInteger(value) && inRange(value, row),
    format: (value) => String(value),
  },
  choice: {
    parse: (raw, row) => (row.choices.includes(raw) ? { value: raw } : problem('unknown_option')),
    check: (value, row) => row.choices.includes(value),
    format: (value) => value,
  },
  boolean: {
    parse: (raw) => (raw === 'true' ? { value: true } : raw === 'false' ? { value: false } : problem('not_a_boolean')),
    check: (value) => typeof value === 'boolean',
    format: (value) => String(value),
  },
  text: {
    parse: (raw, row) => (raw.length > row.maxLength ? problem('too_long') : { value: raw }),
    check: (value, row) => typeof value === 'string' && value.length <= row.maxLength,
    format: (value) => value,
  },
};

function problem(code) {
  return { problem: code };
}

function inRange(value, row) {
  const below = row.minExclusive ? value <= row.min : value < row.min;
  return !(row.min !== undefined && below) && !(row.max !== undefined && value > row.max);
}

function checkRange(value, row) {
  if (!Number.isFinite(value)) return problem('not_a_number');
  return inRange(value, row) ? { value } : problem('out_of_range');
}

// The row with its option's type, default, bounds and choices filled in; throws when the widget's own values
// leave the option's.
function withOption(row, tables) {
  if (!row.option) return row;
  const option = findRow(tables, row.option);
  const fail = (problem) => { throw new Error(`state row "${row.name}" (option ${row.option}): ${problem}`); };
  if (!['integer', 'number', 'boolean', 'choice'].includes(option.type)) fail(`a ${option.type} option cannot be one setting`);
  const merged = { default: option.default, ...row, type: option.type };
  if (option.type === 'integer' || option.type === 'number') {
    merged.min = row.min ?? option.min;
    merged.max = row.max ?? option.max;
    merged.minExclusive = row.min === undefined && option.minExclusive;
    const below = option.minExclusive && !merged.minExclusive ? merged.min <= option.min : merged.min < option.min;
    if (below || merged.max > option.max) fail(`bounds ${merged.min}..${merged.max} leave the option's ${option.min}..${option.max}`);
  }
  if (option.type === 'choice') {
    merged.choices = row.choices ?? option.choices;
    const foreign = merged.choices.filter((c) => !option.choices.includes(c));
    if (foreign.length) fail(`${foreign.join(', ')} is not one of the option's choices`);
  }
  return merged;
}

/**
 * Checks the table itself once (a wrong table is a programming error, so this one throws). `tables` is
 * lab.describe(), needed when a row names an `option`.
 */
export function defineState(rows, tables = null) {
  const names = new Set();
  rows = rows.map((row) => withOption(row, tables));
  for (const row of rows) {
    const type = TYPES[row.type];
    if (!type) throw new Error(`state row "${row.name}": unknown type "${row.type}"`);
    if (names.has(row.name)) throw new Error(`state row "${row.name}" appears twice`);
    if (!/^[a-z][a-zA-Z0-9]*$/.test(row.name)) throw new Error(`state row "${row.name}": use a short camelCase name`);
    if (row.type === 'choice' && !Array.isArray(row.choices)) throw new Error(`state row "${row.name}": choice needs choices`);
    if (row.type === 'text' && !(row.maxLength > 0)) throw new Error(`state row "${row.name}": text needs maxLength`);
    if (!type.check(row.default, row)) throw new Error(`state row "${row.name}": default ${JSON.stringify(row.default)} is not valid`);
    names.add(row.name);
  }
  return Object.freeze(rows.map((row) => Object.freeze({ ...row })));
}

export function defaultValues(table) {
  return Object.fromEntries(table.map((row) => [row.name, row.default]));
}

const keyOf = (prefix, name) => (prefix ? `${prefix}.${name}` : name);

/** The attribute that holds row `name`: kebab-case, a run of capitals one word (maxGain max-gain, zeroQK zero-qk). */
export function attributeName(name) {
  return name.replace(/[A-Z]+/g, (capitals) => `-${capitals.toLowerCase()}`);
}

/**
 * Reads the rows from URLSearchParams (anything with get(key)). Returns { values, problems }: values holds every
 * row (from `base`, default the rows' defaults, where the URL has nothing or something unusable); each problem
 * is { name, key, raw, code, error? }. `context` is passed to row.validate (e.g. { parseVector }).
 */
export function readState(table, params, prefix, context = {}, base = defaultValues(table)) {
  const values = { ...base };
  const problems = [];
  for (const row of table) {
    const key = keyOf(prefix, row.name);
    const raw = params.get(key);
    if (raw === null) continue;
    const parsed = TYPES[row.type].parse(raw, row);
    if (parsed.problem) {
      problems.push({ name: row.name, key, raw, code: parsed.problem });
      continue;
    }
    if (row.validate) {
      try {
        row.validate(parsed.value, context);
      } catch (error) {
        problems.push({ name: row.name, key, raw, code: 'invalid', error });
        continue;
      }
    }
    values[row.name] = parsed.value;
  }
  return { values, problems };
}

/**
 * Reads the rows from the attributes of `element` (attributeName of each row). Same result as readState; a
 * problem's `key` is the attribute's name.
 */
export function readAttributes(table, element, context = {}) {
  const attributes = { get: (name) => element.getAttribute(attributeName(name)) };
  const { values, problems } = readState(table, attributes, '', context);
  return { values, problems: problems.map((p) => ({ ...p, key: attributeName(p.name) })) };
}

/**
 * Writes the rows into `params` (a URLSearchParams, changed in place): a value equal to its `base` (default the
 * row's default) removes its key, a text longer than row.urlLimit (when set) is not put in the URL (a typed
 * 8192-d vector would not fit).
 */
export function writeState(table, values, params, prefix, base = defaultValues(table)) {
  for (const row of table) {
    const key = keyOf(prefix, row.name);
    const value = values[row.name];
    const type = TYPES[row.type];
    const tooLong = row.urlLimit !== undefined && typeof value === 'string' && value.length > row.urlLimit;
    if (value === base[row.name] || !type.check(value, row) || tooLong) params.delete(key);
    else params.set(key, type.format(value));
  }
  return params;
}
