// Lab calls in a module Web Worker (web/lib/worker-client.js) under the page's strict CSP: the JS API's own
// cases give exactly the results they give on the main thread of the same page (values, and errors with their
// name, code, message and position); decoders and warmup runs work through proxies and are freed by dispose;
// progress comes back; an abort ends the call; names outside the API are refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// Runs `body(arg)` in the page, where window.labTest holds the API (lab), a fresh lab worker (terminated
// afterwards) and two helpers that turn values and errors into comparable plain data (plain, outcome).
async function inPage(view, body, arg) {
  await view.page.evaluate(async () => {
    const { load, ResidualLabError } = await import('./lib/residual-lab.js');
    const { createLabWorker } = await import('./lib/worker-client.js');
    // typed arrays by type and values (NaN kept), errors by their fields
    const plain = (value) => {
      if (ArrayBuffer.isView(value))
        return { [value.constructor.name]: Array.from(value, (v) => (Number.isFinite(v) ? v : String(v))) };
      if (Array.isArray(value)) return value.map(plain);
      if (value && typeof value === 'object')
        return Object.fromEntries(
          Object.entries(value)
            .filter(([, v]) => typeof v !== 'function')
            .map(([k, v]) => [k, plain(v)]),
        );
      return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
    };
    const outcome = async (run) => {
      try {
        return { value: plain(await run()) };
      } catch (error) {
        return {
          error: {
            name: error.name,
            code: error.code,
            message: error.message,
            position: error.position,
            isLabError: error instanceof ResidualLabError,
          },
        };
      }
    };
    window.labTest = { lab: await load(), worker: createLabWorker(), plain, outcome };
  });
  try {
    return await view.page.evaluate(body, arg);
  } finally {
    await view.page.evaluate(() => window.labTest.worker.terminate());
  }
}

const X = [2, -1, 3, 0];
const SEVEN = [0.3, -1.2, 2.5, 0.1, -0.7, 1.9, -2.2];
const TINY = { nLayers: 2, dModel: 16, nHeads: 2, contextLength: 16 };
const CASES = [
  ['rmsNorm', [X, null, { eps: 1e-5 }]],
  ['rmsNorm', [X.map((v) => v * 10), null, { eps: 1e-5 }]],
  ['rmsNorm', [X, SEVEN.slice(0, 4), { eps: 1e-5, weightOffset: 1 }]],
  ['rmsNorm', [X, null, { precision: 'bf16' }]],
  ['layerNorm', [X, null, null, { eps: 1e-5 }]],
  ['rmsNormSteps', [X, null, { eps: 0 }]],
  ['layerNormSteps', [X, null, null, { eps: 0 }]],
  ['rmsNormBackward', [SEVEN, SEVEN.map((v) => v / 2), SEVEN.map((v) => 1 - v), { eps: 1e-5 }]],
  ['layerNormBackward', [SEVEN, SEVEN.map((v) => v / 2), SEVEN.map((v) => 1 - v), { eps: 1e-5 }]],
  ['softcap', [[10, 30, 60, 200], 30]],
  ['softcapBackward', [[-80, -5, 0, 7, 45], 30, [1, 1, 1, 1, 1]]],
  ['softmax', [[1, 2, 3, 1000]]],
  ['parseVector', ['[2, -1, 3, 0]']],
  ['parseVector', ['2，−1，3，0']],
  ['rmsNorm', [[]]],
  ['rmsNorm', [X, [1, 1, 1]]],
  ['layerNorm', [X, null, [0, 0, 0, 0, 0]]],
  ['rmsNorm', [X, null, { eps: -1 }]],
  ['rmsNorm', [[1, NaN]]],
  ['softcap', [X, 0]],
  ['rmsNorm', [X, null, { precision: 'fp8' }]],
  ['rmsNorm', ['2 -1 3 0']],
  ['parseVector', ['']],
  ['parseVector', ['[1, 2x]']],
  ['parseVector', ['[1, nan]']],
  ['parseVector', ['1, , 2']],
  ['parseVector', ['[1, 2']],
  ['parseVector', ['1e99']],
  ['createDecoder', [{ nLayers: 0 }]],
  ['createDecoder', [{ dmodel: 64 }]],
  ['createDecoder', [{ placement: 'peri' }]],
  ['experiments.gradientDecay', [{ nLayers: 8, width: 16, seed: 2 }]],
  ['experiments.gradientDecay', [{ layerz: 3 }]],
  ['experiments.qkLogitGrowth', [{ ...TINY, gains: [1, 4] }]],
  ['experiments.residualGrowth', [{ ...TINY, trainSteps: 3 }]],
  ['experiments.warmup', [{ ...TINY, steps: 12, warmupSteps: 4 }, { chunk: 5 }]],
  ['experiments.warmup', [TINY, { chunk: 0 }]],
  ['experiments.initScaling', [{ dModel: 16, nHeads: 2, contextLength: 8, depths: [1, 2] }]],
];

