// <rl-checkpoint-probe> given a .gguf alone (no config.json, no tokenizer.json), picked in its file input or fetched
// by its "fetch a model" panel from the mock Hub (tests/fixtures/fake-hub.mjs): it runs on the vocabulary's first
// ids and draws the numbers lab.openCheckpoint gives in node for the same file; the norm-weights table says a Gemma
// file holds 1 + w already; the fetched file is the only one downloaded of its repo, stored, and opened again from
// the stored list with no request.
//   node --test --test-concurrency=1 tests/e2e/checkpoint-probe-gguf.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { makeCheckpoint, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { ggufFromCheckpoint } from '../fixtures/checkpoints/write-gguf.mjs';
import { stringsOf } from '../../web/languages.js';
import { startFakeHub } from '../fixtures/fake-hub.mjs';
import { record } from '../fixtures/toys.mjs';
import { readFileSync } from 'node:fs';
import { startLab } from './harness.mjs';
import { drawnReadouts, expectedReadouts, openFetchPanel, pickFiles, probeDone } from './probe-helpers.mjs';
import { EN, eventually, openReady, rerun, textOf } from './widget-helpers.mjs';

const IDS = [0, 1, 2, 3, 4, 5, 6, 7]; // what the probe runs a model without a tokenizer on
// block-sized widths, as the K-quants need rows of 256
const blockConfig = (family) => ({
  ...makeConfig(family),
  hidden_size: 256,
  intermediate_size: 256,
  head_dim: 64,
  num_hidden_layers: 2,
});
// a repo of GGUF files only, as the Hub's *-GGUF repos are: two quantizations of one model and a README
const REPO = 'lab/tiny-qwen3-GGUF';
const qwen3 = makeCheckpoint({ family: 'qwen3', config: blockConfig('qwen3'), seed: 6 });
const GGUF_REPO = {
  'README.md': 'Two quantizations of a tiny Qwen 3.',
  'tiny-qwen3-Q4_K.gguf': ggufFromCheckpoint('qwen3', qwen3, 'Q4_K').bytes,
  'tiny-qwen3-Q8_0.gguf': ggufFromCheckpoint('qwen3', qwen3, 'Q8_0').bytes,
};
const FILE = 'tiny-qwen3-Q4_K.gguf';

/** Waits for the probe to show `file` as its source and run it on IDS, its default without a tokenizer. */
async function runsOnIds(widget, file) {
  await eventually(
    () => textOf(widget.locator('.source')),
    (t) => t.includes(file),
    `${file} is the source`,
  );
  await eventually(
    () => widget.getByLabel('Prompt').inputValue(),
    (v) => v === IDS.join(', '),
    'the default ids',
    60000,
  );
  await probeDone(widget, `${file} is run`);
}

let lab, api, hub;
before(async () => {
  hub = await startFakeHub({ [REPO]: { files: GGUF_REPO } });
  [lab, api] = await Promise.all([startLab({ connectSrc: [hub.endpoint, hub.cdnOrigin] }), load()]);
});
after(async () => {
  await lab?.close();
  await hub?.close();
});

