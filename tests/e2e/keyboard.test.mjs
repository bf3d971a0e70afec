// Keyboard use: ending a run with Cancel leaves the focus on the control that started it (not on <body>), and
// display formulas are no tab stops unless they scroll sideways (then they are named).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { stringsOf } from '../../web/languages.js';
import { LANGUAGE_PAGES, eventually, openReady } from './widget-helpers.mjs';

// Where the focus goes does not depend on the language: the runs below use the first language's page, found by its
// own words.
const [[LANG, PAGE]] = LANGUAGE_PAGES;
const RUN = stringsOf(LANG, 'run');
const GRADIENT_FLOW = stringsOf(LANG, 'rl-gradient-flow');

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

/** The focused element, looking through shadow roots: "tag.class" of it and of its widget, if any. */
const focused = (page) =>
  page.evaluate(() => {
    let element = document.activeElement;
    let widget = null;
    while (element?.shadowRoot?.activeElement) {
      widget = element.localName;
      element = element.shadowRoot.activeElement;
    }
    return {
      widget,
      element: element ? `${element.localName}${element.className ? `.${element.className}` : ''}` : null,
    };
  });

test('warmup race: Run by keyboard, Cancel by keyboard, and the focus is back on Run', async () => {
  const view = await openReady(lab, PAGE);
  const { page } = view;
  const widget = page.locator('rl-warmup-race');
  const run = widget.locator('button.run');
  await run.focus();
  await page.keyboard.press('Enter');
  const cancel = widget.getByRole('button', { name: RUN.cancel });
  await cancel.waitFor({ state: 'visible', timeout: 10000 });
  assert.deepEqual(
    await focused(page),
    { widget: 'rl-warmup-race', element: 'button.run' },
    'Run keeps the focus while it runs',
  );
  await page.keyboard.press('Tab');
  assert.deepEqual(
    await focused(page),
    { widget: 'rl-warmup-race', element: 'button.run-cancel' },
    'Tab reaches Cancel',
  );
  await page.keyboard.press('Enter');
  assert.equal(await widget.getAttribute('data-status'), 'cancelled');
  assert.deepEqual(
    await focused(page),
    { widget: 'rl-warmup-race', element: 'button.run' },
    'after Cancel the focus is on Run, not <body>',
  );
  view.assertClean();
  await view.close();
});

test('gradient flow: a run started from a slider and cancelled by keyboard hands the focus back to the slider', async () => {
  const view = await openReady(lab, PAGE);
  const { page } = view;
  const widget = page.locator('rl-gradient-flow');
  await widget.scrollIntoViewIfNeeded();
  await eventually(
    () => widget.getAttribute('data-status'),
    (s) => s === 'done',
    'the first run',
    20000,
  );
  await widget.getByLabel(GRADIENT_FLOW.mlp, { exact: true }).check();
  await widget.getByLabel(GRADIENT_FLOW.width, { exact: true }).selectOption('512');
  const layers = widget.getByLabel(GRADIENT_FLOW.layers, { exact: true });
  await layers.focus();
  await page.keyboard.press('End'); // 64 layers of 512-wide MLPs: a run long enough to cancel
  const cancel = widget.getByRole('button', { name: RUN.cancel });
  await cancel.waitFor({ state: 'visible', timeout: 10000 });
  await cancel.focus();
  await page.keyboard.press('Enter');
  assert.equal(await widget.getAttribute('data-status'), 'cancelled');
  assert.deepEqual(
    await focused(page),
    { widget: 'rl-gradient-flow', element: 'input' },
    'the slider that started the run',
  );
  assert.equal(await page.evaluate(() => document.activeElement?.localName), 'rl-gradient-flow');
  view.assertClean();
  await view.close();
});

for (const [lang, path] of LANGUAGE_PAGES) {
  test(`${lang}: display formulas are no tab stops unless they scroll, and then they are named`, async () => {
    for (const width of [1280, 390]) {
      const view = await lab.open(path, { viewport: { width, height: 900 } });
      const { page } = view;
      // The shell labels a section's scrolling blocks as it lays the section out, one section per task.
      await page.locator('article[data-laid-out]').waitFor({ state: 'attached' });
      const blocks = await page.evaluate(() =>
        [...document.querySelectorAll('article .math-display, article pre')].map((el) => ({
          name: el.localName,
          scrolls: el.scrollWidth > el.clientWidth + 1,
          tallerThanBox: el.scrollHeight > el.clientHeight + 1 && getComputedStyle(el).overflowY !== 'hidden',
          tabIndex: el.tabIndex,
          label: el.getAttribute('aria-label'),
        })),
      );
      assert.ok(blocks.length > 10, 'the chapter has formula and code blocks');
      for (const block of blocks) {
        assert.equal(block.tallerThanBox, false, `${width}px: no block scrolls vertically`);
        if (block.scrolls)
          assert.ok(
            block.tabIndex === 0 && block.label,
            `${width}px: a scrolling ${block.name} is named: ${JSON.stringify(block)}`,
          );
        else
          assert.ok(
            block.tabIndex < 0 && !block.label,
            `${width}px: a ${block.name} that fits is no tab stop: ${JSON.stringify(block)}`,
          );
      }
      // Tabbing through the first part of the chapter never lands on a formula that fits.
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab');
        const stop = await page.evaluate(() => {
          const el = document.activeElement;
          return el?.classList.contains('math-display')
            ? { scrolls: el.scrollWidth > el.clientWidth + 1, label: el.getAttribute('aria-label') }
            : null;
        });
        if (stop) assert.ok(stop.scrolls && stop.label, `${width}px: a formula tab stop scrolls and is named`);
      }
      view.assertClean();
      await view.close();
    }
  });
}
