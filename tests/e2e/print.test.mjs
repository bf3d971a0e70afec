// The chapter printed (a teacher's handout): the widgets in the print palette, their canvases redrawn in it,
// hints kept, controls that do nothing on paper hidden, a chart that was never computed replaced by a note, and
// an A4 PDF of a bounded length.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { LANGUAGES, stringsOf } from '../../web/languages.js';
import { RUNNING_WIDGETS, RUN_BUTTON_WIDGETS, WIDGET_TAGS, computeEveryWidget, openReady } from './widget-helpers.mjs';

// The A4 PDF with every widget computed, measured as here: 12 pages (en and zh) before the print styles were
// reworked, 14 (en) and 13 (zh) after: the hints now print, each widget stays whole on a page (break-inside:
// avoid leaves the rest of a page blank), and buttons, sliders and run states are gone. The bound leaves two pages
// for text or a widget more, not for widgets split across pages or controls printed again. The chapter then gained
// three figures (model table, config inspector, forward reader) and a self-check per section: 18 (en) and 17 (zh),
// with the self-checks printing their questions only and the inspector its reading without the text box. Then a
// "try it on a model" paragraph at each of the nine claims the probe tests, and the probe's fetch panel: 21 (en)
// and 19 (zh).
const MAX_PAGES = 23;

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

/** Every widget drawn and every decoder widget computed. */
async function computeAll(page) {
  await computeEveryWidget(page);
}

/** Opaque pixels of a canvas lighter than a print palette ever draws (light text and lines of the dark theme). */
const lightPixels = (widget) =>
  widget.evaluate((el) => {
    const canvas = el.shadowRoot.querySelector('.uplot canvas');
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let light = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] > 200 && 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2] > 160) light += 1;
    }
    return light;
  });

for (const { code: lang, page: path } of LANGUAGES) {
  test(`${lang}: printed from the dark theme, widgets use the print palette, keep their hints, and the PDF is at most ${MAX_PAGES} A4 pages`, async () => {
    const view = await openReady(lab, path, { colorScheme: 'dark' });
    const { page } = view;
    await computeAll(page);
    const gradient = page.locator('rl-gradient-flow');
    assert.ok((await lightPixels(gradient)) > 100, 'on screen, the dark theme draws light lines and text');

    await page.emulateMedia({ media: 'print' });
    await page.waitForTimeout(300);
    assert.equal(await lightPixels(gradient), 0, 'printed, the chart is redrawn in print colours');
    const looks = await page.evaluate(
      (tags) =>
        [...document.querySelectorAll(tags.join(', '))].map((el) => {
          const style = getComputedStyle(el);
          const hints = [...el.shadowRoot.querySelectorAll('.hint')].filter((h) => !h.closest('[hidden]'));
          return {
            tag: el.localName,
            fg: style.color, // the widget's colours are light-dark() pairs: what they resolve to under the print scheme
            background: style.backgroundColor,
            hintsShown: hints.length > 0 && hints.every((h) => getComputedStyle(h).display !== 'none'),
            buttonsShown: [...el.shadowRoot.querySelectorAll('button')].filter(
              (b) => getComputedStyle(b).display !== 'none',
            ).length,
          };
        }),
      WIDGET_TAGS,
    );
    assert.deepEqual(
      [...new Set(looks.map((look) => look.tag))].sort(),
      [...WIDGET_TAGS].sort(),
      'every widget is checked',
    );
    // Legend swatches (backgrounds) print, and the share menu, which does nothing on paper, does not.
    const legends = await page.evaluate(() =>
      [...document.querySelectorAll('*')]
        .filter((el) => el.shadowRoot)
        .map((el) => ({
          tag: el.localName,
          swatches: [...el.shadowRoot.querySelectorAll('.swatch, .u-legend .u-marker')]
            .filter((s) => !s.closest('[hidden]'))
            .map((s) => getComputedStyle(s).printColorAdjust),
          share: [...el.shadowRoot.querySelectorAll('.share-menu')].map((m) => getComputedStyle(m).display),
        })),
    );
    assert.ok(legends.reduce((n, l) => n + l.swatches.length, 0) >= 10, 'the legends have swatches');
    for (const { tag, swatches, share } of legends) {
      assert.ok(
        swatches.every((adjust) => adjust === 'exact'),
        `${tag}: swatches print (${swatches})`,
      );
      assert.ok(
        share.every((display) => display === 'none'),
        `${tag}: no "Share and export" on paper`,
      );
    }
    for (const look of looks) {
      assert.equal(look.fg, 'rgb(0, 0, 0)', `${look.tag}: print text colour`);
      assert.equal(look.background, 'rgb(255, 255, 255)', `${look.tag}: white background`);
      assert.ok(look.hintsShown, `${look.tag}: the "what to notice" hints print`);
      assert.equal(look.buttonsShown, 0, `${look.tag}: no buttons on paper`);
    }
    // The warmup race was never run: a note instead of an empty frame.
    const warmup = await page.locator('rl-warmup-race').evaluate((el) => {
      const chart = el.shadowRoot.querySelector('.line-chart');
      return {
        note: getComputedStyle(chart.querySelector('.chart-empty-note')).display,
        plot: getComputedStyle(chart.querySelector('.uplot')).display,
        text: chart.querySelector('.chart-empty-note').textContent,
      };
    });
    assert.equal(warmup.note, 'block');
    assert.equal(warmup.plot, 'none');
    assert.equal(warmup.text, stringsOf(lang, 'common').chartNotComputed);

    const pdf = (await page.pdf({ format: 'A4' })).toString('latin1');
    const pages = (pdf.match(/\/Type\s*\/Page\b/g) ?? []).length;
    console.log(`${lang}: ${pages} A4 pages`);
    assert.ok(pages >= 8 && pages <= MAX_PAGES, `${pages} pages`);
    view.assertClean();
    await view.close();
  });
}