test("the API's cases give exactly the same results (and errors) in the worker as on the main thread", async () => {
  const view = await lab.open('embed-example.html');
  const results = await inPage(
    view,
    async (cases) => {
      const { lab: api, worker, outcome } = window.labTest;
      const out = [];
      for (const [method, args] of cases) {
        const [space, name] = method.includes('.') ? method.split('.') : [null, method];
        const fn = space ? api[space][name] : api[name];
        const main = await outcome(() => fn(...structuredClone(args)));
        const remote = await outcome(() => worker.call(method, args));
        out.push({ method, main, remote });
      }
      return out;
    },
    CASES,
  );
  for (const [i, { method, main, remote }] of results.entries()) assert.deepEqual(remote, main, `case ${i}: ${method}`);

  // The worked numbers and the documented errors, so that both sides are right, not only equal.
  const value = (i) => results[i].remote.value;
  const error = (i) => results[i].remote.error;
  const rounded = (i) => value(i).Float32Array.map((v) => Math.round(v * 1000) / 1000);
  assert.deepEqual(rounded(0), [1.069, -0.535, 1.604, 0]);
  assert.deepEqual(rounded(1), rounded(0)); // x * 10 gives the same RMSNorm
  assert.equal(value(5).meanSquare, 3.5);
  assert.deepEqual(value(6).centered.Float32Array, [1, -2, 2, -1]);
  assert.deepEqual(
    value(9).Float32Array.map((v) => Math.round(v * 10) / 10),
    [9.6, 22.8, 28.9, 30],
  );
  assert.deepEqual(value(12).Float32Array, X);
  assert.deepEqual(value(13).Float32Array, X);
  assert.deepEqual(error(14), {
    name: 'ResidualLabError',
    code: error(14).code,
    message: error(14).message,
    position: undefined,
    isLabError: true,
  });
  assert.match(error(14).message, /x is empty/);
  assert.match(error(15).message, /g has 3 values but x has 4/);
  assert.match(error(18).message, /x\[1\] is NaN/);
  assert.match(error(21).message, /x must be a Float32Array/);
  const positions = [23, 24, 25, 26, 27].map((i) => [error(i).code, error(i).position]);
  assert.deepEqual(positions, [
    ['unexpected_char', 5],
    ['not_finite', 4],
    ['missing_value', 3],
    ['unclosed_bracket', 5],
    ['out_of_range', 0],
  ]);
  assert.match(error(28).message, /nLayers must be an integer from 1 to 1024 \(got 0\)/);
  assert.match(error(29).message, /unknown config key "dmodel"/);
  assert.match(error(32).message, /unknown options key "layerz"/);
  assert.equal(value(35).runs.length, 4);
  assert.equal(value(35).stepsDone, 12);
  assert.match(error(36).message, /chunk must be a positive integer/);
  view.assertClean();
  await view.close();
});

