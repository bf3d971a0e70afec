// Options checked against the core's option tables (lab.describe(), exported once by the bindings from
// wasm/src/**/options.cpp). Every options object of the API goes through resolveOptions: defaults filled in,
// unknown keys refused (own keys only: "constructor", "__proto__" and "toString" are unknown, not inherited),
// every value checked against its row. The messages read like the C++ ones, which check the same rows again.
import { ResidualLabError } from './errors.js';

/** How a value looks in a message. */
export function shown(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'bigint' ? `${value}n` : typeof value;
}

function bounds(row) {
  const below = Number.isFinite(row.min),
    above = Number.isFinite(row.max);
  if (below && above)
    return row.minExclusive ? ` above ${row.min} and at most ${row.max}` : ` from ${row.min} to ${row.max}`;
  if (below) return row.minExclusive ? ` above ${row.min}` : ` of at least ${row.min}`;
  return above ? ` of at most ${row.max}` : '';
}

// The float32 range (api/options.hpp): a row with float32 set takes 0 or a magnitude from the smallest normal
// float32 to the largest; the sentence is the C++ check_float32's.
const FLOAT32_MIN = 1.1754943508222875e-38,
  FLOAT32_MAX = 3.4028234663852886e38;
const fitsFloat32 = (value) => value === 0 || (Math.abs(value) >= FLOAT32_MIN && Math.abs(value) <= FLOAT32_MAX);
function float32Problem(value, label) {
  const becomes =
    Math.abs(value) > FLOAT32_MAX
      ? value > 0
        ? 'Infinity'
        : '-Infinity'
      : Math.fround(value) === 0
        ? '0'
        : 'a subnormal float32 (imprecise)';
  return (
    `${label} must be representable as a float32: ${shown(value)} would become ${becomes} ` +
    '(nonzero magnitudes from 1.17549435e-38 to 3.40282347e+38)'
  );
}

const inBounds = (row, value, integral) =>
  typeof value === 'number' &&
  Number.isFinite(value) &&
  (!integral || Number.isInteger(value)) &&
  (row.minExclusive ? value > row.min : value >= row.min) &&
  value <= row.max;

/** Whether `value` fits a scalar row (type integer, number, boolean or choice). */
export function fits(row, value, type = row.type) {
  switch (type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'choice':
      return row.choices.includes(value);
    default:
      return inBounds(row, value, type === 'integer') && (!row.float32 || fitsFloat32(value)); // integer, number
  }
}

/** '' when `value` fits a scalar row (type integer, number, boolean or choice), else the problem. */
export function problemWith(row, value, type = row.type, label = row.name) {
  if (fits(row, value, type)) return '';
  switch (type) {
    case 'boolean':
      return `${label} must be true or false (got ${shown(value)})`;
    case 'choice':
      return `${label} must be one of ${row.choices.join(', ')} (got ${shown(value)})`;
    default: {
      const integral = type === 'integer';
      if (inBounds(row, value, integral)) return float32Problem(value, label);
      return `${label} must be ${integral ? 'an integer' : 'a finite number'}${bounds(row)} (got ${shown(value)})`;
    }
  }
}

const isOptionsObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);
const copyDefault = (v) => (Array.isArray(v) ? [...v] : isOptionsObject(v) ? { ...v } : v);

function checkRow(row, value, label, fail) {
  if (value === null && row.nullable) return null;
  if (row.type === 'object') return resolveTable(row.fields, value, { where: row.name, path: `${label}.` }, fail);
  if (row.type === 'list') {
    if (!Array.isArray(value) && !(ArrayBuffer.isView(value) && !(value instanceof DataView)))
      fail(`${label} must be an array (got ${shown(value)})`);
    if (value.length < row.minLength || value.length > row.maxLength)
      fail(`${label} must have ${row.minLength} to ${row.maxLength} entries (got ${value.length})`);
    return Array.from(value, (item, i) => {
      const problem = problemWith(row, item, row.item, `${label}[${i}]`);
      if (problem) fail(problem);
      return item;
    });
  }
  const problem = problemWith(row, value, row.type, label);
  if (problem) fail(problem);
  return value;
}

const rowMaps = new WeakMap();
function rowsByName(table) {
  let rows = rowMaps.get(table);
  if (!rows) rowMaps.set(table, (rows = new Map(table.map((row) => [row.name, row]))));
  return rows;
}

// `where` names the object in messages about it, `path` prefixes its rows' names ("init.").
function resolveTable(table, given, { where, path }, fail) {
  if (given === undefined || given === null) given = {};
  if (!isOptionsObject(given)) fail(`${where} must be an object (got ${shown(given)})`);
  const rows = rowsByName(table);
  for (const key of Object.keys(given)) {
    if (!rows.has(key)) fail(`unknown ${where} key "${key}" (known: ${[...rows.keys()].join(', ')})`);
  }
  const out = {};
  for (const row of table) {
    const value =
      Object.hasOwn(given, row.name) && given[row.name] !== undefined ? given[row.name] : copyDefault(row.default);
    out[row.name] = checkRow(row, value, path + row.name, fail);
  }
  return out;
}

/**
 * `given` checked against `table` (rows of lab.describe()). `where` names the object in messages ("config",
 * "init", "trainStep option"); `prefix` is put before every message ("warmup: "); `code` is the error's code.
 */
export function resolveOptions(table, given, { where = 'options', prefix = '', code = 'invalid_options' } = {}) {
  const fail = (message) => {
    throw new ResidualLabError(prefix + message, { code });
  };
  return resolveTable(table, given, { where, path: '' }, fail);
}

/** The defaults of a table, as resolveOptions would fill them in. */
export function defaultsOf(table) {
  return Object.fromEntries(
    table.map((row) => [row.name, row.type === 'object' ? defaultsOf(row.fields) : copyDefault(row.default)]),
  );
}

/** The row at a dotted path: findRow(tables, 'experiments.warmup.init.scheme'). */
export function findRow(tables, path) {
  const parts = path.split('.');
  let node = tables;
  while (node && !Array.isArray(node) && parts.length) {
    const part = parts.shift();
    node = Object.hasOwn(node, part) ? node[part] : undefined;
  }
  let row;
  for (const part of parts) {
    row = Array.isArray(node) ? node.find((r) => r.name === part) : undefined;
    node = row?.fields;
  }
  if (!row) throw new Error(`no option table row "${path}"`);
  return row;
}

/** Freezes the tables deeply: they are shared by every caller. */
export function freezeTables(value) {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) freezeTables(v);
    Object.freeze(value);
  }
  return value;
}
