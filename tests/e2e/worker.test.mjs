// Long lab calls run in a module Web Worker (web/lib/worker-client.js) under the page's strict CSP:
// results and progress come back, an abort ends the call, and the next call works.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';

let lab;
before(async () => { lab = await startLab(); });
after(async () => { await lab?.close(); });

test('an experiment runs in the worker, reports progress, and can be aborted', async () => {
  const view = await lab.open('embed-example.html');
  const result = await view.page.evaluate(async () => {
    const { createLabWorker } = await import('./lib/worker-client.js');
    const worker = createLabWorker();
    const decay = await worker.call('experiments.gradientDecay', [{ layers: 32, gain: 0.8, residual: false, variant: 'linear', width: 64, seed: 3 }]);
    const ratio = decay.gradNorms[0] / decay.gradNorms[32];

    const progress = [];
    const controller = new AbortController();
    const aborted = await worker.call('experiments.warmup', [{ steps: 5000 }], {
      signal: controller.signal,
      onProgress: (p) => { progress.push(p.stepsDone); if (progress.length === 2) controller.abort(); },
    }).then(() => 'finished', (err) => err.name);

    let badOptions = null;
    await worker.call('experiments.gradientDecay', [{ layers: 0 }]).catch((err) => { badOptions = err.message; });
    const again = await worker.call('experiments.gradientDecay', [{ layers: 4, gain: 1.2, residual: false, variant: 'linear', width: 16, seed: 1 }]);
    worker.terminate();
    return { ratio, isFloat64: decay.gradNorms instanceof Float64Array, progress, aborted, badOptions, againRatio: again.gradNorms[0] / again.gradNorms[4] };
  });
  assert.ok(Math.abs(result.ratio / 0.8 ** 32 - 1) < 1e-4, `gain^32: ${result.ratio}`);
  assert.ok(result.isFloat64);
  assert.ok(result.progress.length >= 2 && result.progress[1] > result.progress[0], `progress ${result.progress}`);
  assert.equal(result.aborted, 'AbortError');
  assert.match(result.badOptions ?? '', /layers must be at least 1/);
  assert.ok(Math.abs(result.againRatio / 1.2 ** 4 - 1) < 1e-4, `after abort: ${result.againRatio}`);
  view.assertClean();
  await view.close();
});
