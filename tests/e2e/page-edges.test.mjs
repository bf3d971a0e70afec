// What a reader or a host can throw at the page: extreme and all-zero vectors in the precision lab, results left
// on screen while an input is invalid (they must look stale), and a link whose setting is hundreds of kilobytes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { LANGUAGES, stringsOf } from '../../web/languages.js';
import { LANGUAGE_PAGES, eventually, expectText, openReady, screenshotWidget, textOf } from './widget-helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// The label over a result that no longer matches its inputs, in each language.
const STALE = Object.fromEntries(LANGUAGE_PAGES.map(([lang]) => [lang, stringsOf(lang, 'common').stale]));

/** The stale state of a widget: the host attribute, the region attribute, the label's text if shown, and the dimming. */
function staleState(widget) {
  return widget.evaluate((element) => {
    const region = element.shadowRoot.querySelector('.results-region');
    const label = region.querySelector('.stale-label');
    return {
      host: element.hasAttribute('data-stale'),
      region: region.hasAttribute('data-stale'),
      label: label.hidden || label.offsetParent === null ? null : label.textContent,
      // seen as well as said: a dashed frame (a shape, not only a colour) around the region
      frame: getComputedStyle(region).outlineStyle,
    };
  });
}

const NOT_STALE = { host: false, region: false, label: null, frame: 'none' };

test('precision lab: an all-zero vector is explained, with no NaN, and the undefined errors shown as dashes (every language)', async () => {
  for (const [lang, path] of LANGUAGE_PAGES) {
    const s = stringsOf(lang, 'rl-precision-lab');
    const view = await openReady(lab, path);
    const widget = view.page.locator('rl-precision-lab');
    await widget.getByLabel(s.typed).check();
    await widget.getByLabel(s.typedLabel, { exact: true }).fill('0 0 0 0');
    await expectText(
      widget.getByRole('heading', { name: s.resultsTitle(4) }),
      s.resultsTitle(4),
      `${lang}: zeros measured`,
    );
    // RMSNorm of zeros divides by sqrt(0 + eps): eps = 1e-5, so 0.0032; every output is 0 and the error 0/0.
    const sqrtEps = Math.sqrt(1e-5).toFixed(4);
    assert.equal(await textOf(widget.locator('#rms-exact')), sqrtEps);
    for (const cell of ['#error-exact', '#rms-fp32', '#rms-bf16', '#error-fp32', '#error-bf16'])
      assert.equal(await textOf(widget.locator(cell)), '–', `${lang}: ${cell}`);
    assert.equal(await textOf(widget.locator('.verdict')), s.zeroVerdict);
    assert.ok((await textOf(widget.locator('.explain'))).includes(s.zeroVector(sqrtEps)), `${lang}: the explanation`);
    assert.doesNotMatch(await textOf(widget), /NaN/);
    assert.deepEqual(await staleState(widget), NOT_STALE);
    view.assertClean();
    await view.close();
  }
});

test('precision lab: 1e20, 1 overflows the float32 sum of squares, said in the table and the verdict, in every language', async () => {
  for (const [lang, path] of LANGUAGE_PAGES) {
    const s = stringsOf(lang, 'rl-precision-lab');
    const [typed, label, overflow] = [s.typed, s.typedLabel, s.overflowCell];
    // the sum of squares 1e40 + 1 and float32's largest value, as the widget writes them
    const words = [s.overflowVerdict('1.0 × 10⁴⁰'), s.overflow('3.4 × 10³⁸')];
    const view = await openReady(lab, path);
    const widget = view.page.locator('rl-precision-lab');
    await widget.getByLabel(typed).check();
    const field = widget.getByLabel(label, { exact: true });
    await field.fill('1, 2, 3');
    await eventually(
      () => textOf(widget.locator('#rms-fp32')),
      (text) => text === '2.1602',
      `${path}: [1, 2, 3] first`,
    );
    await field.fill('1e20, 1');
    await eventually(
      () => textOf(widget.locator('#rms-fp32')),
      (text) => text === overflow,
      `${path}: float32 row`,
    );
    assert.equal(await textOf(widget.locator('#rms-bf16')), overflow);
    // float64 holds it: sqrt((1e40 + 1) / 2) = 7.07e19 (1e20 as float32 is 100000002004087734272).
    assert.equal(await textOf(widget.locator('#rms-exact')), '7.1 × 10¹⁹');
    assert.equal(await textOf(widget.locator('#error-fp32')), '–');
    const said = [await textOf(widget.locator('.verdict')), await textOf(widget.locator('.explain'))];
    words.forEach((text, i) => assert.ok(said[i].includes(text), `${lang}: ${said[i]}`));
    assert.equal(await textOf(widget.locator('#field-typed-error')), '', 'not an input error: the vector is valid');
    assert.deepEqual(await staleState(widget), NOT_STALE, "the shown result is this vector's");
    await screenshotWidget(view, widget, `precision-lab-overflow-${lang}`);
    await field.fill('1e19, 1'); // 1e38 fits: both kernels run again
    await eventually(
      () => textOf(widget.locator('#rms-fp32')),
      (text) => text === '7.1 × 10¹⁸',
      `${path}: 1e19 runs`,
    );
    assert.equal(await widget.locator('.explain').isHidden(), true, `${path}: no explanation needed`);
    view.assertClean();
    await view.close();
  }
});

