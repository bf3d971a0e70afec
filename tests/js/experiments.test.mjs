// lab.experiments (web/lib/experiments.js) under node's test runner: defaults, the documented figures,
// progress and cancellation, and every kind of bad option (each throws a ResidualLabError naming it).
//   node --test tests/js/experiments.test.mjs     after `node scripts/build.mjs` (uses dist/lib/residual-lab.js)
// RL_EXPERIMENTS_GLUE=/path/residual_lab.mjs runs the same tests against a module built elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let lab = null;
async function loadExperiments() {
  if (process.env.RL_EXPERIMENTS_GLUE) {
    const glue = process.env.RL_EXPERIMENTS_GLUE;
    const { default: createModule } = await import(glue);
    const Module = await createModule({ wasmBinary: readFileSync(glue.replace(/\.mjs$/, '.wasm')) });
    const { createExperimentsApi } = await import('../../web/lib/experiments.js');
    return createExperimentsApi(Module, Module.describeOptions());
  }
  const dist = new URL('../../dist/lib/residual-lab.js', import.meta.url);
  assert.ok(existsSync(fileURLToPath(dist)), 'dist/lib/residual-lab.js is missing: run `node scripts/build.mjs` first');
  const { load } = await import(dist.href);
  lab = await load();
  assert.equal(typeof lab.experiments?.gradientDecay, 'function', 'the lab object does not expose experiments');
  return lab.experiments;
}

const experiments = await loadExperiments();
const TINY = { nLayers: 2, dModel: 16, nHeads: 2, contextLength: 16 };

const rejects = (fn, pattern) =>
  assert.throws(fn, (err) => err.name === 'ResidualLabError' && pattern.test(err.message));

test('gradientDecay: the chapter numbers 0.8^32 and 1.2^32, and a residual stack that keeps its gradient', () => {
  const plain = experiments.gradientDecay(); // 32 layers, gain 0.8, linear, width 256
  assert.ok(plain.gradNorms instanceof Float64Array);
  assert.equal(plain.gradNorms.length, 33);
  assert.ok(Math.abs(plain.gradNorms[0] / plain.gradNorms[32] / 0.8 ** 32 - 1) < 1e-4);
  const grown = experiments.gradientDecay({ gain: 1.2 });
  assert.ok(Math.abs(grown.gradNorms[0] - 341.82) < 0.05);
  const residual = experiments.gradientDecay({ residual: true, gain: 0.1 });
  for (const g of residual.gradNorms) assert.ok(g > 0.9 && g < 1.35, `residual gradient ${g}`);
  const mlp = experiments.gradientDecay({ variant: 'mlp', width: 32, nLayers: 8, gain: 0.5 });
  assert.ok(mlp.gradNorms[0] < mlp.gradNorms[8] * 0.5 ** 8); // the GELU branch has gain below 1 too
});

test('qkLogitGrowth: the QK-Norm bound sqrt(d_head) holds for every gain', () => {
  const r = experiments.qkLogitGrowth({ ...TINY, gains: [1, 4, 16, 256] }); // d_head 8
  assert.ok(Math.abs(r.bound - Math.sqrt(8)) < 1e-12);
  assert.deepEqual(Array.from(r.gains), [1, 4, 16, 256]);
  for (const m of r.maxLogitQkNorm) assert.ok(m <= r.bound, `${m} > ${r.bound}`);
  assert.ok(r.maxLogitPlain[3] > 10 * r.bound);
  // layer 0: q and k both scale with the gain, the logit with its square
  assert.ok(Math.abs(r.layer0MaxLogitPlain[2] / r.layer0MaxLogitPlain[1] / 16 - 1) < 1e-4);
  assert.ok(r.entropyPlain[3] < r.entropyPlain[0]);
});

test('initScaling: 1/sqrt(2L) keeps the variance flat while it grows without', () => {
  // d 64: each increment's variance scales like d^2 std^4 (two std-0.02 matrices of fan-in ~d), so at d 16 the
  // increments are too small against the embedding to show the growth within 32 layers
  const r = experiments.initScaling({ dModel: 64, nHeads: 2, contextLength: 16, depths: [1, 8, 32] });
  assert.deepEqual(Array.from(r.depths), [1, 8, 32]);
  assert.ok(r.finalVariancePlain[2] > 8 * r.finalVariancePlain[0]);
  assert.ok(r.finalVarianceScaled[2] < 1.3 * r.finalVarianceScaled[0]);
  assert.equal(r.profilePlain.length, 65);
});

