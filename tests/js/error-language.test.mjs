// Every message a reader can reach is in the page's language: each error code of the API, each reason the API
// gives for a refusal (the kernels', the JSON reader's, the fetch panel's checks, the download's refusals), walked
// from the code that throws them, has its text in every language, and none of them passes the API's English
// message through.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../../dist/lib/residual-lab.js';
import { describeError } from '../../web/components/shared/i18n.js';
import { stringsOf } from '../../web/languages.js';
import { parseJson } from '../../web/lib/parse-json.js';
import { checkEndpoint, checkRepoId, checkRevision } from '../../web/lib/hub/hub-checks.js';
import { CODES } from './per-language.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path) => readFileSync(join(root, path), 'utf8');
const kindsIn = (path, pattern) => new Set([...read(path).matchAll(pattern)].map((m) => m[1]));
const JS_KIND = /kind: '([a-z_]+)'/g;

// Four English words in a row: a sentence of the API's English in a message of another language (names such as
// Content-Security-Policy, q_norm or docs/checkpoints.md are single words).
const ENGLISH_RUN = /\b[A-Za-z]+(?:[ ,]+[A-Za-z]+){3}\b/;
function assertInLanguage(code, message, error, what) {
  assert.equal(typeof message, 'string', `${code}, ${what}: no text`);
  assert.ok(message.length > 0, `${code}, ${what}: empty`);
  if (error?.message) assert.ok(!message.includes(error.message), `${code}, ${what}: shows the API's message`);
  if (code !== 'en') assert.doesNotMatch(message, ENGLISH_RUN, `${code}, ${what}: English inside: ${message}`);
}

let lab;
before(async () => {
  lab = await load();
});

const caught = (call) => {
  let thrown;
  assert.throws(call, (error) => Boolean((thrown = error)));
  return thrown;
};