test('vector lab: a bad input dims the last result under a "last valid result" label, removed once valid (every language)', async () => {
  for (const [lang, path] of LANGUAGE_PAGES) {
    const { x: xLabel, rowRms: rmsLabel } = stringsOf(lang, 'rl-vector-lab');
    const view = await openReady(lab, path);
    const widget = view.page.locator('rl-vector-lab');
    const x = widget.getByLabel(xLabel, { exact: true });
    const rms = widget.getByLabel(rmsLabel, { exact: true });
    assert.deepEqual(await staleState(widget), NOT_STALE, `${lang}: fresh`);
    await x.fill('3, 4');
    await expectText(rms, '[0.849, 1.131]', `${lang}: RMSNorm of [3, 4]`);
    await x.fill('3, 4, zz');
    await eventually(
      () => staleState(widget),
      (s) => s.host && s.region && s.label === STALE[lang] && s.frame === 'dashed',
      `${lang}: stale after a bad x`,
    );
    assert.equal(await textOf(rms), '[0.849, 1.131]', `${lang}: the old result is still there`);
    await screenshotWidget(view, widget, `vector-lab-stale-${lang}`);
    // A second bad field keeps it stale after the first is fixed; fixing both clears it.
    await widget.locator('#field-eps').fill('-1');
    await x.fill('6, 8');
    await eventually(
      () => staleState(widget),
      (s) => s.label === STALE[lang],
      `${lang}: eps still bad`,
    );
    await widget.locator('#field-eps').fill('1e-5');
    await eventually(
      () => staleState(widget),
      (s) => !s.host && !s.region && s.label === null && s.frame === 'none',
      `${lang}: fresh again`,
    );
    await expectText(rms, '[0.849, 1.131]', `${lang}: RMSNorm of [6, 8]`);
    view.assertClean();
    await view.close();
  }
});

test('gradient flow: a bad seed marks the drawn curves as the last valid result until a valid seed runs (every language)', async () => {
  for (const [lang, path] of LANGUAGE_PAGES) {
    const seedLabel = stringsOf(lang, 'run').seed;
    const view = await openReady(lab, path);
    const widget = view.page.locator('rl-gradient-flow');
    await widget.scrollIntoViewIfNeeded();
    await eventually(
      () => widget.getAttribute('data-status'),
      (s) => s === 'done',
      `${lang}: first run`,
      20000,
    );
    const readout = () => widget.locator('[data-readout] data').first().getAttribute('value');
    const before = await readout();
    const seed = widget.getByLabel(seedLabel, { exact: true });
    await seed.fill('7x');
    await eventually(
      () => staleState(widget),
      (s) => s.host && s.label === STALE[lang] && s.frame === 'dashed',
      `${lang}: stale after a bad seed`,
    );
    assert.equal(await readout(), before, `${lang}: the curves stay`);
    assert.notEqual(await textOf(widget.locator('#field-seed-error')), '', `${lang}: the seed field says why`);
    await screenshotWidget(view, widget, `gradient-flow-stale-${lang}`);
    await seed.fill('7');
    await eventually(
      () => staleState(widget),
      (s) => !s.host && s.label === null && s.frame === 'none',
      `${lang}: fresh with a valid seed`,
    );
    await eventually(
      () => widget.getAttribute('data-status'),
      (s) => s === 'done',
      `${lang}: the seed-7 run`,
      20000,
    );
    assert.deepEqual(await staleState(widget), NOT_STALE);
    view.assertClean();
    await view.close();
  }
});