test('initGradients: results are grouped by placement and depth', () => {
  const r = experiments.initGradients({ ...TINY, nLayers: 3, depths: [2, 8], placements: ['post', 'pre', 'sandwich'] });
  assert.deepEqual(r.placements, ['post', 'pre', 'sandwich']);
  assert.equal(r.perLayer.sandwich.mlpDown.length, 3);
  assert.equal(r.lastLayerMlpGradNorm.pre.length, 2);
  assert.ok(r.lastLayerMlpGradNorm.pre[1] < r.lastLayerMlpGradNorm.pre[0]); // Pre-LN's falls with depth
  for (const loss of Object.values(r.loss)) assert.ok(Math.abs(loss - Math.log(38)) < 0.1);
});

test('residualGrowth: progress, cancellation and the measured stream', () => {
  const seen = [];
  const r = experiments.residualGrowth(
    { ...TINY, trainSteps: 5 },
    {
      onProgress: (p) => {
        seen.push(p.stepsDone);
      },
    },
  );
  assert.deepEqual(seen, [1, 2, 3, 4, 5]);
  assert.equal(r.trainLoss.length, 5);
  assert.equal(r.streamNorm.length, 5);
  assert.equal(r.incrementRatio.length, 4);
  const stopped = experiments.residualGrowth({ ...TINY, trainSteps: 50 }, { onProgress: (p) => p.stepsDone < 3 });
  assert.equal(stopped.cancelled, true);
  assert.equal(stopped.trainLoss.length, 3);
  // callbacks belong in the second argument: inside the options they are an unknown option
  rejects(() => experiments.residualGrowth({ ...TINY, onProgress: () => {} }), /unknown options key "onProgress"/);
});

test('warmup: a steppable run, progress, cancellation, and results per run', () => {
  const options = { ...TINY, steps: 12, warmupSteps: 4 };
  const run = experiments.createWarmupRun(options);
  assert.equal(run.advance(5), 5);
  assert.equal(run.done, false);
  assert.equal(run.result().runs[0].loss.length, 5);
  assert.equal(run.advance(100), 12);
  assert.equal(run.done, true);
  const finished = run.result();
  assert.deepEqual(
    finished.runs.map((c) => `${c.placement}/${c.warmup}`),
    ['post/false', 'post/true', 'pre/false', 'pre/true'],
  );
  assert.ok(finished.runs.every((c) => Number.isFinite(c.evalLoss) && c.status === 'ok'));
  assert.ok(finished.runs.every((c) => Math.abs(c.predictionSimilarity) <= 1));
  assert.ok(Math.abs(finished.runs[1].lr[0] - 3e-3 / 4) < 1e-12);
  run.dispose(); // idempotent after the run freed itself

  const progress = [];
  const partials = [];
  const all = experiments.warmup(options, {
    onProgress: (p) => {
      progress.push(p.stepsDone);
      partials.push(p.partial);
    },
    chunk: 5,
  });
  assert.deepEqual(progress, [5, 10, 12]);
  assert.deepEqual(Array.from(all.runs[2].loss), Array.from(finished.runs[2].loss)); // same seed, same curve
  // each report carries the curves so far: the first steps of the final curves, exactly
  assert.deepEqual(
    partials.map((p) => p.stepsDone),
    [5, 10, 12],
  );
  for (const p of partials) {
    p.runs.forEach((run, r) =>
      assert.deepEqual(Array.from(run.loss), Array.from(all.runs[r].loss).slice(0, p.stepsDone)),
    );
  }
  const cancelled = experiments.warmup(options, { onProgress: () => false });
  assert.equal(cancelled.cancelled, true);
  assert.equal(cancelled.stepsDone, 10);
});

