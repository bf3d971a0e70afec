// The module's memory budget under node's test runner: every allocation a call can cause is refused with
// code out_of_memory (or a length error) before it happens, so the WASM heap never reaches its 1 GB maximum and
// the module keeps working; forgotten decoders are reclaimed by the garbage collector; experiments free their
// models when a callback throws; arguments of the wrong kind are refused with a ResidualLabError.
//   node --test tests/js/memory.test.mjs          after `node scripts/build.mjs` (uses dist/lib/residual-lab.js)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const dist = new URL('../../dist/lib/residual-lab.js', import.meta.url);
assert.ok(existsSync(fileURLToPath(dist)), 'dist/lib/residual-lab.js is missing: run `node scripts/build.mjs` first');
const { load, ResidualLabError } = await import(dist.href);
const lab = await load();
lab.rmsNorm([1, 2]); // the kernels' small scratch block (4 KB, kept between calls) is reserved from here on

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc'); // a gc() function without running node with --expose-gc

const MB = 2 ** 20;
const MAX_HEAP = 1024 * MB; // -sMAXIMUM_MEMORY=1GB
const BIG = { dModel: 256, nHeads: 4, nLayers: 16, contextLength: 256 };
const OUT_OF_MEMORY =
  /(?:^|: )out of memory: .+ needs (\d+\.\d) MB, (\d+\.\d) MB of the 768\.0 MB memory budget is left/;

function refusal(fn) {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.fail('expected a ResidualLabError, nothing was thrown');
}

function assertOutOfMemory(err, what) {
  assert.ok(err instanceof ResidualLabError, `expected a ResidualLabError, got ${err}`);
  assert.equal(err.code, 'out_of_memory');
  const m = err.message.match(OUT_OF_MEMORY);
  assert.ok(m, `message does not say what was asked and what is left: ${err.message}`);
  assert.ok(err.message.includes(what), `message does not name ${what}: ${err.message}`);
  assert.ok(Number(m[1]) > Number(m[2]), `asked ${m[1]} MB but ${m[2]} MB left: ${err.message}`);
  return { asked: Number(m[1]), left: Number(m[2]) };
}

test('memoryBudget() reports a 768 MB budget, and nothing but the small scratch block is reserved between calls', () => {
  const { budgetBytes, usedBytes } = lab.memoryBudget();
  assert.equal(budgetBytes, 768 * MB);
  assert.equal(usedBytes, 1024 * 4 + 16);
});

test('decoders are created until the budget refuses one; after dispose() the module creates them again', () => {
  const usedBefore = lab.memoryBudget().usedBytes;
  const live = lab.liveDecoders();
  const models = [];
  let err = null;
  for (let i = 0; i < 10 && !err; i++) {
    try {
      models.push(lab.createDecoder(BIG));
    } catch (e) {
      err = e;
    }
  }
  assert.ok(err, 'ten 200 MB decoders were created: nothing refused them');
  const { asked, left } = assertOutOfMemory(err, 'a decoder');
  assert.equal(models.length, 3, `${models.length} decoders of ${asked} MB fit the 768 MB budget`);
  assert.ok(asked > 150 && asked < 256, `one decoder asks ${asked} MB`);
  assert.ok(lab.wasmHeapBytes() <= MAX_HEAP);
  assert.equal(lab.liveDecoders(), live + 3);

  // With the budget nearly spent, parsing a long text (20 bytes of decoded characters per byte) is refused too.
  assertOutOfMemory(
    refusal(() => lab.parseVector(' '.repeat(12e6) + '1')),
    'parsing the text',
  );
  // ... and a refused call leaves the decoders working.
  const { loss } = models[0].forward([1, 2, 3], [2, 3, 4]);
  assert.ok(Number.isFinite(loss));

  for (const m of models) m.dispose();
  assert.equal(lab.liveDecoders(), live);
  lab.rmsNorm([1, 2]); // the parse's 16 MB scratch block was freed after the call; the small one comes back
  assert.equal(lab.memoryBudget().usedBytes, usedBefore);
  const again = [lab.createDecoder(BIG), lab.createDecoder(BIG), lab.createDecoder(BIG)];
  assert.ok(Number.isFinite(again[2].forward([5, 6], [6, 7]).loss));
  for (const m of again) m.dispose();
  assert.deepEqual(
    Array.from(lab.rmsNorm([3, 4], null, { eps: 0 })),
    Array.from(lab.rmsNorm(new Float32Array([3, 4]), null, { eps: 0 })),
  );
  assert.equal(lab.memoryBudget().usedBytes, usedBefore);
});

