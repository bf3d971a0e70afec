// The widgets' state table (web/components/shared/state.js): URL round trips, defaults left out, and broken
// URL values reported and replaced by the default instead of thrown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LINK_LIMIT,
  attributeName,
  compress,
  decompress,
  defaultValues,
  defineState,
  expandLongState,
  readAttributes,
  readState,
  unknownKeys,
  writeLongState,
  writeState,
} from '../../web/components/shared/state.js';
import { WIDGET_TAGS } from '../../web/components/registry.js';

const TABLE = defineState([
  {
    name: 'x',
    type: 'text',
    default: '2, -1, 3, 0',
    maxLength: 50,
    urlLimit: 20,
    validate: (text, { parseVector }) => parseVector(text),
  },
  { name: 'eps', type: 'number', default: 1e-5, min: 0, max: 1 },
  { name: 'step', type: 'integer', default: 0, min: 0, max: 11 },
  { name: 'source', type: 'choice', choices: ['random', 'typed'], default: 'random' },
  { name: 'log', type: 'boolean', default: false },
]);

// A stand-in for the lab's parser: comma-separated finite numbers.
function parseVector(text) {
  const values = text.split(',').map(Number);
  if (values.some((v) => !Number.isFinite(v))) throw Object.assign(new Error('bad vector'), { code: 'invalid_number' });
  return values;
}

test('a written state reads back exactly, through a real URL', () => {
  const values = { x: '20, -10, 30, 0', eps: 0.001, step: 7, source: 'typed', log: true };
  const url = new URL('https://example.org/page?other=1#normalization');
  writeState(TABLE, values, url.searchParams, 'vec');
  const reread = readState(TABLE, new URL(url.href).searchParams, 'vec', { parseVector });
  assert.deepEqual(reread, { values, problems: [] });
  assert.equal(url.searchParams.get('other'), '1', 'keys of other widgets stay');
  assert.equal(url.searchParams.get('vec.step'), '7');
});

test('defaults are left out of the URL, and an empty URL gives the defaults', () => {
  const params = new URLSearchParams('vec.step=3');
  writeState(TABLE, defaultValues(TABLE), params, 'vec');
  assert.equal(params.toString(), '', 'writing the defaults removes the stale key');
  assert.deepEqual(readState(TABLE, params, 'vec'), { values: defaultValues(TABLE), problems: [] });
});

test('prefixes keep two instances apart', () => {
  const params = new URLSearchParams();
  writeState(TABLE, { ...defaultValues(TABLE), step: 2 }, params, 'vec');
  writeState(TABLE, { ...defaultValues(TABLE), step: 5 }, params, 'vec2');
  assert.equal(readState(TABLE, params, 'vec').values.step, 2);
  assert.equal(readState(TABLE, params, 'vec2').values.step, 5);
});

test('broken URL values are reported with a code and fall back to the default, never thrown', () => {
  const params = new URLSearchParams({
    'vec.x': '1, two, 3',
    'vec.eps': 'abc',
    'vec.step': '2.5',
    'vec.source': 'typo',
    'vec.log': 'yes',
  });
  const { values, problems } = readState(TABLE, params, 'vec', { parseVector });
  assert.deepEqual(values, defaultValues(TABLE));
  assert.deepEqual(
    problems.map((p) => [p.name, p.code]),
    [
      ['x', 'invalid'],
      ['eps', 'not_a_number'],
      ['step', 'not_an_integer'],
      ['source', 'unknown_option'],
      ['log', 'not_a_boolean'],
    ],
  );
  assert.equal(problems[0].error.code, 'invalid_number', 'the validator error is kept for its message');
  assert.equal(problems[0].raw, '1, two, 3');
});

