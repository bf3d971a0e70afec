// Widgets on a page that swaps them (slides, tabs): every widget is inserted and removed 200 times, some
// removed while loading, some after drawing, some while their worker run is going; afterwards no worker is left
// running, no decoder is alive, the WASM heap has not grown, and the removed elements can be garbage collected.
// A widget moved in the DOM works again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { RUNNING_WIDGETS, WIDGET_TAGS, countWorkers, eventually } from './widget-helpers.mjs';

const TAGS = WIDGET_TAGS;
// The widgets whose runs start in the started cycles: those that run by themselves, and the race (its Run button).
const STARTED_TAGS = [...RUNNING_WIDGETS, 'rl-warmup-race'];
const CYCLES = 200;
const STARTED_EVERY = 20; // every 20th cycle the widgets sit in view and their runs start before removal
const HEAP_TOLERANCE_BYTES = 0; // the WASM heap only grows in 64 KiB pages: after the first cycle, not one more
const RETAINED_TOLERANCE = 0.01; // of the removed elements, at most 1% may survive a full garbage collection

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

async function openStage() {
  const view = await lab.open('embed-example.html', { initScript: countWorkers });
  await view.page.evaluate(async () => {
    const { load } = await import('./lib/residual-lab.js');
    window.mainLab = await load();
    document.body.replaceChildren();
    // `near` is in view; `far` sits 20 screens down, beyond the widgets' "near the viewport" margin of one screen.
    const near = document.createElement('div');
    const spacer = document.createElement('div');
    spacer.style.height = `${20 * innerHeight}px`;
    const far = document.createElement('div');
    document.body.append(near, spacer, far);
    window.stage = { near, far };
    window.figures = () => ({
      liveWorkers: window.workerCounts.created - window.workerCounts.terminated,
      workersCreated: window.workerCounts.created,
      liveDecoders: window.mainLab.liveDecoders(),
      heapBytes: window.mainLab.wasmHeapBytes(),
    });
  });
  return view;
}

test('inserting and removing each widget 200 times leaves no worker, decoder or heap growth behind', async () => {
  const view = await openStage();
  const { page } = view;
  const started = Date.now();
  const before = await page.evaluate(() => window.figures());

  const cycle = (index, tags) =>
    page.evaluate(
      async ({ index, tags, startedEvery, startedTags }) => {
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        const until = async (check) => {
          for (let i = 0; i < 600 && !check(); i++) await frame();
          return check();
        };
        const inView = index % startedEvery === 0;
        const elements = tags.map((tag) => Object.assign(document.createElement(tag), { lang: 'en' }));
        for (const element of elements) element.setAttribute('url-state', 'off');
        (inView ? window.stage.near : window.stage.far).append(...elements);
        window.removed ??= [];
        let running = 0;
        if (inView) {
          // Every widget drawn; each experiment widget scrolled into view until its run starts (the race by its button).
          await until(() => elements.every((el) => el.hasAttribute('data-ready')));
          elements
            .find((el) => el.localName === 'rl-warmup-race')
            .shadowRoot.querySelector('button.run')
            .click();
          for (const element of elements.filter((el) => startedTags.includes(el.localName))) {
            element.scrollIntoView({ behavior: 'instant' });
            await until(() => element.dataset.status);
          }
          running = elements.filter((el) => el.dataset.status === 'running').length;
        } else if (index % 3 === 1) {
          await until(() => elements.every((el) => el.hasAttribute('data-ready')));
        } else if (index % 3 === 2) {
          await frame();
        } // index % 3 === 0: removed while loading
        for (const element of elements) {
          element.remove();
          window.removed.push(new WeakRef(element));
        }
        return { running, live: window.figures().liveWorkers };
      },
      { index, tags, startedEvery: STARTED_EVERY, startedTags: STARTED_TAGS },
    );

  const first = await cycle(0, TAGS);
  const afterFirst = await page.evaluate(() => window.figures());
  let runsCut = first.running;
  for (let i = 1; i < CYCLES; i++) {
    const { running, live } = await cycle(i, TAGS);
    runsCut += running;
    assert.equal(live, 0, `cycle ${i}: workers still alive right after removal`);
  }
  const end = await page.evaluate(() => window.figures());
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await page.waitForTimeout(200);
  await cdp.send('HeapProfiler.collectGarbage');
  const retained = await page.evaluate(() => ({
    alive: window.removed.filter((ref) => ref.deref()).length,
    total: window.removed.length,
  }));
  const seconds = ((Date.now() - started) / 1000).toFixed(1);

  console.log(
    `widget churn: ${CYCLES} cycles x ${TAGS.length} widgets in ${seconds} s; ${end.workersCreated} workers started, ${runsCut} runs cut short`,
  );
  console.log(`  live workers: before ${before.liveWorkers}, after ${end.liveWorkers}`);
  console.log(`  lab.liveDecoders(): before ${before.liveDecoders}, after ${end.liveDecoders}`);
  console.log(
    `  lab.wasmHeapBytes(): before ${before.heapBytes}, after the first cycle ${afterFirst.heapBytes}, after ${CYCLES} cycles ${end.heapBytes} (tolerance ${HEAP_TOLERANCE_BYTES})`,
  );
  console.log(`  removed elements still reachable after GC: ${retained.alive} of ${retained.total}`);

  assert.equal(first.live, 0);
  // The race splits its four runs over one worker per core (at most four); every other widget has one worker.
  const raceWorkers = await page.evaluate(() => Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)));
  assert.equal(
    end.workersCreated,
    (RUNNING_WIDGETS.length + raceWorkers) * (CYCLES / STARTED_EVERY),
    'one worker per experiment widget in view',
  );
  assert.ok(runsCut >= CYCLES / STARTED_EVERY, `only ${runsCut} runs were going at removal`);
  assert.equal(end.liveWorkers, before.liveWorkers);
  assert.equal(end.liveDecoders, before.liveDecoders);
  assert.ok(
    end.heapBytes - afterFirst.heapBytes <= HEAP_TOLERANCE_BYTES,
    `heap grew from ${afterFirst.heapBytes} to ${end.heapBytes}`,
  );
  assert.equal(retained.total, CYCLES * TAGS.length);
  assert.ok(
    retained.alive <= RETAINED_TOLERANCE * retained.total,
    `${retained.alive} removed elements are still reachable`,
  );
  view.assertClean();
  await view.close();
});

