// Helpers for the chapter and widget browser tests (the server and Chromium come from harness.mjs).
import assert from 'node:assert/strict';
import { WIDGETS } from '../../web/components/registry.js';
import { LANGUAGES } from '../../web/languages.js';
import { watchFailedRequests } from './harness.mjs';

export const EN = 'en/index.html';
export const ZH = 'index.html';
/** Every language of web/languages.js as [code, its chapter's page]: the tests that hold in each loop over it. */
export const LANGUAGE_PAGES = LANGUAGES.map(({ code, page }) => [code, page]);
/** The language code of a chapter page ('index.html', 'en/index.html'). */
export const codeOfPage = (path) => LANGUAGES.find((row) => row.page === path).code;
// Every widget (web/components/registry.js), and the subsets its worker column defines.
export const WIDGET_TAGS = WIDGETS.map((widget) => widget.tag);
/** The widgets that start a worker: by themselves near the viewport, or on their Run button. */
export const WORKER_WIDGETS = WIDGETS.filter((widget) => widget.worker).map((widget) => widget.tag);
/** The widgets that compute in a worker by themselves as they near the viewport. */
export const RUNNING_WIDGETS = WIDGETS.filter((widget) => widget.worker === 'in-view').map((widget) => widget.tag);
/** The widgets that start a worker only on their Run button. */
export const RUN_BUTTON_WIDGETS = WIDGETS.filter((widget) => widget.worker === 'on-run').map((widget) => widget.tag);

/** Opens a page and waits until every widget on it has drawn (experiment widgets: before their first run). */
export async function openReady(lab, path, options) {
  const view = await lab.open(path, options);
  await view.page.waitForFunction(
    (tags) => tags.every((tag) => [...document.querySelectorAll(tag)].every((el) => el.hasAttribute('data-ready'))),
    WIDGET_TAGS,
  );
  return view;
}

/**
 * Opens `url` in a second tab of the same browser context (same storage), watched like the first one: its
 * problems land in view.problems, so view.assertClean() covers both. Used instead of page.reload(), which can
 * abort the first page's late favicon request and so report a failed request that no reader would see.
 */
