// A widget looks the same in a hostile page: the page's inherited text styles and its custom properties stop at
// the shadow root, and only the documented theming properties (--rl-accent, --rl-background, --rl-font,
// --rl-mono, and color-scheme) reach inside.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { openReady } from './widget-helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

const HOSTILE = `
  body { color: red; font: italic 900 30px/3 serif; letter-spacing: 5px; word-spacing: 9px; text-align: right;
         white-space: pre; text-transform: uppercase; text-indent: 40px; text-shadow: 2px 2px red; cursor: wait; }
  * { --rl-internal-anything: red; --fg: red; --bg: red; --accent: red; --surface: red; --muted: red; --border: red;
      --blue: red; --mono: serif; --font: serif; --rl-fg: red; --rl-surface: red; --rl-muted: red; --rl-border: red;
      --rl-bg: red; --rl-blue: red; --rl-error: red; }
  rl-vector-lab { color: red; line-height: 3; font-family: serif; letter-spacing: 3px; }
`;

const PROPERTIES = [
  'color',
  'font-family',
  'font-size',
  'font-style',
  'font-weight',
  'line-height',
  'letter-spacing',
  'word-spacing',
  'text-align',
  'text-transform',
  'text-indent',
  'text-shadow',
  'white-space',
  'background-color',
  'border-top-color',
  'accent-color',
  'cursor',
];

/** Computed styles of the widget's host and of a heading, a hint, a label, a field, a button and a result cell. */
function styles(widget) {
  return widget.evaluate((element, properties) => {
    const root = element.shadowRoot;
    const parts = {
      host: element,
      heading: root.querySelector('h3'),
      hint: root.querySelector('.hint'),
      label: root.querySelector('label'),
      field: root.querySelector('input[type="text"]'),
      slider: root.querySelector('input[type="range"]'),
      button: root.querySelector('button'),
      cell: root.querySelector('td output'),
      link: root.querySelector('a'),
    };
    return Object.fromEntries(
      Object.entries(parts)
        .filter(([, el]) => el)
        .map(([name, el]) => {
          const computed = getComputedStyle(el);
          return [name, Object.fromEntries(properties.map((p) => [p, computed.getPropertyValue(p)]))];
        }),
    );
  }, PROPERTIES);
}

/** Adds a stylesheet to the page (a constructed one: the page's CSP allows no inline <style>). */
function adoptSheet(page, css) {
  return page.evaluate((text) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(text);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }, css);
}

test('hostile page styles change nothing inside a widget', async () => {
  const view = await openReady(lab, 'embed-example.html');
  const widget = view.page.locator('rl-vector-lab');
  const neutral = await styles(widget);
  assert.ok(neutral.field && neutral.button && neutral.cell && neutral.heading, 'the parts are there');
  assert.equal(neutral.host['font-size'], '16px');
  assert.equal(neutral.host['line-height'], '24px');
  await widget.screenshot({ path: 'test-results/screenshots/isolation-neutral.png' });

  await adoptSheet(view.page, HOSTILE);
  assert.equal(
    await view.page.evaluate(() => getComputedStyle(document.body).color),
    'rgb(255, 0, 0)',
    'the hostile sheet applies to the page',
  );
  assert.deepEqual(await styles(widget), neutral);
  // The page's own text above the widget (red, 30 px serif, spaced) and the widget, unchanged, below it.
  await view.page.evaluate(() =>
    window.scrollTo({
      top: document.querySelector('rl-vector-lab').getBoundingClientRect().top + window.scrollY - 450,
      behavior: 'instant',
    }),
  );
  await view.screenshot('isolation-hostile', view.page);
  await widget.screenshot({ path: 'test-results/screenshots/isolation-hostile-widget.png' });
  view.assertClean();
  await view.close();
});

test("the theming properties reach inside: accent, background, fonts, and the page's color-scheme", async () => {
  const view = await openReady(lab, 'embed-example.html');
  const widget = view.page.locator('rl-vector-lab');
  const neutral = await styles(widget);
  await adoptSheet(
    view.page,
    `rl-vector-lab { --rl-accent: rgb(200, 0, 100); --rl-background: rgb(250, 240, 220);
    --rl-font: Georgia, serif; --rl-mono: 'Courier New', monospace; }`,
  );
  const themed = await styles(widget);
  assert.equal(themed.slider['accent-color'], 'rgb(200, 0, 100)');
  assert.equal(themed.host['background-color'], 'rgb(250, 240, 220)');
  assert.equal(themed.heading['font-family'], 'Georgia, serif');
  assert.equal(themed.field['font-family'], '"Courier New", monospace');
  assert.equal(themed.button['color'], neutral.button['color'], 'the text colour is not a theming property');

  await adoptSheet(view.page, ':root { color-scheme: dark; }');
  const dark = await styles(widget);
  assert.equal(dark.host['background-color'], 'rgb(250, 240, 220)', '--rl-background holds in the dark too');
  assert.equal(dark.host['color'], 'rgb(232, 232, 228)', 'the dark text colour');
  await adoptSheet(view.page, 'rl-vector-lab { --rl-background: initial; }');
  assert.equal((await styles(widget)).host['background-color'], 'rgb(30, 34, 39)', 'the dark background');
  view.assertClean();
  await view.close();
});
