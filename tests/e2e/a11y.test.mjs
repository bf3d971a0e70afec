// Accessibility: axe-core (the rules of WCAG 2.x A and AA and best practice) finds no serious or critical
// violation on the chapter in both languages with every widget computed, on embed.html and on the embedding
// examples. axe runs inside the page, in the widgets' open shadow roots too. Its source is injected as a script,
// which the pages' CSP would refuse: this file's browser contexts bypass the CSP (the other tests keep it).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { startLab } from './harness.mjs';
import { RUNNING_WIDGETS, WIDGET_TAGS, eventually } from './widget-helpers.mjs';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

/** Opens `path` with the CSP bypassed; page errors are collected in `problems`. */
async function open(path, { colorScheme = 'light' } = {}) {
  const context = await lab.browser.newContext({
    bypassCSP: true,
    colorScheme,
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  await page.goto(new URL(path, lab.url).href);
  return { page, problems, close: () => context.close() };
}

/** Waits until every widget on the page has drawn and every experiment that computes by itself has finished. */
async function allComputed(page) {
  await page.waitForFunction(
    (tags) => tags.every((tag) => [...document.querySelectorAll(tag)].every((el) => el.hasAttribute('data-ready'))),
    WIDGET_TAGS,
    { timeout: 30000 },
  );
  for (const tag of RUNNING_WIDGETS) {
    for (const widget of await page.locator(tag).all()) {
      await widget.scrollIntoViewIfNeeded();
      await eventually(
        () => widget.getAttribute('data-status'),
        (status) => status === 'done',
        `${tag} computes`,
        60000,
      );
    }
  }
}

/** The serious and critical violations axe reports, one line each (rule, impact, first targets). */
async function violations(page) {
  await page.addScriptTag({ content: AXE_SOURCE });
  const results = await page.evaluate(() => window.axe.run(document, { iframes: false, resultTypes: ['violations'] }));
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .slice(0, 3)
          .map((n) => JSON.stringify(n.target))
          .join(', ')}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ''}`,
    );
}

for (const [name, path, scheme] of [
  ['English', 'en/index.html', 'light'],
  ['Chinese', 'index.html', 'light'],
  ['English, dark', 'en/index.html', 'dark'],
]) {
  test(`the chapter (${name}), every widget computed: no serious or critical axe violation`, async () => {
    const view = await open(path, { colorScheme: scheme });
    await allComputed(view.page);
    assert.deepEqual(await violations(view.page), []);
    // every result shown as the last valid one (as while an input is invalid): framed, and still readable
    const stale = await markAllStale(view.page);
    assert.ok(stale.regions >= 12, `${stale.regions} regions (every widget with results has one)`);
    assert.deepEqual(stale.unframed, [], 'every stale region is framed and labelled');
    assert.ok(stale.fadedCanvases > 0, 'the charts fade');
    assert.deepEqual(await violations(view.page), [], 'the stale results keep their contrast');
    assert.deepEqual(view.problems, []);
    await view.close();
  });
}

/**
 * Marks every widget's results as not matching its inputs (LabElement.markStale with an input's error, which every
 * results region answers to; a failed run marks only the regions of that run); returns how many results regions
 * there are, those without a dashed frame and a shown label, and the faded canvases.
 */
function markAllStale(page) {
  return page.evaluate((tags) => {
    const found = { regions: 0, unframed: [], fadedCanvases: 0 };
    for (const element of document.querySelectorAll(tags.join(','))) {
      element.markStale(true, element);
      for (const region of element.shadowRoot.querySelectorAll('.results-region')) {
        found.regions++;
        const label = region.querySelector(':scope > .stale-label');
        if (getComputedStyle(region).outlineStyle !== 'dashed' || label.hidden) found.unframed.push(element.id);
        for (const canvas of region.querySelectorAll('canvas'))
          if (Number(getComputedStyle(canvas).opacity) < 0.6) found.fadedCanvases++;
      }
    }
    return found;
  }, WIDGET_TAGS);
}

for (const path of [
  'embed.html?widget=vector-lab',
  'embed.html?widget=gradient-flow&lang=zh',
  'embed.html?widget=nothing',
  'embed-example.html',
  'embed-frame-example.html',
]) {
  test(`${path}: no serious or critical axe violation`, async () => {
    const view = await open(path);
    if (path !== 'embed.html?widget=nothing') await allComputed(view.page);
    assert.deepEqual(await violations(view.page), []);
    assert.deepEqual(view.problems, []);
    await view.close();
  });
}