test('a logit lens too large for the budget is refused with out_of_memory; the model keeps working', () => {
  const m = lab.createDecoder({ vocabSize: 16384, dModel: 8, nHeads: 1, nLayers: 64, contextLength: 128 });
  try {
    const usedBefore = lab.memoryBudget().usedBytes;
    m.forward(new Int32Array(128).fill(1));
    const { asked } = assertOutOfMemory(
      refusal(() => m.logitLens(16384)),
      'the logit lens (k = 16384)',
    );
    // 129 points x 128 positions x 16384 tokens x 8 bytes, plus the [T, V] logits and probabilities
    assert.ok(asked > 2064 && asked < 2100, `the lens asks ${asked} MB`);
    assertOutOfMemory(
      refusal(() => m.forward(new Int32Array(128).fill(1), null, { logitLens: 16384 })),
      'the logit lens',
    );
    assert.ok(lab.wasmHeapBytes() <= MAX_HEAP);
    const lens = m.logitLens(3);
    assert.equal(lens.topTokens.length, 129 * 128 * 3);
    assert.equal(lab.memoryBudget().usedBytes, usedBefore);
  } finally {
    m.dispose();
  }
});

test('parseVector refuses a text longer than 16 MiB before copying it; the heap does not grow', () => {
  lab.parseVector('1 2 3'); // the scratch block exists
  const heap = lab.wasmHeapBytes();
  const err = refusal(() => lab.parseVector(' '.repeat(18e6) + '1'));
  assert.ok(err instanceof ResidualLabError);
  assert.equal(err.code, 'too_long');
  assert.match(err.message, /^the text has 18000001 bytes; at most 16,777,216 are read/);
  assert.equal(lab.wasmHeapBytes(), heap);
  assert.deepEqual(Array.from(lab.parseVector('[2, -1, 3]')), [2, -1, 3]);
});

test('a vector longer than the kernels take is refused before it is copied or converted', () => {
  lab.rmsNorm([1, 2]);
  const heap = lab.wasmHeapBytes();
  const used = lab.memoryBudget().usedBytes;
  const err = refusal(() => lab.rmsNorm(new Float32Array(1e8)));
  assert.ok(err instanceof ResidualLabError);
  assert.equal(err.code, 'invalid_input');
  assert.equal(err.message, 'x has 100000000 values; at most 1,048,576 are supported');
  assert.equal(lab.wasmHeapBytes(), heap);
  assert.equal(lab.memoryBudget().usedBytes, used);

  const start = performance.now();
  const sparse = refusal(() => lab.rmsNorm(new Array(2 ** 32 - 1)));
  const elapsed = performance.now() - start;
  assert.equal(sparse.message, 'x has 4294967295 values; at most 1,048,576 are supported');
  assert.ok(elapsed < 1000, `refusing a sparse array of 2^32 - 1 took ${elapsed.toFixed(0)} ms`);
  assert.equal(
    refusal(() => lab.layerNorm([1, 2], new Array(2 ** 31))).message,
    'gamma has 2147483648 values; at most 1,048,576 are supported',
  );
  assert.equal(lab.wasmHeapBytes(), heap);

  // The longest vector allowed still works, and its scratch block is given back to the budget afterwards.
  const y = lab.rmsNorm(new Float32Array(2 ** 20).fill(2), null, { eps: 0 });
  assert.equal(y.length, 2 ** 20);
  assert.equal(y[12345], 1);
  assert.ok(lab.memoryBudget().usedBytes < used, 'the 4 MB scratch block was kept');
  lab.rmsNorm([1, 2]);
  assert.equal(lab.memoryBudget().usedBytes, used);
});

