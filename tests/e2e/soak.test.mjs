// A soak of the chapter page: 2,000 interactions (RL_SOAK=N for more) spread over every widget (the first of each tag), made the way
// input events reach them (typed text, slider moves, selects, checkboxes, radio buttons, buttons: runs, cancels,
// another seed, steps), good and bad values alike, with a few language switches. Afterwards the page has logged
// no error and no CSP violation, and on every page visited the WASM heap, the live decoders and the live workers
// are back within the bounds below of where they started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { EN, WIDGET_TAGS, WORKER_WIDGETS, countWorkers, eventually } from './widget-helpers.mjs';

const INTERACTIONS = Number(process.env.RL_SOAK ?? 2000);
const LANGUAGE_SWITCHES = 3;
const BATCH = 25; // interactions per round trip; a frame passes between batches
// The main thread's heap only grows in 64 KiB pages, and every size the widgets can ask for (8192-d vectors in
// the precision lab) is reached while the page loads, so it may not grow at all.
const HEAP_TOLERANCE_BYTES = 0;
// After the runs settle, each widget that starts workers may keep the worker of its last finished run, and no more.
const MAX_LIVE_WORKERS = WORKER_WIDGETS.length;

// Installed in each page visited: window.soakFigures() and window.soakStep(i), one interaction chosen from i.
async function installSoak(tags) {
  const libUrl = new URL(
    'lib/residual-lab.js',
    document.querySelector('script[src$="components/index.js"]').src.replace(/components\/index\.js$/, ''),
  );
  const { load } = await import(libUrl.href);
  const lab = await load();
  window.soakFigures = () => ({
    heapBytes: lab.wasmHeapBytes(),
    liveDecoders: lab.liveDecoders(),
    liveWorkers: window.workerCounts.created - window.workerCounts.terminated,
    workersCreated: window.workerCounts.created,
  });
  let state = 12345;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const pick = (items) => items[Math.floor(random() * items.length)];
  const vector = (d) => Array.from({ length: d }, () => ((random() - 0.5) * 8).toFixed(2)).join(', ');
  const VECTORS = () => [
    vector(4),
    vector(4),
    vector(2 + Math.floor(random() * 6)),
    vector(64),
    '0 0 0 0',
    '1e20, 1',
    '1e-30, 2e-30',
    '',
    '1,,zz',
    '[1, 2',
    'NaN, 1',
    '3e39',
  ];
  const NUMBERS = {
    eps: ['1e-5', '0', '0.1', '-1', 'abc', ''],
    alpha: ['0.5', '2', '-3', '11', 'x'],
    cap: ['30', '5', '0', '-2', 'abc', '1e9'],
    seed: ['0', '3', '17', '999', 'x1', '-4', '1.5'],
  };
  const typeInto = (input) => {
    const pool = NUMBERS[input.name] ?? (input.name === 'typed' ? [...VECTORS(), vector(8192)] : VECTORS());
    input.value = pick(pool);
    input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    return `type ${input.name}`;
  };
  const act = {
    text: typeInto,
    textarea: typeInto,
    range(input) {
      const min = Number(input.min);
      const max = Number(input.max);
      const step = Number(input.step) || 1;
      input.value = String(min + Math.round((random() * (max - min)) / step) * step);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
      return `slide ${input.name}`;
    },
    select(select) {
      select.selectedIndex = Math.floor(random() * select.options.length);
      select.dispatchEvent(new Event('change', { bubbles: true }));
      return `select ${select.name}`;
    },
    checkbox(input) {
      input.click();
      return `toggle ${input.name}`;
    },
    radio(input) {
      input.click();
      return `choose ${input.name}=${input.value}`;
    },
    button(button) {
      button.click();
      return `press ${button.className || button.textContent}`;
    },
  };
  const kindOf = (el) => (el.localName === 'input' ? el.type : el.localName);
  window.soakStep = (i) => {
    const widget = document.querySelector(tags[i % tags.length]);
    if (i % 50 < tags.length) widget.scrollIntoView({ behavior: 'instant', block: 'center' });
    // A training run is long: its Run button is pressed now and then, and the next change or Cancel cuts it short.
    const controls = [...widget.shadowRoot.querySelectorAll('input, textarea, select, button')]
      .filter((el) => act[kindOf(el)] && el.checkVisibility() && el.getAttribute('aria-disabled') !== 'true')
      .filter((el) => !el.classList.contains('run') || random() < 0.3);
    if (!controls.length) return `${widget.localName}: nothing to use`;
    const control = pick(controls);
    return `${widget.localName}: ${act[kindOf(control)](control)}`;
  };
}