export async function reopen(view, url) {
  const page = await view.page.context().newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error' || (msg.type() === 'warning' && /Content.Security.Policy/i.test(msg.text())))
      view.problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => view.problems.push(`uncaught: ${err.message}`));
  watchFailedRequests(page, view.problems);
  page.on('response', (res) => {
    if (res.status() >= 400) view.problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  await page.goto(url);
  await page.waitForFunction(
    (tags) => tags.every((tag) => [...document.querySelectorAll(tag)].every((el) => el.hasAttribute('data-ready'))),
    WIDGET_TAGS,
  );
  return page;
}

/**
 * Screenshot of one widget in the page, clear of the sticky header: the element is scrolled just below the
 * header and clipped out of a viewport tall enough to hold it. Saved as test-results/screenshots/<name>.png.
 */
export async function screenshotWidget(view, locator, name) {
  const { page } = view;
  const box = await locator.evaluate((element) => {
    const header = document.querySelector('.site-header');
    const offset = (header ? header.getBoundingClientRect().height : 0) + 8;
    window.scrollTo({ top: element.getBoundingClientRect().top + window.scrollY - offset, behavior: 'instant' });
    const rect = element.getBoundingClientRect();
    return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
  });
  const viewport = page.viewportSize();
  if (box.y + box.height > viewport.height) {
    await page.setViewportSize({ width: viewport.width, height: Math.ceil(box.y + box.height + 16) });
    await page.waitForTimeout(100); // charts re-measure after the resize
  }
  const clip = { x: Math.max(0, box.x - 8), y: Math.max(0, box.y - 8), width: box.width + 16, height: box.height + 16 };
  await view.screenshot(name, { screenshot: (options) => page.screenshot({ ...options, clip }) });
  await page.setViewportSize(viewport);
}

/** The text of an element located in a widget, whitespace collapsed. */
export async function textOf(locator) {
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

/** Polls `read()` until `check(value)` holds (or fails with the last value after `timeout` ms). */
export async function eventually(read, check, message, timeout = 3000) {
  const end = Date.now() + timeout;
  let value;
  for (;;) {
    value = await read();
    if (check(value)) return value;
    if (Date.now() > end) assert.fail(`${message}: last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until the locator's text equals `expected`. */
export function expectText(locator, expected, message = 'text') {
  return eventually(
    () => textOf(locator),
    (text) => text === expected,
    `${message} should be ${JSON.stringify(expected)}`,
  );
}

// An init script (page.addInitScript) that counts the page's workers in window.workerCounts: every Worker made and
// every terminate(), each worker once.
export function countWorkers() {
  const counts = { created: 0, terminated: 0 };
  const NativeWorker = window.Worker;
  const terminate = NativeWorker.prototype.terminate;
  const ended = new WeakSet();
  window.Worker = class extends NativeWorker {
    constructor(...args) {
      super(...args);
      counts.created += 1;
    }
  };
  NativeWorker.prototype.terminate = function countedTerminate() {
    if (!ended.has(this)) {
      ended.add(this);
      counts.terminated += 1;
    }
    return terminate.call(this);
  };
  window.workerCounts = counts;
}

/**
 * Scrolls through the whole page, bottom included (the page grows as widgets draw, so its height is read at every
 * step), then brings each widget that computes by itself and has not finished into view, and waits until every
 * one is done or has failed (those that wait for their Run button are left alone).
 */
export async function computeEveryWidget(page, { step = 700, timeout = 90000 } = {}) {
  const selector = RUNNING_WIDGETS.join(', ');
  for (let y = 0; y < (await page.evaluate(() => document.documentElement.scrollHeight)); y += step) {
    await page.evaluate((top) => window.scrollTo({ top, behavior: 'instant' }), y);
    await page.waitForTimeout(60);
  }
  const pending = (selector) =>
    [...document.querySelectorAll(selector)]
      .filter((el) => !['done', 'error'].includes(el.dataset.status))
      .map((el) => {
        const section = el.closest('.chapter-section');
        return `${el.localName} (status ${el.dataset.status ?? 'none'}, ${el.hasAttribute('data-ready') ? '' : 'not '}ready, section ${section?.id ?? '-'} ${section?.hasAttribute('data-laid-out') ? 'laid out' : 'waiting'})`;
      });
  try {
    await page.waitForFunction(
      (selector) => {
        const left = [...document.querySelectorAll(selector)].filter(
          (el) => !['done', 'error'].includes(el.dataset.status),
        );
        left[0]?.scrollIntoView({ block: 'center', behavior: 'instant' });
        return left.length === 0;
      },
      selector,
      { timeout, polling: 500 },
    );
  } catch (error) {
    const left = await page.evaluate(pending, selector).catch(() => ['(the page did not answer)']);
    throw new Error(`not every widget computed within ${timeout} ms: ${left.join('; ')}`, { cause: error });
  }
}

/** Scrolls an experiment widget into view (it computes near the viewport) and waits for a finished run. */
export async function finished(widget, timeout = 20000) {
  await widget.scrollIntoViewIfNeeded();
  await eventually(
    () => widget.getAttribute('data-status'),
    (status) => status === 'done',
    `${await widget.evaluate((el) => el.localName)} finishes`,
    timeout,
  );
}

/** Waits for a new finished run of an experiment widget after `action` (the status passes through running). */
export async function rerun(widget, action, timeout = 20000) {
  await widget.evaluate((el) => {
    el.dataset.status = 'stale';
  });
  await action();
  await eventually(
    () => widget.getAttribute('data-status'),
    (status) => status === 'done',
    'the widget recomputes',
    timeout,
  );
}

/** The `<data>` elements of a widget's readout `name` (its numbers are their value attributes). */
export const readout = (widget, name) => widget.locator(`[data-readout="${name}"] data`);

/** The value attributes of the located `<data>` elements, as numbers. */
export const numbers = async (locator) =>
  await locator.evaluateAll((els) => els.map((el) => Number(el.getAttribute('value'))));

/** |a/b − 1|, the relative distance of a shown value from its reference. */
export const relative = (a, b) => Math.abs(a / b - 1);

// The chapter's worked example x = [2, -1, 3, 0] as <rl-vector-lab> prints its RMSNorm and LayerNorm.
export const WORKED_RMS = '[1.069, -0.535, 1.604, 0]';
export const WORKED_LN = '[0.632, -1.265, 1.265, -0.632]';

/** Opens `path` ready and returns its <rl-vector-lab>, with `$(label)` to find one of its controls by label. */
export async function openVectorLab(lab, path = EN) {
  const view = await openReady(lab, path);
  const widget = view.page.locator('rl-vector-lab');
  const $ = (label) => widget.getByLabel(label, { exact: true });
  return { view, widget, $ };
}