test('arguments that are not arrays of numbers are refused with a ResidualLabError naming them', () => {
  const cases = [
    [
      () => lab.rmsNorm(new BigInt64Array(2)),
      /^x must be a Float32Array, a numeric typed array or an array of numbers \(got BigInt64Array\)$/,
    ],
    [() => lab.rmsNorm(new BigUint64Array(2)), /\(got BigUint64Array\)$/],
    [() => lab.rmsNorm(new DataView(new ArrayBuffer(8))), /^x must be .*\(got DataView\)$/],
    [() => lab.rmsNorm(new ArrayBuffer(8)), /^x must be .*\(got ArrayBuffer\)$/],
    [() => lab.rmsNorm('1 2 3'), /^x must be .*\(got string\)$/],
    [() => lab.rmsNorm([1, 2], new BigInt64Array(2)), /^g must be .*\(got BigInt64Array\)$/],
    [() => lab.layerNorm([1, 2], null, 'beta'), /^beta must be .*\(got string\)$/],
    [() => lab.softmax([1n, 2n]), /^x must hold numbers \(x\[0\] is a bigint\)$/],
    [() => lab.rmsNormBackward([1, 2], null, [1, Symbol('s')]), /^dy must hold numbers \(dy\[1\] is a symbol\)$/],
    [
      () =>
        lab
          .createDecoder({ vocabSize: 8, dModel: 4, nHeads: 1, nLayers: 1, contextLength: 4 })
          .forward(new DataView(new ArrayBuffer(8))),
      /^tokens must be an Int32Array \(got a DataView\)$/,
    ],
  ];
  for (const [call, message] of cases) {
    const err = refusal(call);
    assert.ok(err instanceof ResidualLabError, `${message}: got ${err?.constructor?.name}: ${err?.message}`);
    assert.equal(err.code, 'invalid_input');
    assert.match(err.message, message);
  }
  // Numeric typed arrays of every other kind are converted.
  for (const T of [
    Float64Array,
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
  ]) {
    assert.deepEqual(
      Array.from(lab.rmsNorm(new T([3, 4]), null, { eps: 0 })),
      Array.from(lab.rmsNorm([3, 4], null, { eps: 0 })),
    );
  }
});

async function collectUntil(done) {
  for (let i = 0; i < 50 && !done(); i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10)); // finalizers run between tasks
  }
}