/** A page that stops answering fails the test instead of hanging it. */
function withTimeout(promise, what, ms = 30000) {
  let timer;
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function settle(page) {
  // Runs cancel each other as settings change; the last ones are allowed to finish (or are cancelled).
  await page.evaluate(() => {
    for (const element of document.querySelectorAll('*'))
      element.shadowRoot?.querySelector('.run-cancel:not([hidden])')?.click();
  });
  await eventually(
    () =>
      page.evaluate(
        (tags) => tags.filter((tag) => document.querySelector(tag).dataset.status === 'running').length,
        WORKER_WIDGETS,
      ),
    (running) => running === 0,
    'every run finished or cancelled',
    60000,
  );
  await page.waitForTimeout(300);
  return page.evaluate(() => window.soakFigures());
}

test(
  `soak: ${INTERACTIONS} interactions over every widget leave no error, no heap growth, no decoder and no stray worker`,
  { timeout: 600000 },
  async () => {
    const lab = await startLab();
    const tags = WIDGET_TAGS;
    const started = Date.now();
    const view = await lab.open(EN, { initScript: countWorkers });
    let { page } = view;
    const ready = async () => {
      await page.waitForFunction(
        (all) => all.every((tag) => document.querySelector(tag)?.hasAttribute('data-ready')),
        tags,
        { timeout: 30000 },
      );
      await page.evaluate(installSoak, tags);
      const figures = await page.evaluate(() => window.soakFigures());
      // Each widget once near the viewport, so the experiment widgets compute from then on (they wait for that).
      await page.evaluate(async (all) => {
        for (const tag of all) {
          document.querySelector(tag).scrollIntoView({ behavior: 'instant', block: 'center' });
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }, tags);
      return figures;
    };
    const segments = [];
    let before = await ready();
    let made = 0;
    const switchAt = new Set(
      Array.from({ length: LANGUAGE_SWITCHES }, (_, k) =>
        Math.round(((k + 1) * INTERACTIONS) / (LANGUAGE_SWITCHES + 1)),
      ),
    );
    const kinds = new Map();
    while (made < INTERACTIONS) {
      const count = Math.min(BATCH, INTERACTIONS - made);
      const done = await withTimeout(
        page.evaluate(
          async ({ from, count }) => {
            const steps = [];
            for (let i = from; i < from + count; i++) steps.push(window.soakStep(i));
            await new Promise((resolve) => setTimeout(resolve, 16));
            return steps;
          },
          { from: made, count },
        ),
        `interactions ${made} to ${made + count}`,
      );
      for (const step of done) {
        const kind = step.replace(/^[\w-]+: (\w+).*$/, '$1');
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      made += count;
      if (process.env.RL_SOAK_TRACE)
        console.log(`  ${made} interactions, ${((Date.now() - started) / 1000).toFixed(1)} s`);
      if ([...switchAt].some((at) => at > made - count && at <= made)) {
        const after = await settle(page);
        segments.push({ lang: await page.evaluate(() => document.documentElement.lang), before, after });
        made += 1; // the switch is an interaction too
        const url = page.url();
        await page.evaluate(() => {
          window.scrollTo(0, 0);
          document.querySelector('[data-lang-link]:not([aria-current])').click();
        });
        await page.waitForURL((next) => next.href !== url);
        before = await ready();
      }
    }
    segments.push({
      lang: await page.evaluate(() => document.documentElement.lang),
      before,
      after: await settle(page),
    });
    const seconds = (Date.now() - started) / 1000;

    console.log(`soak: ${made} interactions (${LANGUAGE_SWITCHES} language switches) in ${seconds.toFixed(1)} s`);
    console.log(`  by kind: ${[...kinds].map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
    for (const { lang, before: b, after: a } of segments) {
      console.log(
        `  page ${lang}: heap ${b.heapBytes} -> ${a.heapBytes} bytes, liveDecoders ${b.liveDecoders} -> ${a.liveDecoders}, live workers ${b.liveWorkers} -> ${a.liveWorkers} (${a.workersCreated} started)`,
      );
    }
    // A run cancelled while its fresh worker is still fetching the lab's modules (lib/lab-worker.js and the bundles
    // in assets/ it imports) ends that worker, and Chromium reports those fetches as aborted: the cancel working,
    // not a fault. Any other failed request still counts.
    const abortedWorkerLoads = view.problems.filter((p) =>
      /^request failed: \S+\/(?:lib|assets)\/[\w/.-]+ \(net::ERR_ABORTED\)$/.test(p),
    );
    view.problems.splice(0, view.problems.length, ...view.problems.filter((p) => !abortedWorkerLoads.includes(p)));
    console.log(`  worker module loads cut short by a cancel: ${abortedWorkerLoads.length}`);
    view.assertClean();
    assert.equal(segments.length, LANGUAGE_SWITCHES + 1);
    assert.ok(made >= INTERACTIONS);
    for (const { lang, before: b, after: a } of segments) {
      assert.ok(
        a.heapBytes - b.heapBytes <= HEAP_TOLERANCE_BYTES,
        `${lang}: heap grew from ${b.heapBytes} to ${a.heapBytes}`,
      );
      assert.equal(a.liveDecoders, b.liveDecoders, `${lang}: decoders`);
      assert.ok(a.liveWorkers <= MAX_LIVE_WORKERS, `${lang}: ${a.liveWorkers} workers alive`);
      assert.ok(a.workersCreated > 0, `${lang}: the experiment widgets ran`);
    }
    await view.close();
    await lab.close();
  },
);
