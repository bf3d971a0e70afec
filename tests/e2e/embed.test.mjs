// Embedding: attributes set a widget's example (read at start, followed when changed, refused with a message when
// unusable, the page address winning for the reader's own changes), and embed.html shows one widget alone in a
// frame, sized by embed-resize.js on the host page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGETS, widgetName } from '../../web/components/registry.js';
import { startLab } from './harness.mjs';
import { RUNNING_WIDGETS, eventually, expectText, rerun, textOf } from './widget-helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// Every widget, by the name embed.html takes.
const ALL_WIDGETS = WIDGETS.map(widgetName);

/** Adds `<tag ...attributes>` to the page (inside a `lang` wrapper when given) and waits for its first drawing. */
async function addWidget(page, tag, attributes, lang = null) {
  await page.evaluate(
    ({ tag, attributes, lang }) => {
      const element = document.createElement(tag);
      for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
      element.dataset.test = 'added';
      const parent = lang
        ? document.body.appendChild(Object.assign(document.createElement('div'), { lang }))
        : document.body;
      parent.append(element);
      element.scrollIntoView();
    },
    { tag, attributes, lang },
  );
  const widget = page.locator(`${tag}[data-test="added"]`);
  await eventually(
    () => widget.getAttribute('data-ready'),
    (ready) => ready !== null,
    `${tag} draws`,
    10000,
  );
  await widget.scrollIntoViewIfNeeded(); // experiment widgets compute near the viewport
  return widget;
}

const plainRatio = async (widget) =>
  Number(await widget.locator('[data-readout="plain"] data').first().getAttribute('value'));
const notice = (widget) => textOf(widget.locator('.notice'));

test('vector lab: x and eps from attributes are the example, computed by the kernels', async () => {
  const view = await lab.open('embed-example.html');
  const widget = await addWidget(view.page, 'rl-vector-lab', { x: '3, 4', eps: '0.001', 'url-state': 'off' });
  const $ = (label) => widget.getByLabel(label, { exact: true });
  assert.equal(await $('Input vector x').inputValue(), '3, 4');
  assert.equal(await $('Epsilon ε').inputValue(), '0.001');
  const rms = Math.sqrt((9 + 16) / 2 + 0.001); // RMSNorm: x / sqrt(mean(x^2) + eps)
  await expectText($('RMSNorm output'), `[${(3 / rms).toFixed(3)}, ${(4 / rms).toFixed(3)}]`, 'RMSNorm of [3, 4]');
  assert.equal(await notice(widget), '', 'no notice');
  view.assertClean();
  await view.close();
});

test('gradient flow: layers and gain attributes, then changed by a script: the widget follows and its controls show it', async () => {
  const view = await lab.open('embed-example.html');
  const widget = await addWidget(view.page, 'rl-gradient-flow', { layers: '16', gain: '0.9', 'url-state': 'off' });
  await eventually(
    () => widget.getAttribute('data-status'),
    (status) => status === 'done',
    'first run',
    20000,
  );
  assert.equal(await widget.getByLabel('Layers L', { exact: true }).inputValue(), '16');
  assert.ok(Math.abs((await plainRatio(widget)) / 0.9 ** 16 - 1) < 1e-3, 'gain^L = 0.9^16 without residuals');

  await rerun(widget, () =>
    widget.evaluate((el) => {
      el.setAttribute('layers', '8');
      el.setAttribute('gain', '0.5');
    }),
  );
  assert.equal(
    await widget.getByLabel('Layers L', { exact: true }).inputValue(),
    '8',
    'the slider shows the new value',
  );
  assert.ok(
    Math.abs((await plainRatio(widget)) / 0.5 ** 8 - 1) < 1e-3,
    `0.5^8 after the change: ${await plainRatio(widget)}`,
  );

  await rerun(widget, () => widget.evaluate((el) => el.removeAttribute('gain'))); // back to the state table's default
  const defaultGain = await widget.evaluate((el) => el.row('gain').default);
  assert.equal(await widget.evaluate((el) => el.state.gain), defaultGain);
  assert.ok(
    Math.abs((await plainRatio(widget)) / defaultGain ** 8 - 1) < 1e-3,
    'a removed attribute gives the default back',
  );
  view.assertClean();
  await view.close();
});

