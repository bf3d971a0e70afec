// The decoder-engine widgets as a group: a broken link value or a failed worker ends in a message inside the
// widget (never an uncaught error), Retry runs again, and on a phone every widget fits the screen. Each widget's
// numbers are checked in its own file (gradient-flow, decoder-depth, decoder-training).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import {
  EN,
  RUNNING_WIDGETS,
  ZH,
  eventually,
  finished,
  openReady,
  screenshotWidget,
  textOf,
} from './widget-helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

test('a broken link value falls back with a message, and a failed worker shows its error in the widget', async () => {
  const view = await lab.open(`${EN}?grad.gain=abc&qk.dHead=999`);
  const gradient = view.page.locator('rl-gradient-flow');
  await finished(gradient);
  // the notice says what the setting takes, as an attribute's does
  assert.match(
    await textOf(gradient.locator('.notice')),
    /grad\.gain="abc" is not usable \(expected a number from 0\.05 to 2\); the default is shown instead\./,
  );
  assert.equal(await gradient.getByLabel('Gain per layer', { exact: true }).inputValue(), '0.1', 'the default');
  const qk = view.page.locator('rl-qk-norm-lab');
  await finished(qk);
  assert.match(await textOf(qk.locator('.notice')), /qk\.dHead="999"/);
  view.assertClean();
  await view.close();

  // No worker script: the run ends in a message inside the widget, not an uncaught error. The page is opened
  // by hand so the route is in place before the first request.
  const context = await lab.browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  await page.route('**/lib/lab-worker.js', (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: 'throw new Error("no lab here")' }),
  );
  await page.goto(new URL(EN, lab.url).href);
  const widget = page.locator('rl-init-scaling');
  await widget.scrollIntoViewIfNeeded();
  await eventually(
    () => widget.getAttribute('data-status'),
    (status) => status === 'error',
    'the run fails',
    20000,
  );
  assert.match(
    await textOf(widget.getByRole('alert')),
    /The experiment failed: the background worker that computes it stopped before it finished \(Uncaught Error: no lab here\)/,
  );
  assert.deepEqual(
    problems.filter((problem) => !/no lab here/.test(problem)),
    [],
    'nothing else reaches the console',
  );
  await context.close();
});

test('a worker that cannot start says so without blaming the inputs, and Retry runs again once it can', async () => {
  const context = await lab.browser.newContext();
  const page = await context.newPage();
  const uncaught = [];
  page.on('pageerror', (err) => uncaught.push(err.message));
  const blocked = (route) => route.abort('connectionfailed');
  await page.route('**/lib/lab-worker.js', blocked);
  await page.goto(new URL(EN, lab.url).href);
  const widget = page.locator('rl-gradient-flow');
  await widget.scrollIntoViewIfNeeded();
  await eventually(
    () => widget.getAttribute('data-status'),
    (status) => status === 'error',
    'the run fails',
    20000,
  );
  const said = await textOf(widget.getByRole('alert'));
  assert.match(said, /stopped before it finished \(its script did not load, or the browser ended it/);
  assert.doesNotMatch(said, /unknown error/);
  const label = widget.locator('.stale-label').first(); // the random stack's results (the model's come after)
  assert.match(await textOf(label), /the latest run failed/);
  assert.doesNotMatch(await textOf(label), /inputs/);
  await page.unroute('**/lib/lab-worker.js', blocked);
  await widget.getByRole('button', { name: 'Retry' }).click();
  await eventually(
    () => widget.getAttribute('data-status'),
    (status) => status === 'done',
    'the retry computes',
    20000,
  );
  assert.equal(await label.isHidden(), true);
  assert.equal(await widget.getByRole('button', { name: 'Retry' }).isHidden(), true);
  assert.deepEqual(uncaught, []);
  await context.close();
});

test('on a phone the decoder widgets fit the screen', async () => {
  const view = await openReady(lab, ZH, { viewport: { width: 375, height: 740 } });
  for (const tag of RUNNING_WIDGETS) {
    const widget = view.page.locator(tag);
    await finished(widget);
    const overflow = await widget.evaluate(
      (el) => el.shadowRoot.querySelector('.widget-body').scrollWidth - el.clientWidth,
    );
    assert.ok(overflow <= 0, `<${tag}> is ${overflow}px wider than its box`);
  }
  await screenshotWidget(view, view.page.locator('rl-qk-norm-lab'), 'qk-norm-lab-phone');
  const pageOverflow = await view.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(pageOverflow <= 0, `page is ${pageOverflow}px wider than the phone`);
  view.assertClean();
  await view.close();
});
