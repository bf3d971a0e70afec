// <rl-residual-growth>'s shipped-toy chart: the toy of the placement drawn, trained and before training, with the
// numbers the API gives on the toy's files (lab.openCheckpoint for the trained toy, lab.createDecoder with the
// toy's own initialisation for the untrained one), in both languages; no toy for Post-Norm and sandwich.
//   node --test --test-concurrency=1 tests/e2e/residual-growth-toy.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { untrainedToyConfig } from '../../web/components/residual-growth/toy-stream.js';
import { record, toyFiles } from '../fixtures/toys.mjs';
import { startLab } from './harness.mjs';
import { EN, ZH, eventually, openReady, screenshotWidget, textOf } from './widget-helpers.mjs';

let lab, api;
before(async () => {
  [lab, api] = await Promise.all([startLab(), load()]);
});
after(async () => {
  await lab?.close();
});

const readout = (widget, name) => widget.locator(`[data-readout="${name}"] data`);
const numbers = async (locator) =>
  await locator.evaluateAll((els) => els.map((el) => Number(el.getAttribute('value'))));
const close = (actual, expected, what) =>
  assert.ok(Math.abs(actual / expected - 1) < 1e-6, `${what}: ${actual} against the API's ${expected}`);

/** |h| at the embedding and after the last layer, at the last of the toy's contextLength probe characters. */
async function expectedEnds(toy) {
  const ids = Int32Array.from(
    [...toy.probeText.slice(0, toy.engineConfig.contextLength)],
    (ch) => JSON.parse(new TextDecoder().decode(toyFiles(toy)['tokenizer.json'])).model.vocab[ch],
  );
  const T = ids.length;
  const L = toy.engineConfig.nLayers;
  const checkpoint = await api.openCheckpoint(toyFiles(toy));
  const trained = (await checkpoint.run(ids)).streamNorms;
  checkpoint.dispose();
  const decoder = api.createDecoder(untrainedToyConfig(toy));
  const { streamNorm } = decoder.forward(ids).stats;
  decoder.dispose();
  return {
    trained: [trained[0][T - 1], trained[L][T - 1]],
    untrained: [streamNorm[T - 1], streamNorm[2 * L * T + T - 1]],
  };
}

async function finished(widget) {
  await eventually(
    () => widget.getAttribute('data-status'),
    (status) => status === 'done',
    'the widget finishes',
    30000,
  );
}

async function rerun(widget, action) {
  await widget.evaluate((el) => {
    el.dataset.status = 'stale';
  });
  await action();
  await finished(widget);
}

async function checkToy(widget, toy) {
  const want = await expectedEnds(toy);
  const [bottom, top, growth] = await numbers(readout(widget, 'toy'));
  close(bottom, want.trained[0], `${toy.name} trained, embedding`);
  close(top, want.trained[1], `${toy.name} trained, top`);
  close(growth, top / bottom, `${toy.name} trained, growth`);
  const [uBottom, uTop] = await numbers(readout(widget, 'toy-untrained'));
  close(uBottom, want.untrained[0], `${toy.name} untrained, embedding`);
  close(uTop, want.untrained[1], `${toy.name} untrained, top`);
  assert.equal(await widget.locator('.toy-figure').isVisible(), true);
  return { growth, untrainedGrowth: uTop / uBottom };
}

const toyOf = (placement) => record.toys.find((toy) => toy.engineConfig.placement === placement);

test("residual growth: the shipped Pre-Norm toy against itself untrained, the API's numbers; OLMo 2 its own toy", async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-residual-growth');
  await widget.scrollIntoViewIfNeeded();
  await finished(widget);
  const llama = await checkToy(widget, toyOf('pre'));
  assert.ok(llama.growth > 10 * llama.untrainedGrowth, `trained ×${llama.growth}, untrained ×${llama.untrainedGrowth}`);
  assert.match(
    await textOf(widget.locator('[data-readout="toy"]')),
    new RegExp(`^The shipped toy Llama, trained ${toyOf('pre').steps} steps`),
  );
  await screenshotWidget(view, widget, 'residual-growth-toy-en');

  await rerun(widget, () => widget.getByLabel('Post-Norm', { exact: true }).check());
  assert.equal(await widget.locator('.toy-figure').isVisible(), false, 'no shipped toy is Post-Norm');
  assert.equal(await widget.locator('[data-readout="toy"]').count(), 0);
  await rerun(widget, () => widget.getByLabel('OLMo 2', { exact: true }).check());
  await checkToy(widget, toyOf('olmo2'));
  view.assertClean();
  await view.close();

  const zh = await openReady(lab, ZH);
  const zhWidget = zh.page.locator('rl-residual-growth');
  await zhWidget.scrollIntoViewIfNeeded();
  await finished(zhWidget);
  await checkToy(zhWidget, toyOf('pre'));
  assert.match(await textOf(zhWidget.locator('[data-readout="toy"]')), /^随实验室发布的玩具 Llama，训练了/);
  zh.assertClean();
  await zh.close();
});

test("residual growth: a toy's files that do not load leave a message in its readout; the experiment still draws", async () => {
  const toy = toyOf('pre').name;
  const broken = `${toy}/model.safetensors`;
  // the site serves the file content-hashed: models/<toy>/model-<hash>.safetensors
  const view = await openReady(lab, EN, {
    initScript: `{
      const fetchFile = window.fetch;
      window.fetch = (input, init) =>
        /\\/models\\/${toy}\\/model[^/]*\\.safetensors$/.test(String(input?.url ?? input))
          ? Promise.resolve(new Response('', { status: 404 }))
          : fetchFile(input, init);
    }`,
  });
  const widget = view.page.locator('rl-residual-growth');
  await widget.scrollIntoViewIfNeeded();
  await finished(widget);
  assert.equal(
    await textOf(widget.locator('[data-readout="toy"]')),
    `The shipped toy could not be measured: ${broken}: HTTP 404`,
  );
  assert.equal(await widget.locator('.toy-figure').isVisible(), false);
  const [bottom, top] = await numbers(readout(widget, 'norms'));
  assert.ok(bottom > 0 && top > bottom, `the experiment drew: ${bottom} -> ${top}`);
  await rerun(widget, () => widget.getByLabel('OLMo 2', { exact: true }).check());
  await checkToy(widget, toyOf('olmo2'));
  view.assertClean();
  await view.close();
});