test('every error code of the API has a message in every language', () => {
  const union = read('types/residual-lab.d.ts').match(/export type ErrorCode =([^;]*);/)[1];
  const codes = [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
  assert.ok(codes.length > 30, 'the codes are read from types/residual-lab.d.ts');
  for (const code of CODES) {
    const { errors } = stringsOf(code, 'common');
    for (const name of codes) assert.ok(Object.hasOwn(errors, name), `${code}: common.errors.${name}`);
  }
});

test("the kernels' reasons: every kind C++ gives is reached here and said in every language", () => {
  const cases = [
    () => lab.rmsNormSteps([0, 0, 0, 0], null, { eps: 0 }),
    () => lab.rmsNormSteps([1e-30, 0], null, { eps: 0 }),
    () => lab.layerNormSteps([3.4e38, 3.4e38]),
    () => lab.rmsNormSteps([1.8e19], null, { eps: 3.4e38 }),
    () => lab.layerNormSteps([0.1, 0.1, 0.1], null, null, { eps: 0 }),
    () => lab.layerNormSteps([1e18, 1e18]),
    () => lab.layerNormSteps([1e-30, 0], null, null, { eps: 0 }),
  ];
  const errors = cases.map(caught);
  const thrown = new Set(errors.map((e) => e.reason?.kind));
  const inSource = new Set([
    ...kindsIn('wasm/src/api/kernel_api.hpp', /\{"([a-z_]+)"/g),
    ...kindsIn('wasm/src/api/validate.hpp', /\{"([a-z_]+)"/g),
  ]);
  assert.deepEqual([...thrown].sort(), [...inSource].sort(), 'one case per kind of reason');
  for (const code of CODES) {
    const generic = stringsOf(code, 'common').errors.invalid_input;
    for (const error of errors) {
      const message = describeError(error, code);
      assert.notEqual(message, generic, `${code}, ${error.reason.kind}: the reason, not the generic message`);
      assertInLanguage(code, message, error, error.reason.kind);
    }
  }
  const [, , overflow, , , constant] = errors;
  assert.deepEqual(overflow.reason, { kind: 'sum_overflow', value: Math.fround(3.4e38) });
  // the rounding noise of two copies of 1e18 (2^59.8 as a float32): ((d + 1) ulp)^2 = (3 * 2^(59 - 23))^2
  assert.equal(constant.reason.limit, (3 * 2 ** 36) ** 2);
  assert.match(describeError(constant, 'en'), /use ε ≥ 4\.25e\+22$/);
});

test("config.json's JSON errors: every kind the reader gives is reached and said in every language", () => {
  const bad = [
    '['.repeat(70),
    '{"a": ',
    '{"a": NaN}',
    '{"a": @}',
    '{a: 1}',
    '{"a": 1, "a": 2}',
    '{"a" 1}',
    '{"a": 1',
    '{"a": 1 "b": 2}',
    '[1, 2',
    '[1 2]',
    '{"a": "x\ty"}',
    '{"a": "x',
    '{"a": "\\q"}',
    '{"a": -x}',
    '{} {}',
  ];
  const errors = bad.map((text) => caught(() => parseJson(text)));
  assert.deepEqual(
    [...new Set(errors.map((e) => e.reason?.kind))].sort(),
    [...kindsIn('web/lib/parse-json.js', JS_KIND)].sort(),
    'one text per kind',
  );
  for (const code of CODES) {
    const say = stringsOf(code, 'rl-config-inspector').errors;
    for (const error of errors) assertInLanguage(code, say.invalid_json(error), error, error.reason.kind);
    for (const kind of kindsIn('web/lib/inspect-config.js', JS_KIND)) {
      const error = { code: 'invalid_config', field: 'hidden_size', reason: { kind, value: 7, limit: 3 } };
      error.message = `config.json: hidden_size: an English sentence for ${kind}`;
      assertInLanguage(code, say.invalid_config(error), error, `invalid_config ${kind}`);
    }
  }
});

test("the fetch panel: its checks' reasons, the download's refusals and every code it can meet, in every language", () => {
  const checks = [
    caught(() => checkRepoId('not a repo')),
    caught(() => checkRevision('a..b')),
    caught(() => checkEndpoint('ftp://example.org')),
  ];
  assert.deepEqual(checks.map((e) => e.reason.kind).sort(), [...kindsIn('web/lib/hub/hub-checks.js', JS_KIND)].sort());
  const refusals = [
    ...[...kindsIn('web/lib/hub/hub-network.js', JS_KIND)].map((kind) => ({ code: 'blocked', kind })),
    ...[...kindsIn('web/lib/hub/hub-opfs.js', JS_KIND)].map((kind) => ({ code: 'storage_full', kind })),
  ].map(({ code, kind }) => ({
    code,
    message: `an English sentence the API wrote for ${kind}`,
    reason: { kind, value: kind === 'quota' ? 2e9 : 'cas-bridge.xethub.hf.co', limit: 1e9 },
  }));
  assert.ok(refusals.length >= 5, 'the refusals are read from hub-network.js and hub-opfs.js');
  const union = read('types/residual-lab.d.ts').match(/\/\/ fetchCheckpoint[^\n]*\n([^/]*)/)[1];
  const fetchCodes = [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
  assert.ok(fetchCodes.includes('http_error'), "fetchCheckpoint's codes from types/residual-lab.d.ts");
  for (const code of CODES) {
    const say = stringsOf(code, 'rl-checkpoint-probe').fetchErrors;
    for (const error of [...checks, ...refusals])
      assertInLanguage(code, say[error.code](error), error, `${error.code} ${error.reason.kind}`);
    for (const name of fetchCodes) {
      assert.equal(typeof say[name], 'function', `${code}: fetchErrors.${name}`);
      const error = { code: name, message: `an English sentence the API wrote for ${name}` };
      assertInLanguage(code, say[name](error), error, name);
    }
  }
});
