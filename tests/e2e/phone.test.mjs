// On a phone (390 × 844 CSS px, a touch screen) the chapter never scrolls sideways, nothing inside a widget spills
// out of it, and every control a finger uses is at least 24 × 24 CSS px (WCAG 2.2, 2.5.8 Target Size, Minimum);
// buttons are 44 px tall (the touch guideline). Links inside a sentence are the criterion's inline exception.
// Bar-chart labels appear at 11 px or more, one chart's values in one precision; a legend's swatch stays on its
// name's line; a table wider than the screen shows that it scrolls; what needs a mouse (dropping files) is not
// offered.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { LANGUAGE_PAGES, WIDGET_TAGS, computeEveryWidget, openReady } from './widget-helpers.mjs';

const PHONE = { width: 390, height: 844 };
const TARGET = 24;
const BUTTON_HEIGHT = 44;
// Widgets whose legend still places a bare swatch before a name rather than a legendEntry (shared/bar-chart.js),
// which a line can break between: the checkpoint probe's "attention / MLP" caption, until it moves to legendEntry
// (its element file is being reworked apart from this test). Empty this list when it does.

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

for (const [lang, path] of LANGUAGE_PAGES) {
  test(`${lang} on a phone: no sideways scrolling, nothing spills out of a widget, touch targets of 24 px`, async () => {
    const view = await openReady(lab, path, { viewport: PHONE, hasTouch: true });
    const { page } = view;
    await visitAll(page);
    assert.ok(
      (await page.evaluate(() => document.documentElement.scrollWidth)) <= PHONE.width,
      'the page does not scroll sideways',
    );

    const problems = await page.evaluate(
      ({ target, buttonHeight, tags }) => {
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
            if (el.localName === 'button' && r.height < buttonHeight - 0.5)
              found.push(`${where}: button "${el.textContent.trim().slice(0, 30)}" is ${r.height.toFixed(0)} px tall`);
          }
        };
        // A swatch shares a line with the name after it: their vertical middles lie within half a line.
        const checkLegends = (root, where) => {
          for (const swatch of root.querySelectorAll('.swatch')) {
            const r = swatch.getBoundingClientRect();
            const name = swatch.nextSibling;
            if (r.width === 0 || !name?.textContent.trim()) continue;
            const range = document.createRange();
            range.setStart(name.nodeType === Node.TEXT_NODE ? name : name.firstChild, 0);
            range.setEnd(name.nodeType === Node.TEXT_NODE ? name : name.firstChild, 1);
            const t = range.getBoundingClientRect();
            if (Math.abs((r.top + r.bottom) / 2 - (t.top + t.bottom) / 2) > 8)
              found.push(`${where}: the swatch of "${name.textContent.trim()}" is on another line than its name`);
          }
        };
        // A table wider than its box scrolls, with a shadow on the side that has more (background-attachment
        // local covers over scroll shadows).
        const checkScrollCues = (root, where) => {
          for (const box of root.querySelectorAll('.table-scroll')) {
            if (box.scrollWidth <= box.clientWidth + 1) continue;
            const style = getComputedStyle(box);
            if (!/radial-gradient/.test(style.backgroundImage) || !/local.*scroll/.test(style.backgroundAttachment))
              found.push(`${where}: a table ${box.scrollWidth} px wide in ${box.clientWidth} px shows no scroll cue`);
          }
        };
        checkScrollCues(document, 'chapter');
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
          checkLegends(host.shadowRoot, host.localName);
          checkScrollCues(host.shadowRoot, host.localName);
          // Bar-chart text as it appears: its CSS size times the SVG's scale on screen.
          for (const chart of host.shadowRoot.querySelectorAll('svg.bar-chart')) {
            const scale = chart.getBoundingClientRect().width / chart.viewBox.baseVal.width;
            for (const text of chart.querySelectorAll('text')) {
              const shown = parseFloat(getComputedStyle(text).fontSize) * scale;
              if (shown < 11)
                found.push(`${host.localName}: bar-chart text "${text.textContent}" is ${shown.toFixed(1)} px`);
            }
            const decimals = new Set(
              [...chart.querySelectorAll('.bar-value')]
                .map((text) => text.textContent)
                .filter((text) => /^-?\d+(\.\d+)?$/.test(text))
                .map((text) => text.split('.')[1]?.length ?? 0),
            );
            if (decimals.size > 1)
              found.push(`${host.localName}: one bar chart's values carry ${[...decimals].join(' and ')} decimals`);
          }
        }
        return found;
      },
      { target: TARGET, buttonHeight: BUTTON_HEIGHT, tags: WIDGET_TAGS },
    );
    assert.deepEqual(problems, []);
    // The checks above ran on something: buttons, legends with swatches and bar values on this page.
    const seen = await page.evaluate((tags) => {
      const roots = [...document.querySelectorAll(tags.join(', '))].map((host) => host.shadowRoot);
      const all = (selector) => roots.flatMap((root) => [...root.querySelectorAll(selector)]);
      const probe = document.querySelector('rl-checkpoint-probe')?.shadowRoot.querySelector('.drop-zone');
      return {
        buttons: all('button').filter((b) => b.getBoundingClientRect().height > 0).length,
        swatches: all('.legend-entry .swatch').filter((s) => s.getBoundingClientRect().width > 0).length,
        barValues: all('svg.bar-chart .bar-value').length,
        dropHint: probe ? { text: probe.textContent.trim(), height: probe.getBoundingClientRect().height } : null,
      };
    }, WIDGET_TAGS);
    assert.ok(seen.buttons >= 10, `buttons on the page: ${seen.buttons}`);
    assert.ok(seen.swatches >= 4, `legend swatches on the page: ${seen.swatches}`);
    assert.ok(seen.barValues >= 4, `bar values on the page: ${seen.barValues}`);
    // "Drop the files here" is for a mouse: on a touch screen the hint is there but takes no room.
    assert.ok(seen.dropHint?.text, 'the checkpoint probe has its drop hint');
    assert.equal(seen.dropHint.height, 0, 'the drop hint is hidden on a touch screen');
    view.assertClean();
    await view.close();
  });
}
