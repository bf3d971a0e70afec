// The chapter's "try it on a model" links (content/<lang>/chapter.md: `?probe.experiment=<name>#rl-probe`) open
// the experiment in place (shell/page.js, LabElement.followLink): the page is not loaded again, so another widget's
// edit stays on screen and in the address; the probe runs the experiment the link names on the toy, its answer
// (the API's for the same files and prompt) is in view once the run has drawn, with the line that says the run has
// just ended; the browser's Back returns to the line that was clicked. In both languages. Then every such link of
// the chapter, one after the other on one page: each opens its experiment in place.
//   node --test --test-concurrency=1 tests/e2e/chapter-links.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { readTokenizer, shownToken } from '../../web/components/checkpoint-probe/compute.js';
import { toyWindow } from '../../web/components/shared/toys.js';
import { stringsOf } from '../../web/languages.js';
import { record, toyFiles } from '../fixtures/toys.mjs';
import { startLab } from './harness.mjs';
import { probeSettled } from './probe-helpers.mjs';
import { EN, LANGUAGE_PAGES, eventually, openReady, textOf } from './widget-helpers.mjs';

const VIEWPORT = { width: 1280, height: 900 };
let lab, api;
before(async () => {
  lab = await startLab();
  api = await load();
});
after(async () => {
  await lab?.close();
});

/** The experiment's answer on a toy, from the API in node: what the probe must show. */
async function answerOf(toy, experiment) {
  const ckpt = await api.openCheckpoint(toyFiles(toy));
  try {
    return await ckpt.claim(experiment, ckpt.tokenize(toyWindow(toy)));
  } finally {
    ckpt.dispose();
  }
}

/** Whether the whole of `locator` lies inside the window. */
async function inView(locator) {
  const box = await locator.boundingBox();
  return Boolean(box) && box.y >= 0 && box.y + box.height <= VIEWPORT.height;
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const [code, path] of LANGUAGE_PAGES) {
  test(`${code}: a "try it on a model" link runs its experiment in place, in view, and Back returns`, async () => {
    const S = stringsOf(code, 'rl-checkpoint-probe');
    const toy = record.toys[0];
    const result = await answerOf(toy, 'epsMargin');
    const view = await openReady(lab, path, { viewport: VIEWPORT });
    const { page } = view;
    await page.evaluate(() => (window.sameDocument = true)); // gone if the page loads again
    // the reader's edit in another widget
    const x = page.locator('rl-vector-lab #field-x');
    await x.fill('3, 4');
    await eventually(
      () => page.url(),
      (url) => url.includes('vec.x=3'),
      'the edit is in the address',
    );
    const link = page.locator('article a[href*="probe.experiment=epsMargin"]');
    assert.equal(await link.count(), 1);
    await link.scrollIntoViewIfNeeded();
    const linkTop = async () => (await link.boundingBox()).y;
    const clickedAt = await linkTop();
    await link.click();
    const widget = page.locator('rl-checkpoint-probe');
    const answer = widget.locator('[data-experiment-answer]');
    await eventually(
      () => textOf(answer),
      (text) => text === S.experiments.epsMargin.answer(result),
      'the answer is the API’s',
      60000,
    );
    assert.equal(await probeSettled(widget, 'the run ends'), 'done');
    assert.equal(await page.evaluate(() => window.sameDocument), true, 'the page was not loaded again');
    assert.equal(await x.inputValue(), '3, 4', 'the other widget keeps its edit');
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('probe.experiment'), 'epsMargin');
    assert.equal(url.searchParams.get('vec.x'), '3, 4', 'and the address keeps it');
    assert.equal(await widget.getByLabel(S.experiment, { exact: true }).inputValue(), 'epsMargin');
    // the answer is in view, and the line under it says the run has just ended
    await eventually(
      () => inView(answer),
      (yes) => yes,
      'the answer is in view',
      10000,
    );
    const ran = widget.locator('[data-experiment-ran]');
    const [before, after] = S.experimentRan(S.toyNames[toy.name], '\u0000').split('\u0000');
    assert.match(await textOf(ran), new RegExp(`^${escape(before)}\\d\\d:\\d\\d:\\d\\d${escape(after)}$`));
    assert.ok(await inView(ran), 'so is the line that says it ran');
    // Back: the line that was clicked, on the same page, the edit kept
    await page.goBack();
    await eventually(
      linkTop,
      (y) => Math.abs(y - clickedAt) < 2,
      `Back returns to the link, where it was in the window (${clickedAt} px from the top)`,
      5000,
    );
    assert.equal(await page.evaluate(() => window.sameDocument), true, 'Back stays on the page');
    assert.equal(await x.inputValue(), '3, 4');
    // the address of that entry says what the widgets show
    await eventually(
      () => page.url(),
      (u) => new URL(u).searchParams.get('probe.experiment') === 'epsMargin' && u.includes('vec.x=3'),
      'the address follows the widgets',
    );
    view.assertClean();
    await view.close();
  });
}

test("every link of the chapter that opens the probe's experiment opens it in place, on the toy it names", async () => {
  const S = stringsOf('en', 'rl-checkpoint-probe');
  const view = await openReady(lab, EN, { viewport: VIEWPORT });
  const { page } = view;
  await page.evaluate(() => (window.sameDocument = true));
  const widget = page.locator('rl-checkpoint-probe');
  const hrefs = await page
    .locator('article a[href*="probe.experiment="]')
    .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.ok(hrefs.length >= 9, `the chapter's links: ${hrefs}`);
  let toyName = record.toys[0].name;
  for (const href of hrefs) {
    const params = new URLSearchParams(href.slice(1, href.indexOf('#')));
    const experiment = params.get('probe.experiment');
    toyName = params.get('probe.toy') ?? toyName; // a link that names no toy keeps the one open
    const toy = record.toys.find((t) => t.name === toyName);
    const result = await answerOf(toy, experiment);
    const e = S.experiments[experiment];
    const name = readTokenizer(toyFiles(toy)).name;
    const t = (id) => shownToken(name(id));
    const expected = result.unsupported ? (e.unsupported ?? S.cannotRun(result.unsupported)) : e.answer(result, t);
    const link = page.locator(`article a[href="${href}"]`);
    await link.scrollIntoViewIfNeeded();
    await link.click();
    await eventually(
      () => widget.getByLabel(S.experiment, { exact: true }).inputValue(),
      (value) => value === experiment,
      `${href}: the probe's experiment`,
    );
    await eventually(
      () => textOf(widget.locator('[data-experiment-answer]')),
      (text) => text === expected,
      `${href}: the answer is the API’s`,
      60000,
    );
    assert.equal(await probeSettled(widget, `${href} is run`), 'done');
    assert.equal(await widget.getByLabel(S.toy, { exact: true }).inputValue(), toyName);
    assert.equal(await page.evaluate(() => window.sameDocument), true, `${href}: in place`);
    await eventually(
      () => inView(widget.locator('[data-experiment-answer]')),
      (yes) => yes,
      `${href}: in view`,
      10000,
    );
  }
  view.assertClean();
  await view.close();
});