test('bad options throw errors that name the option, and the API keeps working', () => {
  rejects(() => experiments.gradientDecay({ layerz: 3 }), /gradientDecay: unknown options key "layerz"/);
  rejects(() => experiments.gradientDecay({ gain: Number.NaN }), /gain must be a finite number/);
  rejects(() => experiments.gradientDecay({ gain: '2' }), /gain must be a finite number from 0 to 4 \(got "2"\)/);
  rejects(() => experiments.gradientDecay({ nLayers: 2.5 }), /nLayers must be an integer/);
  rejects(() => experiments.gradientDecay({ width: 4096 }), /width must be an integer from 2 to 1024 \(got 4096\)/);
  rejects(() => experiments.gradientDecay({ variant: 'mlp', width: 1024 }), /at most 512 for the mlp variant/);
  rejects(() => experiments.gradientDecay({ variant: 'cnn' }), /variant must be one of linear, mlp \(got "cnn"\)/);
  rejects(() => experiments.gradientDecay({ residual: 1 }), /residual must be true or false/);
  rejects(() => experiments.gradientDecay(42), /options must be an object/);
  rejects(() => experiments.initGradients({ nHeads: 3 }), /nHeads \(3\) must divide dModel \(64\)/);
  rejects(() => experiments.initGradients({ placements: ['pre', 'middle'] }), /placements\[1\] must be one of/);
  rejects(() => experiments.initGradients({ depths: [] }), /depths must have 1 to 12 entries/);
  rejects(
    () => experiments.initScaling({ depths: [4, 500] }),
    /depths\[1\] must be an integer from 1 to 128 \(got 500\)/,
  );
  rejects(
    () => experiments.qkLogitGrowth({ gains: [1, 0] }),
    /gains\[1\] must be a finite number above 0 and at most 1000 \(got 0\)/,
  );
  rejects(() => experiments.qkLogitGrowth({ init: { zeroQK: true } }), /zeroQK/);
  rejects(() => experiments.warmup({ steps: 20, warmupSteps: 30 }), /warmupSteps \(30\) must not exceed steps \(20\)/);
  rejects(() => experiments.warmup({ lr: 0 }), /lr must be a finite number above 0 and at most 1 \(got 0\)/);
  rejects(() => experiments.warmup(TINY, { chunk: 0 }), /chunk must be a positive integer/);
  rejects(
    () => experiments.residualGrowth({ trainSteps: -1 }),
    /trainSteps must be an integer from 0 to 2000 \(got -1\)/,
  );
  rejects(() => experiments.residualGrowth({}, { onProgress: 'yes' }), /onProgress must be a function/);
  // own keys only: inherited names and JSON's "__proto__" are unknown options, not loopholes
  rejects(() => experiments.gradientDecay({ constructor: 5 }), /unknown options key "constructor"/);
  rejects(() => experiments.warmup(JSON.parse('{"__proto__": {"steps": 1}}')), /unknown options key "__proto__"/);
  rejects(() => experiments.initScaling({ nLayers: 4 }), /unknown options key "nLayers"/); // the depths set it
  rejects(() => experiments.warmup({ placement: 'post' }), /unknown options key "placement"/); // it runs both
  rejects(() => experiments.warmup({ init: { sede: 1 } }), /unknown init key "sede"/);
  assert.equal(experiments.gradientDecay({ nLayers: 4 }).gradNorms.length, 5);
});

test("the experiments take the decoder config's keys: one spelling of the model", () => {
  const tables = lab.describe();
  const decoderRows = new Map(tables.decoder.map((row) => [row.name, row]));
  for (const [experiment, table] of Object.entries(tables.experiments)) {
    if (experiment === 'gradientDecay') continue; // a plain stack of matrices, no decoder
    for (const row of table) {
      const same = decoderRows.get(row.name);
      if (!same) continue;
      assert.equal(row.type, same.type, `${experiment}.${row.name}`);
      assert.equal(row.meaning, same.meaning, `${experiment}.${row.name}`);
      assert.ok(
        row.type !== 'integer' || (row.min >= same.min && row.max <= same.max),
        `${experiment}.${row.name} within the decoder's bounds`,
      );
    }
    for (const key of ['dModel', 'nHeads', 'contextLength', 'norm', 'init'])
      assert.ok(
        table.some((r) => r.name === key),
        `${experiment} takes ${key}`,
      );
  }
  const a = experiments.residualGrowth({ nLayers: 2, dModel: 16, nHeads: 2, contextLength: 16, init: { seed: 3 } });
  const b = experiments.residualGrowth({ nLayers: 2, dModel: 16, nHeads: 2, contextLength: 16, init: { seed: 4 } });
  assert.notDeepEqual(Array.from(a.streamNorm), Array.from(b.streamNorm)); // init.seed reaches the model
});