test('numbers outside their range, NaN and Infinity are rejected', () => {
  for (const raw of ['-0.1', '2', 'NaN', 'Infinity', '1e400', '']) {
    const { values, problems } = readState(TABLE, new URLSearchParams({ 'vec.eps': raw }), 'vec');
    assert.equal(values.eps, 1e-5, `eps=${raw} falls back`);
    assert.equal(problems.length, 1, `eps=${raw} is reported`);
  }
  const ok = readState(TABLE, new URLSearchParams({ 'vec.eps': '1e-3', 'vec.step': '11' }), 'vec');
  assert.deepEqual([ok.values.eps, ok.values.step, ok.problems.length], [1e-3, 11, 0]);
});

test('a text longer than maxLength is refused on read; longer than urlLimit is kept out of the URL', () => {
  const long = readState(TABLE, new URLSearchParams({ 'vec.x': '1,'.repeat(30) + '1' }), 'vec', { parseVector });
  assert.deepEqual(
    long.problems.map((p) => p.code),
    ['too_long'],
  );
  const params = new URLSearchParams();
  writeState(TABLE, { ...defaultValues(TABLE), x: '1, 2, 3, 4, 5, 6, 7, 8, 9' }, params, 'vec');
  assert.equal(params.has('vec.x'), false);
});

test('a wrong value in memory is never written (a string cannot land in a number row)', () => {
  const params = new URLSearchParams({ 'vec.eps': '0.5' });
  writeState(TABLE, { ...defaultValues(TABLE), eps: 'abc', step: 99 }, params, 'vec');
  assert.equal(params.toString(), '');
});

test('a malformed table is a programming error and throws at definition', () => {
  assert.throws(() => defineState([{ name: 'a', type: 'float', default: 1 }]), /unknown type/);
  assert.throws(() => defineState([{ name: 'a', type: 'number', default: 5, max: 1 }]), /default/);
  assert.throws(() => defineState([{ name: 'a', type: 'choice', default: 'x' }]), /choices/);
  assert.throws(
    () =>
      defineState([
        { name: 'a', type: 'integer', default: 1 },
        { name: 'a', type: 'integer', default: 1 },
      ]),
    /twice/,
  );
});

// A row that names an API option takes its type, default, bounds and choices from the option table, and may only
// narrow them: a widget cannot offer what the API refuses.
const TABLES = {
  experiments: {
    warmup: [
      { name: 'nLayers', type: 'integer', default: 6, min: 1, max: 128, minExclusive: false },
      { name: 'lr', type: 'number', default: 0.003, min: 0, max: 1, minExclusive: true },
      {
        name: 'init',
        type: 'object',
        fields: [{ name: 'scheme', type: 'choice', default: 'xavier', choices: ['normal', 'xavier'] }],
      },
    ],
  },
};

test('rows naming an option derive from the option table and may only narrow it', () => {
  const [layers, lr, scheme] = defineState(
    [
      { name: 'layers', option: 'experiments.warmup.nLayers', max: 12 },
      { name: 'lr', option: 'experiments.warmup.lr' },
      { name: 'init', option: 'experiments.warmup.init.scheme' },
    ],
    TABLES,
  );
  assert.deepEqual([layers.type, layers.default, layers.min, layers.max], ['integer', 6, 1, 12]);
  assert.deepEqual(
    readState([lr], new URLSearchParams('lr=0'), '').problems.map((p) => p.code),
    ['out_of_range'],
  ); // lr > 0
  assert.deepEqual([scheme.type, scheme.default, scheme.choices], ['choice', 'xavier', ['normal', 'xavier']]);
  assert.throws(
    () => defineState([{ name: 'layers', option: 'experiments.warmup.nLayers', max: 500 }], TABLES),
    /leave the option's 1\.\.128/,
  );
  assert.throws(
    () => defineState([{ name: 'init', option: 'experiments.warmup.init.scheme', choices: ['orthogonal'] }], TABLES),
    /orthogonal is not one of/,
  );
  assert.throws(() => defineState([{ name: 'x', option: 'experiments.warmup.noSuch' }], TABLES), /no option table row/);
});