test('gradient flow: a failed run marks the curves on screen as the last valid result until a run succeeds (every language)', async () => {
  for (const [lang, path] of LANGUAGE_PAGES) {
    const flow = stringsOf(lang, 'rl-gradient-flow');
    const { failed } = stringsOf(lang, 'run');
    const { staleRun } = stringsOf(lang, 'common');
    const view = await openReady(lab, path);
    const { page } = view;
    let failWorkers = false;
    await page.route('**/lib/lab-worker.js', (route) =>
      failWorkers
        ? route.fulfill({ status: 200, contentType: 'text/javascript', body: 'throw new Error("no lab here")' })
        : route.continue(),
    );
    const widget = page.locator('rl-gradient-flow');
    await widget.scrollIntoViewIfNeeded();
    await eventually(
      () => widget.getAttribute('data-status'),
      (s) => s === 'done',
      'first run',
      20000,
    );
    const readout = () => widget.locator('[data-readout] data').first().getAttribute('value');
    const before = await readout();
    // Removed and inserted again, the widget starts its next run in a fresh worker, which cannot load.
    failWorkers = true;
    await widget.evaluate((element) => {
      const { parentNode, nextSibling } = element;
      element.remove();
      parentNode.insertBefore(element, nextSibling);
    });
    await widget.getByRole('button', { name: flow.preset(1.2, 32, 'chapter'), exact: true }).click();
    await eventually(
      () => widget.getAttribute('data-status'),
      (s) => s === 'error',
      'the run fails',
      20000,
    );
    assert.ok((await textOf(widget.getByRole('alert'))).startsWith(failed('')), `${lang}: the failure is said`);
    // The inputs are fine: the label names the failed run, not them.
    await eventually(
      () => staleState(widget),
      (s) => s.host && s.label === staleRun && s.frame === 'dashed',
      'stale after the failure',
    );
    assert.equal(await readout(), before, 'the earlier curves stay');
    const modelRegionStale = () =>
      widget.evaluate((element) =>
        [...element.shadowRoot.querySelectorAll('.results-region')].at(-1).hasAttribute('data-stale'),
      );
    assert.equal(await modelRegionStale(), false, "the model half, which runs on its own, keeps its figures' state");
    failWorkers = false;
    await widget.getByRole('button', { name: flow.preset(0.8, 32, 'chapter'), exact: true }).click();
    await eventually(
      () => widget.getAttribute('data-status'),
      (s) => s === 'done',
      'the next run',
      20000,
    );
    assert.deepEqual(await staleState(widget), NOT_STALE);
    // The worker's own uncaught error is the failure this test provokes; nothing else may reach the console.
    view.problems.splice(0, view.problems.length, ...view.problems.filter((problem) => !/no lab here/.test(problem)));
    view.assertClean();
    await view.close();
  }
});

test('a fragment whose percent-encoding is broken opens the page with nothing thrown, in every language', async () => {
  for (const [, path] of LANGUAGE_PAGES)
    for (const fragment of ['#%', '#%E0%A4%A']) {
      const view = await openReady(lab, `${path}${fragment}`);
      view.assertClean();
      await view.close();
    }
});

test('a link setting of 200 KB is quoted in the notice as its first 40 characters and its length, in every language', async () => {
  // A real server refuses a 200 KB request line (node's limit is 16 KB), so the address is set in the page and a
  // widget is inserted afterwards: it reads its state from that address as on a page load.
  const view = await lab.open('embed-example.html');
  const value = `${'7'.repeat(100)},${'a'.repeat(200000 - 101)}`;
  for (const { code: lang, numberLocale } of LANGUAGES) {
    const length = stringsOf(lang, 'common').quotedLength((200000).toLocaleString(numberLocale));
    const notice = await view.page.evaluate(
      async ({ value, lang }) => {
        history.replaceState(null, '', `${location.pathname}?edge-${lang}.x=${encodeURIComponent(value)}`);
        const widget = Object.assign(document.createElement('rl-vector-lab'), { lang });
        widget.setAttribute('state-key', `edge-${lang}`);
        document.body.append(widget);
        for (let i = 0; i < 600 && !widget.hasAttribute('data-ready'); i++)
          await new Promise((resolve) => requestAnimationFrame(resolve));
        const x = widget.shadowRoot.querySelector('#field-x').value;
        return { text: widget.shadowRoot.querySelector('.notice').textContent, x };
      },
      { value, lang },
    );
    const quote = `edge-${lang}.x=${JSON.stringify(`${'7'.repeat(40)}…`)}${length}`;
    assert.ok(notice.text.includes(quote), `${lang}: ${notice.text}`);
    assert.ok(notice.text.length < 200, `${lang}: the notice is ${notice.text.length} characters`);
    assert.equal(notice.x, '2, -1, 3, 0', `${lang}: the default is used`);
  }
  view.assertClean();
  await view.close();
});
