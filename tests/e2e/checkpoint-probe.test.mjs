// <rl-checkpoint-probe> in the served chapter: the shipped toy it opens by default is drawn with the numbers
// lab.openCheckpoint gives for the same files and prompt (run here in node from web/models/), and the page says
// why the toy does not read the chapter's prompt; files given through the file input (a random tiny checkpoint
// from the fixture script, with the toy's character vocabulary) replace it and open on a prompt that vocabulary
// reads, not the chapter's, whose characters it lacks: typed, they are named and the last result stays; a broken
// file is refused with the reader's message and the last result stays; files without tokenizer.json run on the
// vocabulary's first ids; the prompt shows the message of its current text alone: characters the vocabulary lacks,
// more tokens than the lab runs (the limit named), or none at all.
//   node --test --test-concurrency=1 tests/e2e/checkpoint-probe.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from '../../dist/lib/residual-lab.js';
import { MAX_TOKENS } from '../../web/lib/checkpoint/run-options.js';
import { toyWindow } from '../../web/components/shared/toys.js';
import { stringsOf } from '../../web/languages.js';
import { makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { models, record, toyFiles } from '../fixtures/toys.mjs';
import { startLab } from './harness.mjs';
import { asInputFiles, drawnReadouts, expectedReadouts, pickFiles, probeDone, vocabNames } from './probe-helpers.mjs';
import { EN, eventually, openReady, reopen, rerun, screenshotWidget, textOf } from './widget-helpers.mjs';

const EN_PROMPT = stringsOf('en', 'rl-checkpoint-probe').chapterPrompt;
let lab, api, dir;
before(async () => {
  lab = await startLab();
  api = await load();
  dir = mkdtempSync(join(tmpdir(), 'probe-'));
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

const expected = (files, prompt, names) => expectedReadouts(api, files, prompt, names, { weights: true });
const drawn = (widget) => drawnReadouts(widget, { weights: true });

test('the probe opens toy-llama and draws the numbers lab.openCheckpoint gives; the select opens toy-olmo2', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  for (const toy of record.toys) {
    if (toy !== record.toys[0]) {
      await widget.getByLabel('Trained toy').selectOption(toy.name);
      await eventually(
        () => textOf(widget.locator('.source')),
        (t) => t.includes(toy.name.replace('toy-', 'toy ').replace('olmo2', 'OLMo 2').replace('llama', 'Llama')),
        `${toy.name} is the source`,
      );
      await probeDone(widget, `${toy.name} is run`);
    }
    const names = vocabNames(readFileSync(`${models}${toy.name}/tokenizer.json`, 'utf8'));
    const window = toyWindow(toy);
    const want = await expected(toyFiles(toy), window, names);
    assert.deepEqual(await drawn(widget), want, toy.name);
    assert.equal(await widget.getByLabel('Prompt').inputValue(), window, "the prompt is the toy's probe window");
    const T = toy.engineConfig.contextLength;
    assert.match(
      await textOf(widget.locator('[data-readout="position"]')),
      new RegExp(`Position ${T - 1} of 0 \\.\\. ${T - 1}`),
      'the toy reads its context length, no more',
    );
    const note = await textOf(widget.locator('[data-prompt-note]'));
    assert.match(note, /^This toy reads only the few characters/);
    assert.ok(note.includes(`cannot read the chapter’s prompt “${EN_PROMPT}”`), note);
    assert.match(note, /open your own model’s files above \(Qwen2\.5-0\.5B-Instruct, for one\)/);
  }
  await screenshotWidget(view, widget, 'checkpoint-probe-en');
  view.assertClean();
  await view.close();
});

test('files from the file input replace the toy, on a prompt their vocabulary reads; characters it lacks are named, a broken file refused, the last result stays', async () => {
  const { files } = makeCheckpoint({ family: 'llama', dtype: 'BF16', seed: 3 });
  const tokenizer = readFileSync(`${models}toy-llama/tokenizer.json`, 'utf8'); // a character vocabulary of 38 < 48 ids
  files['tokenizer.json'] = tokenizer;
  const paths = Object.entries(files).map(([name, content]) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  });
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  const toyResult = await drawn(widget);
  await pickFiles(widget, paths);
  await eventually(
    () => textOf(widget.locator('.source')),
    (t) => t.includes('model.safetensors'),
    'the files are the source',
  );
  // their character vocabulary cannot encode the chapter's prompt: they open on a text it reads, and run at once
  const prompt = toyWindow(record.toys[0]);
  await eventually(
    () => widget.getByLabel('Prompt').inputValue(),
    (value) => value === prompt,
    'a prompt their vocabulary reads',
    60000,
  );
  await probeDone(widget, 'the files are run');
  assert.equal(
    await textOf(widget.locator('[data-prompt-note]')),
    stringsOf('en', 'rl-checkpoint-probe').vocabularyPromptNote(EN_PROMPT, 38, true),
  );
  assert.equal(await textOf(widget.locator('#field-prompt-error')), '');
  const want = await expected(
    Object.fromEntries(Object.entries(files).map(([n, c]) => [n, typeof c === 'string' ? c : new Uint8Array(c)])),
    prompt,
    vocabNames(tokenizer),
  );
  const good = await drawn(widget);
  assert.deepEqual(good, want, 'the random checkpoint');
  assert.notDeepEqual(good, toyResult, 'not the toy');
  // the chapter's prompt typed: the characters it lacks are named where they were typed, the last result stays
  await widget.getByLabel('Prompt').fill(EN_PROMPT);
  await eventually(
    () => widget.getAttribute('data-status'),
    (s) => s === 'error',
    "the chapter's prompt is refused",
    60000,
  );
  assert.equal(
    await textOf(widget.locator('#field-prompt-error')),
    'This model’s vocabulary has no token for “H”, “I”, “?”: its tokenizer would drop them without a word. Remove them, or open a model that reads them. The last result stays on screen.',
  );
  assert.equal(await textOf(widget.locator('.run-error')), '', 'the message is at the prompt, not twice');
  assert.deepEqual(await drawn(widget), good, 'the last result stays');
  await rerun(widget, () => widget.getByLabel('Prompt').fill(prompt), 60000);
  assert.equal(await textOf(widget.locator('#field-prompt-error')), '', 'the message goes');

  // a safetensors file cut short: the reader's code and message, the result above kept (dimmed)
  const broken = asInputFiles(files, (name, buffer) =>
    name === 'model.safetensors' ? buffer.subarray(0, buffer.length - 100) : buffer,
  );
  await pickFiles(widget, broken);
  await eventually(
    () => widget.getAttribute('data-status'),
    (s) => s === 'error',
    'the broken file is refused',
    60000,
  );
  // the reader's sentence, and behind it the code and the API's own message
  assert.equal(
    await textOf(widget.locator('.run-error')),
    stringsOf('en', 'rl-checkpoint-probe').openFailed(stringsOf('en', 'common').errors.safetensors_truncated),
  );
  assert.match(
    await widget.locator('.run-error-detail code').textContent(),
    /^safetensors_truncated: model\.safetensors: .+/,
  );
  assert.equal(await widget.locator('.run-error-detail').isVisible(), true);
  assert.deepEqual(await drawn(widget), good, 'the last result stays');
  // the model open is still the good one: a new prompt runs on it
  await widget.locator('#field-position').fill('3');
  await eventually(
    () => widget.getAttribute('data-status'),
    (s) => s !== 'error',
    'the new position starts a run',
    5000,
  );
  await probeDone(widget, 'the last good model runs again');
  assert.match(await textOf(widget.locator('[data-readout="position"]')), /Position 3 of/);
  view.assertClean();
  await view.close();
});

test('files without tokenizer.json run on the first ids of their vocabulary, and the page says so', async () => {
  const { files } = makeCheckpoint({ family: 'llama', dtype: 'F32', seed: 4 }); // config.json and the weights
  assert.ok(!('tokenizer.json' in files));
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  await pickFiles(widget, files);
  await eventually(
    () => textOf(widget.locator('.source')),
    (t) => t.includes('model.safetensors'),
    'the files are the source',
  );
  await eventually(
    () => widget.getByLabel('Prompt').inputValue(),
    (v) => v === '0, 1, 2, 3, 4, 5, 6, 7',
    'the default ids',
    60000,
  );
  await probeDone(widget, 'the ids are run');
  // the picked files are read where they lie, by workers of their own: as many as the cores (up to 4)
  const cores = await view.page.evaluate(() => navigator.hardwareConcurrency);
  const workers = Math.min(4, cores);
  const status = await textOf(widget.locator('.run-status'));
  if (workers > 1) assert.match(status, new RegExp(`split over ${workers} threads`), status);
  const want = await expected(
    Object.fromEntries(Object.entries(files).map(([n, c]) => [n, typeof c === 'string' ? c : new Uint8Array(c)])),
    [0, 1, 2, 3, 4, 5, 6, 7],
    new Map(),
  );
  assert.deepEqual(await drawn(widget), want);
  assert.match(await textOf(widget.locator('[data-readout="position"]')), /Position 7 of 0 \.\. 7, token “#7”/);
  assert.match(
    await textOf(widget.locator('[data-prompt-note]')),
    /no tokenizer\.json, so the prompt is token ids, and the default is the vocabulary’s first ids, 0, 1, 2, 3, 4, 5, 6, 7,/,
  );
  view.assertClean();
  await view.close();
});

test("a prompt of the reader's, typed or from the address, stays when the model changes; the default follows the model", async () => {
  const { files } = makeCheckpoint({ family: 'llama', dtype: 'F32', seed: 5 });
  files['tokenizer.json'] = readFileSync(`${models}toy-llama/tokenizer.json`, 'utf8');
  const given = asInputFiles(files);
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  const field = widget.getByLabel('Prompt');
  await rerun(widget, () => field.fill('the dog has three hens.'), 60000);
  await eventually(
    () => view.page.url(),
    (url) => url.includes('prompt=the'),
    "the reader's prompt is in the address",
  );
  const url = view.page.url();
  // the other toy, then files with tokenizer.json: the reader's prompt is kept and read by each
  await rerun(widget, () => widget.getByLabel('Trained toy').selectOption(record.toys[1].name), 60000);
  assert.equal(await field.inputValue(), 'the dog has three hens.');
  await rerun(widget, () => pickFiles(widget, given), 60000);
  assert.equal(await field.inputValue(), 'the dog has three hens.', 'kept for the files');
  assert.match(await textOf(widget.locator('[data-readout="position"]')), /Position 22 of 0 \.\. 22/);
  // typing the default back (for these files' character vocabulary, the toys' window): the prompt follows the
  // model again, and leaves the address
  await rerun(widget, () => field.fill(toyWindow(record.toys[0])), 60000);
  await eventually(
    () => view.page.url(),
    (u) => !u.includes('prompt='),
    'the default is not written to the address',
  );
  // the address gives the prompt back, over the toy's default
  const page = await reopen(view, url);
  const again = page.locator('rl-checkpoint-probe');
  await again.scrollIntoViewIfNeeded();
  await probeDone(again, 'the toy is run from the address');
  assert.equal(await again.getByLabel('Prompt').inputValue(), 'the dog has three hens.');
  assert.match(await textOf(again.locator('[data-readout="position"]')), /Position 22 of 0 \.\. 22/);
  // longer than the toy's context: run, and the note says what the positions past it are
  const long = `${toyWindow(record.toys[0])} the dog.`;
  await rerun(again, () => again.getByLabel('Prompt').fill(long), 60000);
  assert.match(
    await textOf(again.locator('[data-prompt-note]')),
    new RegExp(`This prompt is ${long.length} tokens long, more than the 64 positions the model was made for`),
  );
  view.assertClean();
  await view.close();
});

test('after a refused prompt the source line names the model the dimmed charts still show', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  const { toyNames } = stringsOf('en', 'rl-checkpoint-probe');
  const source = widget.locator('[data-source]');
  assert.equal(await textOf(source), `Showing: ${toyNames['toy-llama']}.`);
  // a character no toy reads ("€"), then the other toy: it opens, its run is refused, the charts stay the first's
  await widget.getByLabel('Prompt').fill('the dog € the fox');
  await eventually(
    () => widget.getAttribute('data-status'),
    (s) => s === 'error',
    'the prompt is refused',
    60000,
  );
  await widget.getByLabel('Trained toy').selectOption(record.toys[1].name);
  await eventually(
    () => textOf(source),
    (text) => text.includes('dimmed'),
    'the source line names the charted model',
    60000,
  );
  assert.equal(
    await textOf(source),
    `Showing: ${toyNames['toy-olmo2']}. The dimmed charts below are still those of the last model that ran: ${toyNames['toy-llama']}.`,
  );
  assert.equal(await widget.getAttribute('data-stale'), '');
  // a prompt both read: the charts are the chosen model's again, and the line says only that
  await widget.getByLabel('Prompt').fill('the dog and the fox');
  await eventually(
    () => textOf(source),
    (text) => !text.includes('dimmed'),
    'one model again',
    60000,
  );
  assert.equal(await textOf(source), `Showing: ${toyNames['toy-olmo2']}.`);
  view.assertClean();
  await view.close();
});

test("the prompt's message is the current text's alone: characters it lacks, then a prompt over the token limit (named), then an empty one", async () => {
  const S = stringsOf('en', 'rl-checkpoint-probe');
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  const field = widget.getByLabel('Prompt');
  const fieldError = widget.locator('#field-prompt-error');
  const refused = async (text, message, what) => {
    await field.fill(text);
    await eventually(
      () => textOf(fieldError),
      (shown) => shown === message,
      what,
      60000,
    );
    assert.equal(await widget.getAttribute('data-status'), 'error', `${what}: refused`);
    assert.equal(await textOf(widget.locator('.run-error')), '', `${what}: said at the prompt alone`);
    assert.equal(await widget.getAttribute('data-stale'), '', `${what}: the last result stays, dimmed`);
  };
  await refused(
    'Hello WORLD ü 年',
    S.unknownCharacters(['H', 'W', 'O', 'R', 'L', 'D', 'ü', '年']),
    'unknown characters',
  );
  // one token per character on the toy
  await refused('x'.repeat(5000), S.longPrompt(5000, MAX_TOKENS), 'a prompt over the limit');
  assert.ok((await textOf(fieldError)).includes(`at most ${MAX_TOKENS}`), 'the limit is named');
  await refused('', S.emptyPrompt, 'an empty prompt');
  view.assertClean();
  await view.close();
});
