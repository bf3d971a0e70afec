// The lab worker's tables (web/lib/worker-methods.js) against the lab object itself: every function the API
// exposes, and every method of the objects that stay in the worker, is listed, so the worker cannot fall behind
// the API; names resolve only as own properties.
//   node --test tests/js/worker-methods.test.mjs     after `node scripts/build.mjs` (uses dist/lib/)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';
import {
  HANDLE_KINDS,
  METHODS,
  errorFields,
  isHandleMethod,
  methodEntry,
  resolveMethod,
  transferables,
} from '../../web/lib/worker-methods.js';
import { LAB_API, assembleLab } from '../../web/lib/api.js';

const lab = await load();

/** Dotted names of every function reachable through own properties of `object`. */
function functionNames(object, prefix = '') {
  return Object.entries(object).flatMap(([key, value]) => {
    if (typeof value === 'function') return [prefix + key];
    if (value && typeof value === 'object' && !ArrayBuffer.isView(value))
      return functionNames(value, `${prefix}${key}.`);
    return [];
  });
}

test('the method table lists exactly the functions of the lab object', () => {
  assert.deepEqual(Object.keys(METHODS).sort(), functionNames(lab).sort());
  for (const name of Object.keys(METHODS)) assert.equal(typeof resolveMethod(lab, name), 'function', name);
});

test('each kept object kind lists exactly the methods and fields of the object the API returns', () => {
  const model = lab.createDecoder({ vocabSize: 11, dModel: 8, nHeads: 2, nLayers: 1, contextLength: 4 });
  const run = lab.experiments.createWarmupRun({
    nLayers: 1,
    dModel: 8,
    nHeads: 2,
    contextLength: 4,
    steps: 10,
    warmupSteps: 2,
  });
  try {
    for (const [kind, object] of [
      ['decoder', model],
      ['warmupRun', run],
    ]) {
      const table = HANDLE_KINDS[kind];
      assert.deepEqual([...table.methods, 'dispose'].sort(), functionNames(object).sort(), `${kind} methods`);
      const fields = Object.keys(object).filter((key) => typeof object[key] !== 'function');
      assert.deepEqual([...table.data, ...table.state].sort(), fields.sort(), `${kind} fields`);
    }
    assert.equal(METHODS.createDecoder.returns, 'decoder');
    assert.equal(METHODS['experiments.createWarmupRun'].returns, 'warmupRun');
  } finally {
    model.dispose();
    run.dispose();
  }
});

test('the checkpoint kind lists exactly the methods and fields of the object openCheckpoint returns', async () => {
  const ckpt = await lab.openCheckpoint(makeCheckpoint({ family: 'llama', dtype: 'F32' }).files);
  try {
    const table = HANDLE_KINDS.checkpoint;
    assert.deepEqual([...table.methods, 'dispose'].sort(), functionNames(ckpt).sort());
    assert.deepEqual(
      [...table.data, ...table.state].sort(),
      Object.keys(ckpt)
        .filter((key) => typeof ckpt[key] !== 'function')
        .sort(),
    );
    assert.equal(METHODS.openCheckpoint.returns, 'checkpoint');
  } finally {
    ckpt.dispose();
  }
});

test('the methods that report progress take { onProgress } where the table says', () => {
  const seen = [];
  const callbacks = {
    onProgress: (p) => {
      seen.push(p.stepsDone);
    },
  };
  const args = [{ nLayers: 1, dModel: 8, nHeads: 2, contextLength: 4, trainSteps: 2 }];
  args[METHODS['experiments.residualGrowth'].progressArg] = callbacks;
  resolveMethod(lab, 'experiments.residualGrowth')(...args);
  assert.deepEqual(seen, [1, 2]);
  assert.deepEqual(
    Object.keys(METHODS)
      .filter((name) => METHODS[name].progressArg !== undefined)
      .sort(),
    ['experiments.residualGrowth', 'experiments.warmup', 'fetchCheckpoint'],
  );
});

test('names resolve as own properties only', () => {
  for (const name of [
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
    'experiments.constructor',
    'experiments',
    'flavour',
    '',
    'rmsNorm.call',
  ]) {
    assert.equal(methodEntry(name), undefined, name);
    assert.equal(resolveMethod(lab, name), undefined, name);
  }
  assert.equal(methodEntry(42), undefined);
  assert.equal(isHandleMethod('decoder', 'forward'), true);
  assert.equal(isHandleMethod('decoder', 'dispose'), true);
  for (const name of ['constructor', 'toString', 'advance', 'config'])
    assert.equal(isHandleMethod('decoder', name), false, name);
  assert.equal(isHandleMethod('constructor', 'forward'), false);
});

test('transferables finds each typed array buffer once; errorFields keeps name, message, code and position', () => {
  const a = new Float32Array(4);
  const b = new Float64Array(2);
  const found = transferables({ a, nested: { b, again: a.subarray(1) }, list: [b], n: 1, s: 'x' });
  assert.deepEqual(found, [a.buffer, b.buffer]);
  assert.deepEqual(transferables(null), []);

  let parseError;
  try {
    lab.parseVector('[1, 2x]');
  } catch (error) {
    parseError = error;
  }
  assert.deepEqual(errorFields(parseError), {
    name: 'ResidualLabError',
    message: parseError.message,
    code: 'unexpected_char',
    position: 5,
  });
  assert.deepEqual(errorFields(new TypeError('boom')), { name: 'TypeError', message: 'boom', code: 'internal_error' });
});

test('the lab is assembled from the API list: a function the list and its part disagree on fails the load', () => {
  const api = { a: { part: 'p' }, 'ns.b': { part: 'q' } };
  const a = () => 1,
    b = () => 2;
  const lab = assembleLab(api, { p: { a }, q: { b } }, { flavour: 'simd' });
  assert.deepEqual(Object.keys(lab).sort(), ['a', 'flavour', 'ns']);
  assert.equal(lab.ns.b, b);
  assert.ok(Object.isFrozen(lab) && Object.isFrozen(lab.ns));
  assert.throws(() => assembleLab(api, { p: { a }, q: {} }), /the API lists ns\.b, which its part "q" lacks/);
  assert.throws(
    () => assembleLab(api, { p: { a, c: a }, q: { b } }),
    /the part "p" has c, which the API does not list/,
  );
  // the lab's own parts: every row's part is one residual-lab.js gives
  assert.deepEqual([...new Set(Object.values(LAB_API).map(({ part }) => part))].sort(), [
    'checkpoint',
    'config',
    'decoder',
    'experiments',
    'hub',
    'kernels',
    'tables',
  ]);
});