test('attribute names: kebab-case of the row, a run of capitals one word', () => {
  assert.deepEqual(['x', 'maxGain', 'zeroQK', 'dHead', 'warmupSteps', 'trainSteps'].map(attributeName), [
    'x',
    'max-gain',
    'zero-qk',
    'd-head',
    'warmup-steps',
    'train-steps',
  ]);
});

/** A stand-in element: its attributes from a plain object. */
const element = (attributes) => ({ getAttribute: (name) => attributes[name] ?? null });

test('attributes read like the URL: the same parsers, problems named by the attribute', () => {
  const { values, problems } = readAttributes(
    TABLE,
    element({ x: '3, 4', eps: '1e-3', step: '12', source: 'typed', log: 'yes' }),
    { parseVector },
  );
  assert.deepEqual(values, { x: '3, 4', eps: 0.001, step: 0, source: 'typed', log: false });
  assert.deepEqual(
    problems.map(({ key, raw, code }) => ({ key, raw, code })),
    [
      { key: 'step', raw: '12', code: 'out_of_range' },
      { key: 'log', raw: 'yes', code: 'not_a_boolean' },
    ],
  );
  const bad = readAttributes(TABLE, element({ x: '1, oops' }), { parseVector });
  assert.equal(bad.problems[0].code, 'invalid');
  assert.equal(bad.values.x, '2, -1, 3, 0', 'the default stays');
});

test("with a base (the attributes' example), the URL overrides it and only changes from it are written", () => {
  const base = { ...defaultValues(TABLE), x: '3, 4', step: 2 };
  const read = readState(TABLE, new URLSearchParams('vec.step=5'), 'vec', { parseVector }, base);
  assert.deepEqual(read.values, { ...base, step: 5 }, 'the URL wins where it has a key, the base elsewhere');
  const params = new URLSearchParams('vec.x=9');
  writeState(TABLE, { ...base, step: 0 }, params, 'vec', base);
  assert.equal(
    params.toString(),
    'vec.step=0',
    'the example is left out, the table default that differs from it is kept',
  );
});

test('no widget setting is named like a global HTML attribute, our own attributes, or the keys embed.html reserves', async () => {
  const { widgetsFromBuild } = await import('../../scripts/options-doc.mjs');
  const { elements } = await widgetsFromBuild();
  const reserved = new Set([
    'id',
    'class',
    'style',
    'lang',
    'dir',
    'title',
    'hidden',
    'slot',
    'part',
    'is',
    'tabindex',
    'accesskey',
    'autofocus',
    'contenteditable',
    'draggable',
    'enterkeyhint',
    'inert',
    'inputmode',
    'nonce',
    'popover',
    'spellcheck',
    'translate',
    'autocapitalize',
    'exportparts',
    'role',
    'state-key',
    'url-state',
    'widget',
    'theme',
  ]);
  assert.deepEqual(
    elements.map((element) => element.tag),
    WIDGET_TAGS,
    "every registered widget's element is read",
  );
  for (const element of elements) {
    for (const row of element.stateRows) {
      const name = attributeName(row.name);
      assert.ok(
        !reserved.has(name) && !name.startsWith('data-') && !name.startsWith('aria-') && !name.startsWith('on'),
        `${element.tag}: ${name}`,
      );
    }
  }
});

// The README documents each setting by its attribute name (max-gain, warmup-steps, zero-qk): a link or the embed
// page's address may use it too, and a key that names no setting is reported rather than dropped.
const QK = defineState([
  { name: 'maxGain', type: 'number', default: 8, min: 1, max: 64 },
  { name: 'zeroQK', type: 'boolean', default: false },
  { name: 'warmupSteps', type: 'integer', default: 10, min: 0, max: 100 },
]);

