// On a phone (390 × 844 CSS px) the chapter never scrolls sideways, nothing inside a widget spills out of it, and
// every control a finger uses is at least 24 × 24 CSS px (WCAG 2.2, 2.5.8 Target Size, Minimum). Links inside a
// sentence are the criterion's inline exception. Bar-chart labels appear at 11 px or more.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { EN, WIDGET_TAGS, ZH, computeEveryWidget, openReady } from './widget-helpers.mjs';

const PHONE = { width: 390, height: 844 };
const TARGET = 24;

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

/** Every widget drawn and every decoder widget computed, then back to the top. */
async function visitAll(page) {
  await computeEveryWidget(page);
  await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
}

for (const [lang, path] of [
  ['en', EN],
  ['zh', ZH],
]) {
  test(`${lang} on a phone: no sideways scrolling, nothing spills out of a widget, touch targets of 24 px`, async () => {
    const view = await openReady(lab, path, { viewport: PHONE });
    const { page } = view;
    await visitAll(page);
    assert.ok(
      (await page.evaluate(() => document.documentElement.scrollWidth)) <= PHONE.width,
      'the page does not scroll sideways',
    );

    const problems = await page.evaluate(
      ({ target, tags }) => {
        const found = [];
        // An element spills when it reaches past its widget's box and no scroll box between them holds it.
        const scrolledBy = (el, host) => {
          for (let e = el.parentElement; e && e !== host; e = e.parentElement ?? e.getRootNode().host) {
            if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(e).overflowX)) return true;
          }
          return false;
        };
        const isInlineLink = (el) =>
          el.localName === 'a' &&
          ['p', 'li', 'span'].includes(el.parentElement?.localName) &&
          el.parentElement.textContent.trim().length > el.textContent.trim().length;
        const controls = 'input:not([type="hidden"]), button, select, textarea, summary, a[href]';
        const checkTargets = (root, where) => {
          for (const el of root.querySelectorAll(controls)) {
            const r = el.getBoundingClientRect();
            if (r.width === 0 || r.height === 0 || isInlineLink(el)) continue;
            if (r.width < target || r.height < target)
              found.push(
                `${where}: ${el.localName}[${el.type ?? ''}] "${(el.textContent || el.name || '').trim().slice(0, 30)}" is ${r.width.toFixed(0)} × ${r.height.toFixed(0)}`,
              );
          }
        };
        for (const shell of document.querySelectorAll('.site-header, .toc, .skip-link'))
          checkTargets(shell, 'page shell');
        for (const host of document.querySelectorAll(tags.join(', '))) {
          const box = host.getBoundingClientRect();
          for (const el of host.shadowRoot.querySelectorAll('*')) {
            const r = el.getBoundingClientRect();
            if (r.width === 0) continue;
            if ((r.right > box.right + 0.5 || r.left < box.left - 0.5) && !scrolledBy(el, host))
              found.push(
                `${host.localName}: ${el.localName}.${el.getAttribute('class') ?? ''} spans ${r.left.toFixed(0)}-${r.right.toFixed(0)}, the widget ${box.left.toFixed(0)}-${box.right.toFixed(0)}`,
              );
          }
          checkTargets(host.shadowRoot, host.localName);
          // Bar-chart text as it appears: its CSS size times the SVG's scale on screen.
          for (const chart of host.shadowRoot.querySelectorAll('svg.bar-chart')) {
            const scale = chart.getBoundingClientRect().width / chart.viewBox.baseVal.width;
            for (const text of chart.querySelectorAll('text')) {
              const shown = parseFloat(getComputedStyle(text).fontSize) * scale;
              if (shown < 11)
                found.push(`${host.localName}: bar-chart text "${text.textContent}" is ${shown.toFixed(1)} px`);
            }
          }
        }
        return found;
      },
      { target: TARGET, tags: WIDGET_TAGS },
    );
    assert.deepEqual(problems, []);
    view.assertClean();
    await view.close();
  });
}