test('an unusable attribute is named in the notice, in both languages, and changes nothing', async () => {
  const view = await lab.open('embed-example.html');
  const en = await addWidget(view.page, 'rl-softcap-explorer', { cap: 'abc', 'url-state': 'off' });
  assert.equal(
    await notice(en),
    'The attribute cap="abc" is not usable (expected a number from 0.01 to 1000); it is ignored.',
  );
  assert.equal(await en.getByLabel('Cap c', { exact: true }).inputValue(), '30', 'the default stays');
  await en.evaluate((el) => el.setAttribute('cap', '50'));
  await eventually(
    () => en.getByLabel('Cap c', { exact: true }).inputValue(),
    (value) => value === '50',
    'a good value is followed',
  );
  assert.equal(await notice(en), '', 'and the notice goes');

  const zh = await addWidget(view.page, 'rl-vector-lab', { x: '1, oops', 'url-state': 'off' }, 'zh-CN');
  assert.match(await notice(zh), /^属性 x="1, oops" 无法使用（“o”不是数字的一部分（第 4 个字符））.*已忽略。$/);
  assert.equal(await zh.getByLabel('输入向量 x', { exact: true }).inputValue(), '2, -1, 3, 0');
  await zh.evaluate((el) => el.setAttribute('eps', '-1'));
  await eventually(
    () => notice(zh),
    (text) => text.includes('属性 eps="-1" 无法使用'),
    'a bad change after start is named',
  );
  assert.equal(
    await zh.getByLabel('小常数 ε', { exact: true }).inputValue(),
    '0.00001',
    'and the widget keeps its value',
  );
  view.assertClean();
  await view.close();
});

test('the page address wins over the attributes for what the reader changed; only changes are written to it', async () => {
  const view = await lab.open('embed-example.html?att.x=5%2C12');
  const widget = await addWidget(view.page, 'rl-vector-lab', { 'state-key': 'att', x: '3, 4', eps: '0.001' });
  const $ = (label) => widget.getByLabel(label, { exact: true });
  assert.equal(await $('Input vector x').inputValue(), '5,12', 'the link holds what the reader saw');
  assert.equal(await $('Epsilon ε').inputValue(), '0.001', 'the attribute sets what the link does not');
  await $('Input vector x').fill('3, 4'); // back to the attribute's example: nothing to keep in the address
  await eventually(
    () => new URL(view.page.url()).searchParams.has('att.x'),
    (has) => !has,
    'the example is not written to the address',
  );
  await $('Epsilon ε').fill('0.00001'); // the table's default, but not this example's: it is the reader's change
  await eventually(
    () => new URL(view.page.url()).searchParams.get('att.eps'),
    (eps) => eps === '0.00001',
    'a change from the example is',
  );
  await widget.evaluate((el) => el.setAttribute('eps', '0.01')); // a script sets the example again: it applies
  await eventually(
    () => $('Epsilon ε').inputValue(),
    (value) => value === '0.01',
    'the field follows the attribute',
  );
  await eventually(
    () => new URL(view.page.url()).searchParams.has('att.eps'),
    (has) => !has,
    'and the address drops the key',
  );
  view.assertClean();
  await view.close();
});

test('every widget follows an attribute changed after its first drawing, without an error', async () => {
  const view = await lab.open('embed-example.html');
  // Each widget's example (registry.js), set after its first drawing: every attribute of it differs from the default.
  // What the control of that setting shows (a select, a text field, a radio group or a checkbox of that name).
  const shownByControl = (widget, name) =>
    widget.evaluate((el, name) => {
      const controls = [...el.shadowRoot.querySelectorAll(`[name="${name}"]`)];
      if (!controls.length) return undefined;
      if (controls[0].type === 'radio') return controls.find((c) => c.checked)?.value;
      if (controls[0].type === 'checkbox') return controls[0].checked;
      return controls[0].value;
    }, name);
  // The state row an attribute sets, shown as an attribute's text (a list as its numbers joined by ", ").
  const stateOf = (widget, attribute) =>
    widget.evaluate((el, attribute) => {
      const row = el.stateTable.find((r) => r.name.replace(/[A-Z]+/g, (c) => `-${c.toLowerCase()}`) === attribute); // state.js attributeName
      return row && String(el.state[row.name]);
    }, attribute);
  for (const { tag, example } of WIDGETS) {
    assert.ok(Object.keys(example).length > 0, `${tag}: registry.js gives an example`);
    const widget = await addWidget(view.page, tag, { 'url-state': 'off' });
    for (const [attribute, value] of Object.entries(example)) {
      assert.notEqual(await stateOf(widget, attribute), value, `${tag}: ${attribute} starts elsewhere`);
      await widget.evaluate((el, [attribute, value]) => el.setAttribute(attribute, value), [attribute, value]);
      await eventually(
        () => stateOf(widget, attribute),
        (shown) => shown === value,
        `${tag} ${attribute}`,
      );
      const control = await shownByControl(widget, attribute);
      if (control !== undefined) assert.equal(String(control), value, `${tag}: the ${attribute} control shows it`);
    }
    assert.equal(await notice(widget), '', `${tag}: no notice`);
    await widget.evaluate((el) => el.remove());
  }
  view.assertClean();
  await view.close();
});