test("a Gemma 2 GGUF in Q8_0 from the file input runs, draws the API's numbers and labels its stored 1 + w", async () => {
  const { bytes } = ggufFromCheckpoint(
    'gemma2',
    makeCheckpoint({ family: 'gemma2', config: blockConfig('gemma2'), seed: 5 }),
    'Q8_0',
  );
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  await pickFiles(widget, { 'tiny-gemma2-Q8_0.gguf': bytes });
  await runsOnIds(widget, 'tiny-gemma2-Q8_0.gguf');
  const want = await expectedReadouts(api, { 'model.gguf': bytes }, IDS, new Map(), {
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

test('the fetch panel downloads one GGUF of a repo, stores it and runs it; the stored list opens it with no request', async () => {
  const s = stringsOf('en', 'rl-checkpoint-probe');
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  await openFetchPanel(widget, hub.endpoint);
  await widget.locator('#field-repo').fill(REPO);
  await widget.locator('#field-gguf').fill(FILE);
  await widget.locator('[data-fetch-repo]').click();
  const status = () => textOf(widget.locator('[data-fetch-status]'));
  await eventually(
    async () => [await status(), await textOf(widget.locator('[data-fetch-error]'))],
    ([text, error]) => error !== '' || text.startsWith(`${REPO} (commit `),
    'the fetch ends',
    30000,
  );
  assert.equal(await textOf(widget.locator('[data-fetch-error]')), '');
  const commit = hub.commitOf(REPO).slice(0, 10);
  const mb = (GGUF_REPO[FILE].length / 1e6).toFixed(1).replace('.', '\\.');
  assert.match(await status(), new RegExp(`^${REPO} \\(commit ${commit}, ${mb} MB\\) fetched and checked in`));
  // the chosen file alone, by its LFS hash from the download origin; not the other quantization, not the README
  const sha = hub.siblingsOf(REPO).find((f) => f.rfilename === FILE).lfs.sha256;
  const downloads = hub.requests.filter((r) => r.method === 'GET' && r.host === 'cdn').map((r) => r.path);
  assert.ok(downloads.length >= 1 && downloads.every((p) => p.endsWith(sha)), `downloads: ${downloads}`);
  assert.ok(
    !hub.requests.some((r) => /README|Q8_0|config\.json/.test(r.path)),
    'no other file of the repo is asked for',
  );

  // it runs, with the numbers lab.openCheckpoint gives in node for the same file
  await runsOnIds(widget, FILE);
  const want = await expectedReadouts(api, { [FILE]: GGUF_REPO[FILE] }, IDS);
  assert.deepEqual(await drawnReadouts(widget), want);
  assert.match(
    await textOf(widget.locator(`li[data-repo="${REPO}"]`)),
    new RegExp(`^${REPO} \\(main, commit ${commit}\\)`),
  );

  // the toy again, then the stored copy: opened from the browser's storage, nothing asked of the Hub
  const toy = record.toys[0].name;
  await widget.getByLabel('Trained toy').selectOption(toy);
  await eventually(
    () => textOf(widget.locator('.source')),
    (t) => t !== '' && !t.includes(FILE),
    'the toy is the source again',
  );
  await probeDone(widget, 'the toy is run again');
  const asked = hub.requests.length;
  await widget.locator(`li[data-repo="${REPO}"] button`).first().click();
  await eventually(status, (text) => text === s.fetchStored(REPO, commit), 'opened from storage', 30000);
  assert.equal(hub.requests.length, asked, 'no request to the Hub');
  await runsOnIds(widget, FILE);
  assert.deepEqual(await drawnReadouts(widget), want);
  view.assertClean();
  await view.close();
});

test("a GGUF with its own SentencePiece tokenizer reads the chapter's prompt and 年假怎么申请？, with node's numbers", async () => {
  const s = stringsOf('en', 'rl-checkpoint-probe');
  const spm = JSON.parse(
    readFileSync(new URL('../fixtures/checkpoints/spm-tokenizer.json', import.meta.url), 'utf8'),
  ).gguf;
  const tokens = spm['tokenizer.ggml.tokens'];
  const config = { ...blockConfig('gemma2'), vocab_size: tokens.length };
  const { bytes } = ggufFromCheckpoint('gemma2', makeCheckpoint({ family: 'gemma2', config, seed: 7 }), 'Q8_0', [
    ['tokenizer.ggml.model', 'string', 'llama'],
    ['tokenizer.ggml.tokens', ['array', 'string'], tokens],
    ['tokenizer.ggml.scores', ['array', 'f32'], spm['tokenizer.ggml.scores']],
    ['tokenizer.ggml.token_type', ['array', 'i32'], spm['tokenizer.ggml.token_type']],
    ['tokenizer.ggml.bos_token_id', 'u32', spm['tokenizer.ggml.bos_token_id']],
    ['tokenizer.ggml.add_space_prefix', 'bool', false],
  ]);
  const file = 'tiny-gemma2-spm-Q8_0.gguf';
  const names = new Map(tokens.map((t, id) => [id, t]));
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  await pickFiles(widget, { [file]: bytes });
  await eventually(
    () => textOf(widget.locator('.source')),
    (t) => t.includes(file),
    'the file is the source',
  );
  await eventually(
    () => widget.getByLabel('Prompt').inputValue(),
    (v) => v === s.chapterPrompt,
    "the chapter's prompt, read by the file's tokenizer",
    60000,
  );
  await probeDone(widget, 'the prompt is run');
  assert.deepEqual(await drawnReadouts(widget), await expectedReadouts(api, { [file]: bytes }, s.chapterPrompt, names));
  const text = '年假怎么申请？';
  await rerun(widget, () => widget.getByLabel('Prompt').fill(text), 60000);
  assert.equal(await textOf(widget.locator('#field-prompt-error')), '');
  assert.deepEqual(await drawnReadouts(widget), await expectedReadouts(api, { [file]: bytes }, text, names));
  view.assertClean();
  await view.close();
});