test('a URL may name a setting by its attribute (kebab-case) name, and a bad value there is reported', () => {
  const read = readState(QK, new URLSearchParams('qk.max-gain=32&qk.zero-qk=true&qk.warmup-steps=40'), 'qk');
  assert.deepEqual(read, { values: { maxGain: 32, zeroQK: true, warmupSteps: 40 }, problems: [] });
  const embed = readState(QK, new URLSearchParams('widget=qk-norm-lab&max-gain=abc'), '');
  assert.deepEqual(
    embed.problems.map(({ key, raw, code }) => ({ key, raw, code })),
    [{ key: 'max-gain', raw: 'abc', code: 'not_a_number' }],
  );
  assert.equal(embed.values.maxGain, 8);
  const params = new URLSearchParams('qk.max-gain=32');
  writeState(QK, { ...defaultValues(QK), maxGain: 16 }, params, 'qk');
  assert.equal(params.toString(), 'qk.maxGain=16', 'writing replaces the other spelling');
});

test("keys of the widget that name no setting are reported; other widgets' keys and reserved keys are not", () => {
  const page = new URLSearchParams('qk.max-gain=32&qk.maxgain=3&qk.gain=2&qk2.foo=1&vec.x=3');
  assert.deepEqual(unknownKeys(QK, page, 'qk'), [
    { key: 'qk.maxgain', raw: '3', code: 'unknown_setting' },
    { key: 'qk.gain', raw: '2', code: 'unknown_setting' },
  ]);
  const embed = new URLSearchParams('widget=qk-norm-lab&lang=en&theme=dark&maxGain=3&max_gain=4');
  assert.deepEqual(
    unknownKeys(QK, embed, '', ['widget', 'lang', 'theme']).map((p) => p.key),
    ['max_gain'],
  );
});

const LONG = defineState([
  { name: 'x', type: 'text', default: '1', maxLength: 100_000, validate: (text, { parseVector }) => parseVector(text) },
]);

test('a long text travels compressed and reads back exactly; one too long for a link is named', async () => {
  // 1,000 values typed as a reader would paste them: 7,000-odd characters, over the plain limit.
  const x = Array.from({ length: 1000 }, (_, i) => ((Math.sin(i * 12.9898) * 437.5453) % 1).toFixed(4)).join(', ');
  assert.ok(x.length > 7000);
  const { params, dropped } = await writeLongState(LONG, { x }, new URLSearchParams('vec.x=1,2'), 'vec');
  assert.deepEqual(dropped, []);
  assert.equal(params.has('vec.x'), false, 'the stale plain value is gone');
  const link = `https://example.org/en/index.html?${params}#vector-lab`;
  assert.ok(link.length < LINK_LIMIT && link.length < x.length, `${link.length} characters`);
  const expanded = await expandLongState(LONG, new URL(link).searchParams, 'vec');
  assert.deepEqual(expanded.problems, []);
  assert.deepEqual(readState(LONG, expanded.params, 'vec', { parseVector }), { values: { x }, problems: [] });

  const tooLong = await writeLongState(LONG, { x: '1,'.repeat(60_000) + '1' }, new URLSearchParams(), 'vec');
  assert.deepEqual([tooLong.dropped, tooLong.params.toString()], [['x'], '']);
});

test('a compressed value that is not deflate, or inflates past maxLength, is a problem, not a hang or a throw', async () => {
  const bomb = await compress('0'.repeat(5_000_000)); // about 5 KB that inflates to 5 MB
  assert.equal(await decompress(bomb, 100_000), null);
  const { params, problems } = await expandLongState(
    LONG,
    new URLSearchParams({ 'vec.x.z': bomb, 'vec2.x.z': 'not*base64' }),
    'vec',
  );
  assert.deepEqual(
    problems.map((p) => p.code),
    ['too_long'],
  );
  assert.equal(params.has('vec.x'), false);
  const broken = await expandLongState(LONG, new URLSearchParams({ 'vec.x.z': 'bm90IGRlZmxhdGU' }), 'vec');
  assert.deepEqual(
    broken.problems.map((p) => p.code),
    ['not_compressed'],
  );
});