test('a widget moved in the DOM, or removed and inserted again, works again', async () => {
  const view = await openStage();
  const { page } = view;
  await page.evaluate(() => {
    for (const tag of ['rl-gradient-flow', 'rl-vector-lab']) {
      const element = Object.assign(document.createElement(tag), { lang: 'en' });
      element.setAttribute('url-state', 'off');
      window.stage.near.append(element);
    }
  });
  const flow = page.locator('rl-gradient-flow');
  await eventually(
    () => flow.getAttribute('data-status'),
    (s) => s === 'running',
    'first run starts',
    10000,
  );
  // Moved while its run is going: the run is cut short, and the widget runs again once back near the viewport.
  await page.evaluate(() => window.stage.far.append(document.querySelector('rl-gradient-flow')));
  assert.equal((await page.evaluate(() => window.figures())).liveWorkers, 0);
  assert.equal(await flow.getAttribute('data-status'), 'cancelled');
  await page.waitForTimeout(300);
  assert.equal(await flow.getAttribute('data-status'), 'cancelled', 'far from the viewport it waits');
  await page.evaluate(() => window.stage.near.prepend(document.querySelector('rl-gradient-flow')));
  await eventually(
    () => flow.getAttribute('data-status'),
    (s) => s === 'done',
    'the run after re-insertion',
    20000,
  );
  assert.ok(Number(await flow.locator('[data-readout] data').first().getAttribute('value')) > 0);
  assert.equal((await page.evaluate(() => window.figures())).liveWorkers, 1); // the finished run's worker stays for the next one

  // The vector lab removed and inserted again still recomputes when its field changes.
  const vector = page.locator('rl-vector-lab');
  await page.evaluate(() => {
    const el = document.querySelector('rl-vector-lab');
    el.remove();
    window.stage.near.append(el);
  });
  await vector.getByLabel('Input vector x', { exact: true }).fill('3, 4');
  await eventually(
    () => vector.getByLabel('RMSNorm output', { exact: true }).innerText(),
    (t) => /0\.849/.test(t),
    'RMSNorm of [3, 4] after re-insertion',
  );

  await page.evaluate(() => {
    for (const el of document.querySelectorAll('rl-gradient-flow, rl-vector-lab')) el.remove();
  });
  assert.equal((await page.evaluate(() => window.figures())).liveWorkers, 0);
  view.assertClean();
  await view.close();
});