test('embed.html shows one widget with its settings from the address, in either language', async () => {
  const view = await lab.open('embed.html?widget=vector-lab&x=3,4&eps=0');
  const widget = view.page.locator('rl-vector-lab');
  await eventually(
    () => widget.getAttribute('data-ready'),
    (ready) => ready !== null,
    'drawn',
  );
  assert.equal(await widget.getByLabel('Input vector x', { exact: true }).inputValue(), '3,4');
  await expectText(widget.getByLabel('RMSNorm output', { exact: true }), '[0.849, 1.131]', 'RMSNorm of [3, 4]'); // x / sqrt(12.5)
  await widget.getByLabel('Input vector x', { exact: true }).fill('6, 8');
  await eventually(
    () => new URL(view.page.url()).searchParams.get('x'),
    (x) => x === '6, 8',
    "the reader's change in the frame's own address",
  );
  assert.equal(await view.page.title(), 'Residual Lab: vector-lab');
  await view.screenshot('embed-vector-lab', view.page);
  view.assertClean();
  await view.close();

  const zh = await lab.open('embed.html?widget=gradient-flow&layers=8&gain=0.5&lang=zh');
  const flow = zh.page.locator('rl-gradient-flow');
  await eventually(
    () => flow.getAttribute('data-status'),
    (status) => status === 'done',
    'computed',
    20000,
  );
  assert.equal(await zh.page.locator('html').getAttribute('lang'), 'zh-CN');
  assert.equal(await flow.getByLabel('层数 L', { exact: true }).inputValue(), '8');
  assert.ok(Math.abs((await plainRatio(flow)) / 0.5 ** 8 - 1) < 1e-3, '0.5^8');
  zh.assertClean();
  await zh.close();
});

test('the documented setting names (max-gain, d-head) work in embed.html and page links; unknown and invalid keys are named', async () => {
  const view = await lab.open('embed.html?widget=qk-norm-lab&max-gain=32&d-head=64');
  const qk = view.page.locator('rl-qk-norm-lab');
  await eventually(
    () => qk.getAttribute('data-ready'),
    (ready) => ready !== null,
    'drawn',
    20000,
  );
  assert.deepEqual(
    [await qk.locator('#field-max-gain').inputValue(), await qk.locator('#field-d-head').inputValue()],
    ['32', '64'],
  );
  assert.equal(await notice(qk), '', 'no notice');
  view.assertClean();
  await view.close();

  const bad = await lab.open('embed.html?widget=qk-norm-lab&max-gain=abc&maxgain=32&lang=en');
  const badQk = bad.page.locator('rl-qk-norm-lab');
  await eventually(
    () => badQk.getAttribute('data-ready'),
    (ready) => ready !== null,
    'drawn',
    20000,
  );
  const said = await notice(badQk);
  assert.match(said, /max-gain="abc" is not usable/);
  assert.match(said, /maxgain="32" is not a setting of this widget \(its settings: [^)]*max-gain/);
  assert.equal(await badQk.locator('#field-max-gain').inputValue(), '64', 'the default stays');
  bad.assertClean();
  await bad.close();

  const page = await lab.open('en/index.html?qk.max-gain=32&qk.zero=1');
  const onPage = page.page.locator('rl-qk-norm-lab');
  await eventually(
    () => onPage.getAttribute('data-ready'),
    (ready) => ready !== null,
    'drawn',
    20000,
  );
  assert.equal(await onPage.locator('#field-max-gain').inputValue(), '32');
  assert.match(await notice(onPage), /qk\.zero="1" is not a setting of this widget/);
  page.assertClean();
  await page.close();
});

test('embed.html with an unknown widget lists the widgets', async () => {
  const view = await lab.open('embed.html?widget=vector-labb');
  const message = view.page.getByRole('alert');
  assert.match(await textOf(message), /^There is no widget called "vector-labb"\. The widgets:/);
  assert.deepEqual((await message.getByRole('listitem').allInnerTexts()).sort(), [...ALL_WIDGETS].sort());
  await message.getByRole('link', { name: 'gemma-trap' }).click();
  await eventually(
    () => view.page.locator('rl-gemma-trap').getAttribute('data-ready'),
    (ready) => ready !== null,
    'the link opens that widget',
  );
  view.assertClean();
  await view.close();
});