test('a decoder and a warmup run work through proxies, and dispose frees them in the worker', async () => {
  const view = await lab.open('embed-example.html');
  const r = await inPage(view, async () => {
    const { lab: api, worker, outcome, plain } = window.labTest;
    const config = { vocabSize: 96, dModel: 16, nHeads: 2, nLayers: 2, contextLength: 16, init: { seed: 5 } };
    const tokens = [3, 1, 4, 1, 5, 9, 2, 6];
    const targets = [1, 4, 1, 5, 9, 2, 6, 5];
    const startLive = await worker.call('liveDecoders');
    const local = api.createDecoder(config);
    const remote = await worker.call('createDecoder', [config]);
    const defaults = await worker.call('createDecoder', []);
    const liveWithTwo = await worker.call('liveDecoders');
    const steps = async (m) => ({
      config: plain(m.config),
      numParams: m.numParams,
      layout: plain(await m.paramLayout()),
      forward: await outcome(() => m.forward(tokens, targets, { logitLens: 3 })),
      backward: await outcome(() => m.backward()),
      train: [
        await outcome(() => m.trainStep({ lr: 3e-3, warmupSteps: 2, seqLen: 16 })),
        await outcome(() => m.trainStep()),
        await outcome(() => m.trainStep()),
      ],
      params: plain(await m.params()),
      badToken: await outcome(() => m.forward([1, 96, 2])),
      badOption: await outcome(() => m.trainStep({ learningRate: 1 })),
    });
    const mainSide = await steps(local);
    const workerSide = await steps(remote);
    local.dispose();
    await remote.dispose();
    const afterOne = await worker.call('liveDecoders');
    const disposedCall = await outcome(() => remote.forward(tokens));
    await defaults.dispose();
    const afterBoth = await worker.call('liveDecoders');

    const options = { nLayers: 2, dModel: 16, nHeads: 2, contextLength: 16, steps: 12, warmupSteps: 4 };
    const localRun = api.experiments.createWarmupRun(options);
    const run = await worker.call('experiments.createWarmupRun', [options]);
    const doneBefore = run.done;
    const advanced = [await run.advance(5), run.done, await run.advance(100), run.done];
    localRun.advance(5);
    localRun.advance(100);
    const sameRun = JSON.stringify(plain(await run.result())) === JSON.stringify(plain(localRun.result()));
    const runOptions = plain(run.options);
    await run.dispose();

    const kept = await worker.call('createDecoder', [config]);
    worker.terminate();
    const afterTerminate = await outcome(() => kept.forward(tokens));
    const freshLive = await worker.call('liveDecoders');
    const refused = [];
    for (const name of ['constructor', '__proto__', 'toString', 'experiments.constructor', 'flavour', 'rmsNorm.call'])
      refused.push(await outcome(() => worker.call(name, [])));
    return {
      startLive,
      liveWithTwo,
      afterOne,
      afterBoth,
      freshLive,
      mainSide,
      workerSide,
      disposedCall,
      afterTerminate,
      refused,
      defaultsConfig: plain(defaults.config),
      localDefaults: plain(api.createDecoder().config),
      doneBefore,
      advanced,
      sameRun,
      runOptions,
      localRunOptions: plain(localRun.options),
      heap: await worker.call('wasmHeapBytes'),
    };
  });
  assert.deepEqual(r.workerSide, r.mainSide);
  assert.ok(Number.isFinite(r.workerSide.forward.value.loss) && r.workerSide.forward.value.loss > 0);
  assert.equal(r.workerSide.forward.value.logits.Float32Array.length, 8 * 96);
  assert.equal(r.workerSide.train[0].value.lr, 3e-3 / 2);
  assert.ok(r.workerSide.train[2].value.loss < r.workerSide.train[0].value.loss);
  assert.match(r.workerSide.badToken.error.message, /token 96 at position 1 is outside the vocabulary/);
  assert.match(r.workerSide.badOption.error.message, /unknown trainStep options key "learningRate"/);
  assert.equal(r.defaultsConfig.dModel, 64);
  assert.deepEqual(r.defaultsConfig, r.localDefaults);
  assert.deepEqual([r.liveWithTwo, r.afterOne, r.afterBoth], [r.startLive + 2, r.startLive + 1, r.startLive]);
  assert.equal(r.disposedCall.error.code, 'disposed');
  assert.equal(r.afterTerminate.error.code, 'disposed');
  assert.equal(r.freshLive, 0);
  assert.deepEqual([r.doneBefore, ...r.advanced], [false, 5, false, 12, true]);
  assert.ok(r.sameRun);
  assert.deepEqual(r.runOptions, r.localRunOptions);
  for (const refusal of r.refused) assert.equal(refusal.error?.code, 'unknown_method', JSON.stringify(refusal));
  assert.ok(r.heap > 0);
  console.log(
    `worker liveDecoders: start ${r.startLive}, with two ${r.liveWithTwo}, after dispose ${r.afterBoth}; heap ${r.heap} bytes`,
  );
  view.assertClean();
  await view.close();
});

