// <rl-checkpoint-probe> given a .gguf alone through its file input: no config.json, no tokenizer.json; it runs on
// the vocabulary's first ids, draws the numbers lab.openCheckpoint gives in node for the same file, and its
// norm-weights table says the file holds Gemma's 1 + w already.
//   node --test --test-concurrency=1 tests/e2e/checkpoint-probe-gguf.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { makeCheckpoint, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { ggufFromCheckpoint } from '../fixtures/checkpoints/write-gguf.mjs';
import { startLab } from './harness.mjs';
import { drawnReadouts, expectedReadouts, probeDone } from './probe-helpers.mjs';
import { EN, eventually, openReady, textOf } from './widget-helpers.mjs';

let lab, api;
before(async () => {
  lab = await startLab();
  api = await load();
});
after(async () => {
  await lab?.close();
});

test("a Gemma 2 GGUF in Q8_0 from the file input runs, draws the API's numbers and labels its stored 1 + w", async () => {
  const config = {
    ...makeConfig('gemma2'),
    hidden_size: 256,
    intermediate_size: 256,
    head_dim: 64,
    num_hidden_layers: 2,
  };
  const { bytes } = ggufFromCheckpoint('gemma2', makeCheckpoint({ family: 'gemma2', config, seed: 5 }), 'Q8_0');
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  await widget
    .locator('input[type=file]')
    .setInputFiles([
      { name: 'tiny-gemma2-Q8_0.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) },
    ]);
  await eventually(
    () => textOf(widget.locator('.source')),
    (t) => t.includes('tiny-gemma2-Q8_0.gguf'),
    'the file is the source',
  );
  await eventually(
    () => widget.getByLabel('Prompt').inputValue(),
    (v) => v === '0, 1, 2, 3, 4, 5, 6, 7',
    'the default ids',
    60000,
  );
  await probeDone(widget, 'the ids are run');
  const want = await expectedReadouts(api, { 'model.gguf': bytes }, [0, 1, 2, 3, 4, 5, 6, 7], new Map(), {
    weights: true,
  });
  const got = await drawnReadouts(widget, { weights: true });
  assert.deepEqual({ ...got, weights: null }, { ...want, weights: null });
  assert.equal(got.weights.length, want.weights.length);
  got.weights.forEach((row, i) => {
    assert.ok(row[0].startsWith(want.weights[i][0]) && row[0].includes('holds 1 + w already'), row[0]);
    assert.deepEqual(row.slice(1), want.weights[i].slice(1), want.weights[i][0]);
  });
  view.assertClean();
  await view.close();
});