test("a frame takes its widget's height through embed-resize.js; the frame height of registry.js holds each widget at 800 px", async () => {
  const view = await lab.open('embed-frame-example.html');
  const frame = view.page.locator('iframe.lab-frame').first();
  await frame.scrollIntoViewIfNeeded();
  const inner = view.page.frameLocator('iframe.lab-frame').first();
  await eventually(
    () => inner.locator('[data-ready]').count(),
    (n) => n === 1,
    'the framed widget draws',
    20000,
  );
  const innerHeight = () => inner.locator('body').evaluate((body) => Math.ceil(body.getBoundingClientRect().height));
  await eventually(
    async () => [await frame.evaluate((el) => el.clientHeight), await innerHeight()],
    ([outer, content]) => outer === content && content > 300,
    'the frame is as tall as its widget',
  );
  await view.screenshot('embed-frame-example', {
    screenshot: (options) => view.page.screenshot({ ...options, fullPage: true }),
  });
  view.assertClean();
  await view.close();

  for (const row of WIDGETS) {
    const name = widgetName(row);
    const page = await lab.open(`embed.html?widget=${name}`, { viewport: { width: 800, height: row.frameHeight } });
    const widget = page.page.locator(row.tag);
    await eventually(
      () => widget.getAttribute('data-ready'),
      (ready) => ready !== null,
      `${name} draws`,
      20000,
    );
    if (RUNNING_WIDGETS.includes(row.tag))
      await eventually(
        () => widget.getAttribute('data-status'),
        (status) => status === 'done',
        `${name} computes`,
        30000,
      );
    await page.page.waitForTimeout(200);
    const height = await page.page.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
    console.log(`# ${name}: ${height} px at 800 px`);
    assert.ok(height <= row.frameHeight, `${name}: ${height} px is more than its frame height ${row.frameHeight}`);
    page.assertClean();
    await page.close();
  }
});

test("fallbacks: the tag's sentence without JavaScript, a note without WASM SIMD, a message without WebAssembly", async () => {
  const context = await lab.browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(new URL('en/index.html', lab.url).href);
  // A section far from view has no rendered text until the reader nears it (content-visibility in page.css).
  await page.locator('rl-gradient-flow').scrollIntoViewIfNeeded();
  await expectText(
    page.locator('rl-gradient-flow'),
    "Interactive figure: the gradient norm at every layer of a deep stack, with and without residual connections (the chapter's 0.8^32 ≈ 0.0008).",
    'the fallback sentence',
  );
  await page.goto(new URL('index.html', lab.url).href);
  await page.locator('rl-vector-lab').scrollIntoViewIfNeeded();
  await eventually(
    () => textOf(page.locator('rl-vector-lab')),
    (text) => /^交互图：对你编辑的向量做 RMSNorm 和 LayerNorm/.test(text),
    'the fallback sentence in Chinese',
  );
  await context.close();

  // The engine refuses the SIMD probe: the scalar build computes the same worked example, and says so.
  const scalar = await lab.open('embed-example.html', {
    initScript: () => {
      WebAssembly.validate = () => false;
    },
  });
  const widget = scalar.page.locator('rl-vector-lab');
  await eventually(
    () => widget.getAttribute('data-ready'),
    (ready) => ready !== null,
    'drawn',
  );
  await widget.getByLabel('Input vector x', { exact: true }).fill('2, -1, 3, 0');
  await expectText(widget.getByLabel('RMSNorm output', { exact: true }), '[1.069, -0.535, 1.604, 0]', 'scalar build');
  assert.equal(
    await textOf(widget.locator('.flavour-note')),
    'Running without WebAssembly SIMD (this browser lacks it): the same results, computed more slowly.',
  );
  assert.equal(
    await scalar.page.evaluate(async () => (await import('./lib/residual-lab.js').then((m) => m.load())).flavour),
    'scalar',
  );
  assert.match(
    await textOf(scalar.page.locator('rl-softcap-explorer').locator('.flavour-note')),
    /^当前浏览器不支持 WebAssembly SIMD/,
  );
  scalar.assertClean();
  await scalar.close();

  const simd = await lab.open('embed-example.html');
  await eventually(
    () => simd.page.locator('rl-vector-lab').getAttribute('data-ready'),
    (ready) => ready !== null,
    'drawn',
  );
  assert.equal(await simd.page.locator('rl-vector-lab').locator('.flavour-note').count(), 0, 'no note where SIMD runs');
  await simd.close();

  const none = await lab.open('embed-example.html', {
    initScript: () => {
      delete globalThis.WebAssembly;
    },
  });
  const stranded = none.page.locator('rl-vector-lab');
  await eventually(
    () => stranded.getAttribute('data-unavailable'),
    (value) => value === 'webassembly',
    'the widget gives up',
  );
  assert.equal(
    await textOf(stranded.locator('.notice')),
    'This interactive figure needs WebAssembly, which this browser does not provide or has turned off. The text around it explains what the figure shows.',
  );
  assert.equal(
    await stranded.locator('.fallback slot').evaluate((slot) =>
      slot
        .assignedNodes()
        .map((n) => n.textContent)
        .join(''),
    ),
    'RMSNorm and LayerNorm of a vector you edit.',
    "the tag's own sentence shows under it",
  );
  assert.match(
    await textOf(none.page.locator('rl-softcap-explorer').locator('.notice')),
    /^这个交互图需要 WebAssembly/,
  );
  await none.screenshot('embed-example-no-webassembly', none.page);
  none.assertClean();
  await none.close();
});