test('progress arrives as a call option, an abort ends the call, and the next call works', async () => {
  const view = await lab.open('embed-example.html');
  const r = await inPage(view, async () => {
    const { lab: api, worker, plain } = window.labTest;
    const options = { nLayers: 2, dModel: 16, nHeads: 2, contextLength: 16, steps: 12, warmupSteps: 4 };
    const local = [];
    api.experiments.warmup(options, {
      chunk: 5,
      onProgress: (p) => {
        local.push(plain(p));
      },
    });
    const remote = [];
    await worker.call('experiments.warmup', [options, { chunk: 5 }], {
      onProgress: (p) => {
        remote.push(plain(p));
      },
    });
    const growth = [];
    await worker.call(
      'experiments.residualGrowth',
      [{ nLayers: 2, dModel: 16, nHeads: 2, contextLength: 16, trainSteps: 3 }],
      { onProgress: (p) => growth.push(p.stepsDone) },
    );
    const silent = [];
    await worker.call('experiments.gradientDecay', [{ nLayers: 4 }], { onProgress: (p) => silent.push(p) });

    const decay = await worker.call('experiments.gradientDecay', [
      { nLayers: 32, gain: 0.8, residual: false, variant: 'linear', width: 64, seed: 3 },
    ]);
    const steps = [];
    const controller = new AbortController();
    const aborted = await worker
      .call('experiments.warmup', [{ steps: 5000 }], {
        signal: controller.signal,
        onProgress: (p) => {
          steps.push(p.stepsDone);
          if (steps.length === 2) controller.abort();
        },
      })
      .then(
        () => 'finished',
        (err) => err.name,
      );
    const again = await worker.call('experiments.gradientDecay', [
      { nLayers: 4, gain: 1.2, residual: false, variant: 'linear', width: 16, seed: 1 },
    ]);
    return {
      local,
      remote,
      growth,
      silent,
      ratio: decay.gradNorms[0] / decay.gradNorms[32],
      isFloat64: decay.gradNorms instanceof Float64Array,
      steps,
      aborted,
      againRatio: again.gradNorms[0] / again.gradNorms[4],
    };
  });
  assert.deepEqual(r.remote, r.local);
  assert.deepEqual(
    r.remote.map((p) => p.stepsDone),
    [5, 10, 12],
  );
  assert.equal(r.remote[0].partial.runs[0].loss.Float64Array.length, 5);
  assert.deepEqual(r.growth, [1, 2, 3]);
  assert.deepEqual(r.silent, []);
  assert.ok(Math.abs(r.ratio / 0.8 ** 32 - 1) < 1e-4, `gain^32: ${r.ratio}`);
  assert.ok(r.isFloat64);
  assert.ok(r.steps.length >= 2 && r.steps[1] > r.steps[0], `progress ${r.steps}`);
  assert.equal(r.aborted, 'AbortError');
  assert.ok(Math.abs(r.againRatio / 1.2 ** 4 - 1) < 1e-4, `after abort: ${r.againRatio}`);
  view.assertClean();
  await view.close();
});

test('the page fetches and compiles the wasm once: its lab workers instantiate the compiled module', async () => {
  const view = await lab.open('embed-example.html');
  const wasmRequests = [];
  view.page.on('request', (request) => {
    if (request.url().endsWith('.wasm')) wasmRequests.push(request.url());
  });
  const results = await view.page.evaluate(async () => {
    const { createLabWorker } = await import('./lib/worker-client.js');
    const workers = [createLabWorker(), createLabWorker(), createLabWorker()];
    const ys = await Promise.all(workers.map((worker) => worker.call('rmsNorm', [[3, 4], null, { eps: 0 }])));
    for (const worker of workers) worker.terminate();
    return ys.map((y) => Array.from(y));
  });
  // [3, 4] / RMS, RMS = sqrt(12.5): every worker computed with the page's module
  for (const y of results) {
    assert.ok(Math.abs(y[0] - 3 / Math.sqrt(12.5)) < 1e-6 && Math.abs(y[1] - 4 / Math.sqrt(12.5)) < 1e-6);
  }
  // The page's own compile (when its lab was not loaded yet) is the only request; each worker used to make its own.
  assert.ok(
    wasmRequests.length <= 1,
    `the .wasm was requested ${wasmRequests.length} times: ${wasmRequests.join(', ')}`,
  );
  // a lab worker's split run starts a worker of its own, which gets the module the lab worker was handed
  const before = wasmRequests.length;
  const fixture = makeCheckpoint({ family: 'llama', dtype: 'F32', seed: 9 }).files;
  const logits = await view.page.evaluate(
    async ({ config, weights }) => {
      const { createLabWorker } = await import('./lib/worker-client.js');
      const worker = createLabWorker();
      const files = { 'config.json': config, 'model.safetensors': new Uint8Array(weights) };
      const ckpt = await worker.call('openCheckpoint', [files, { workers: 2 }]);
      const { logits } = await ckpt.run([3, 17, 5, 40]);
      const threads = await ckpt.workers;
      worker.terminate();
      return { threads, finite: Array.from(logits).every(Number.isFinite) };
    },
    { config: fixture['config.json'], weights: Array.from(fixture['model.safetensors']) },
  );
  assert.deepEqual(logits, { threads: 2, finite: true }, 'the run was split over two threads');
  assert.equal(
    wasmRequests.length,
    before,
    `the split run's worker requested the .wasm: ${wasmRequests.slice(before).join(', ')}`,
  );
  view.assertClean();
  await view.close();
});