/** The widgets whose charts would print as "not computed yet" (their chart-empty note shown under print media). */
const notComputedOnPaper = (page) =>
  page.evaluate(
    (tags) =>
      [...document.querySelectorAll(tags.join(', '))]
        .filter((el) =>
          [...el.shadowRoot.querySelectorAll('.chart-empty-note')].some((n) => getComputedStyle(n).display !== 'none'),
        )
        .map((el) => el.localName),
    WIDGET_TAGS,
  );

test('printed right after load: Ctrl+P computes every figure that computes by itself, then opens the print dialog', async () => {
  const { page: path } = LANGUAGES[0];
  const view = await openReady(lab, path);
  const { page } = view;
  // the print dialog, recorded instead of opened: what every widget's run was when it was asked for
  await page.evaluate(() => {
    window.print = () => {
      window.printedWith = [...document.querySelectorAll('[data-status], [data-ready]')].map((el) => [
        el.localName,
        el.dataset.status ?? null,
      ]);
    };
  });
  await page.emulateMedia({ media: 'print' });
  const before = await notComputedOnPaper(page);
  assert.ok(
    RUNNING_WIDGETS.some((tag) => before.includes(tag)),
    `at load, figures below the fold are not computed yet: ${before}`,
  );
  await page.keyboard.press('Control+P');
  await page.waitForFunction(() => window.printedWith, null, { timeout: 180000, polling: 500 });
  const statuses = await page.evaluate(() => window.printedWith);
  for (const tag of RUNNING_WIDGETS) {
    const runs = statuses.filter(([name]) => name === tag);
    assert.ok(runs.length > 0, `${tag} is on the page`);
    for (const [, status] of runs) assert.equal(status, 'done', `${tag} had run when the dialog opened`);
  }
  // on paper, only the figures a reader starts with a button are still empty
  for (const tag of await notComputedOnPaper(page)) assert.ok(RUN_BUTTON_WIDGETS.includes(tag), tag);
  assert.equal(await page.locator('.print-wait').count(), 0, 'the note that it is computing is gone');
  view.assertClean();
  await view.close();
});

test("a print from the browser's menu (beforeprint) starts the runs of the figures not yet computed", async () => {
  const view = await openReady(lab, LANGUAGES[0].page);
  const { page } = view;
  await page.evaluate(() => dispatchEvent(new Event('beforeprint')));
  await page.waitForFunction(
    (tags) => tags.every((tag) => [...document.querySelectorAll(tag)].every((el) => el.dataset.status === 'done')),
    RUNNING_WIDGETS,
    { timeout: 180000, polling: 500 },
  );
  await page.evaluate(() => dispatchEvent(new Event('afterprint')));
  view.assertClean();
  await view.close();
});