test('decoders that were never disposed are freed once their JS objects are collected', async () => {
  await collectUntil(() => false);
  const live = lab.liveDecoders();
  const used = lab.memoryBudget().usedBytes;
  const kept = lab.createDecoder({ nLayers: 2 });
  (() => {
    for (let i = 0; i < 20; i++) lab.createDecoder({ nLayers: 2 }).forward([1, 2, 3]);
  })();
  const disposedEarly = lab.createDecoder({ nLayers: 2 });
  disposedEarly.dispose();
  assert.equal(lab.liveDecoders(), live + 21);
  assert.ok(lab.memoryBudget().usedBytes > used);

  await collectUntil(() => lab.liveDecoders() === live + 1);
  assert.equal(lab.liveDecoders(), live + 1, 'the 20 forgotten decoders were not reclaimed');
  assert.ok(Number.isFinite(kept.forward([1, 2], [2, 3]).loss), 'the decoder still referenced was freed');

  kept.dispose();
  assert.equal(lab.liveDecoders(), live);
  assert.equal(lab.memoryBudget().usedBytes, used);

  // 277 forgotten default decoders (3.7 MB each) in one synchronous loop: finalizers run only between tasks, so
  // the budget refuses one at about 768 / 3.7; once collected they are all freed, and the next ones fit.
  const probe = lab.createDecoder();
  const perDecoder = lab.memoryBudget().usedBytes - used;
  probe.dispose();
  assert.ok(perDecoder > 3.5 * MB && perDecoder < 4 * MB, `a default decoder reserves ${perDecoder} bytes`);
  let created = 0;
  let err = null;
  while (created < 277 && !err) {
    try {
      lab.createDecoder();
      created++;
    } catch (e) {
      err = e;
    }
  }
  assert.ok(err, 'the budget refused none of 277 decoders created at once');
  assertOutOfMemory(err, 'a decoder');
  assert.ok(created === Math.floor((768 * MB - used) / perDecoder), `${created} decoders fit`);
  await collectUntil(() => lab.liveDecoders() === live);
  assert.equal(lab.liveDecoders(), live);
  assert.equal(lab.memoryBudget().usedBytes, used);
  for (let i = 0; i < 277; i++) {
    lab.createDecoder();
    if (i % 50 === 49) await collectUntil(() => lab.liveDecoders() === live);
  }
  await collectUntil(() => lab.liveDecoders() === live);
  assert.equal(lab.liveDecoders(), live);
  assert.ok(lab.wasmHeapBytes() <= MAX_HEAP);
});

const GROWTH = { nLayers: 2, dModel: 32, nHeads: 2, contextLength: 16, trainSteps: 3 };
const WARMUP = { nLayers: 1, dModel: 16, nHeads: 2, contextLength: 16, steps: 10, warmupSteps: 2, evalWindows: 1 };

test('an experiment whose onProgress throws frees its models and rethrows the error', () => {
  const thrower = () => {
    throw new RangeError('stop here');
  };
  const runs = [
    ['residualGrowth', () => lab.experiments.residualGrowth(GROWTH, { onProgress: thrower })],
    ['warmup', () => lab.experiments.warmup(WARMUP, { onProgress: thrower, chunk: 5 })],
  ];
  const used = lab.memoryBudget().usedBytes;
  for (const [name, run] of runs) {
    const first = refusal(run);
    assert.ok(first instanceof RangeError, `${name}: got ${first}`);
    assert.equal(first.message, 'stop here');
    const heap = lab.wasmHeapBytes();
    for (let i = 0; i < 20; i++) assert.throws(run, /^RangeError: stop here$/);
    assert.equal(lab.wasmHeapBytes(), heap, `${name}: 20 more runs grew the heap`);
    assert.equal(lab.memoryBudget().usedBytes, used, `${name}: the runs left memory reserved`);
  }
  // A steppable run holds its four models until it finishes or is disposed.
  const run = lab.experiments.createWarmupRun(WARMUP);
  assert.ok(lab.memoryBudget().usedBytes > used);
  run.advance(3);
  run.dispose();
  assert.equal(lab.memoryBudget().usedBytes, used);
  assert.equal(run.result().stepsDone, 3);
});

test('an experiment too large for what is left of the budget is refused with out_of_memory', () => {
  const models = [lab.createDecoder(BIG), lab.createDecoder(BIG), lab.createDecoder(BIG)];
  try {
    const left = 768 * MB - lab.memoryBudget().usedBytes;
    assert.ok(left < 200 * MB);
    const options = { nLayers: 24, dModel: 256, nHeads: 4, contextLength: 128 }; // 213.6 MB a model
    const err = refusal(() => lab.experiments.warmup(options));
    assertOutOfMemory(err, 'a decoder');
    assert.match(err.message, /^warmup: out of memory: /);
    const growth = refusal(() => lab.experiments.residualGrowth(options));
    assert.equal(growth.code, 'out_of_memory');
  } finally {
    for (const m of models) m.dispose();
  }
});
