// The share menu at the foot of every widget: links and snippets copied to the clipboard (and the fallback field
// when the browser refuses), charts saved as PNG, SVG and CSV, tables as CSV. The saved data are checked against
// values computed here (RMSNorm of the typed vector, c * tanh(x / c)), the SVG is parsed, the PNG's size read from
// its header.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startLab } from './harness.mjs';
import { widgetOf } from '../../web/components/registry.js';
import { EN, ZH, eventually, openReady, screenshotWidget, textOf } from './widget-helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

const parseCsv = (text) =>
  text
    .trim()
    .split(/\r\n/)
    .map((line) => line.split(','));
// Lines of fields, quoted ones (RFC 4180: a comma inside, "" for a quote) read whole.
const parseQuotedCsv = (text) =>
  text
    .trim()
    .split(/\r\n/)
    .map((line) =>
      [...line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)].map(([, field]) =>
        field.startsWith('"') ? field.slice(1, -1).replace(/""/g, '"') : field,
      ),
    );

async function saved(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
}

async function clipboard(page) {
  return page.evaluate(() => navigator.clipboard.readText());
}

test('vector lab: link, iframe and tag snippets carry the current settings; the bars save as CSV, SVG and PNG', async () => {
  const view = await openReady(lab, EN);
  const { page } = view;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(lab.url).origin });
  const widget = page.locator('rl-vector-lab').first();
  await widget.getByLabel('Input vector x', { exact: true }).fill('3, 4');
  const menu = widget.locator('details.share-menu');
  await menu.locator('summary').focus();
  await page.keyboard.press('Enter'); // a <details> opens from the keyboard
  assert.equal(await menu.evaluate((d) => d.open), true);

  await menu.getByRole('button', { name: 'Copy link' }).click();
  const link = new URL(
    await eventually(
      () => clipboard(page),
      (text) => text.startsWith('http'),
      'copied link',
    ),
  );
  assert.equal(link.pathname, '/en/index.html');
  assert.equal(link.searchParams.get('vec.x'), '3, 4');

  await menu.getByRole('button', { name: 'Copy iframe code' }).click();
  const iframe = await eventually(
    () => clipboard(page),
    (text) => text.startsWith('<iframe'),
    'copied iframe',
  );
  const src = new URL(iframe.match(/src="([^"]+)"/)[1].replace(/&amp;/g, '&'));
  assert.equal(src.pathname, '/embed.html');
  assert.deepEqual(
    [...src.searchParams],
    [
      ['widget', 'vector-lab'],
      ['x', '3, 4'],
      ['lang', 'en'],
    ],
  );
  // Tall enough for the widget without embed-resize.js: the vector lab's frame height
  assert.equal(
    iframe.match(/ height="(\d+)"/)?.[1],
    String(widgetOf('rl-vector-lab').frameHeight),
    'the frame height of registry.js',
  );

  // The iframe's address opens the embed page with those settings: RMSNorm of (3, 4)
  const framed = await page.context().newPage();
  await framed.goto(src.href);
  await framed.waitForSelector('rl-vector-lab[data-ready]');
  assert.equal(await framed.locator('rl-vector-lab output[aria-labelledby="row-rms"]').innerText(), '[0.849, 1.131]');
  await framed.close();

  await menu.getByRole('button', { name: 'Copy tag code' }).click();
  assert.equal(
    await eventually(
      () => clipboard(page),
      (text) => text.startsWith('<rl-'),
      'copied tag',
    ),
    '<rl-vector-lab x="3, 4"></rl-vector-lab>',
  );

  // Outputs: RMSNorm of (3, 4) is x / sqrt(12.5 + eps); LayerNorm is (x - 3.5) / sqrt(0.25 + eps) = -1, 1.
  const outputs = await saved(page, menu.getByRole('button', { name: 'Save Bar chart of the outputs as CSV' }));
  assert.equal(outputs.name, 'rl-vector-lab-chart-2.csv');
  const rows = parseCsv(outputs.bytes.toString('utf8'));
  assert.deepEqual(
    rows.map((r) => r[0]),
    ['', 'x1', 'x2'],
  );
  assert.deepEqual(rows[0].slice(1), ['RMSNorm output', 'LayerNorm output']);
  assert.equal(rows.length, 3);
  const rms = Math.sqrt(12.5 + 1e-5);
  assert.ok(
    Math.abs(Number(rows[1][1]) - 3 / rms) < 1e-6 && Math.abs(Number(rows[2][1]) - 4 / rms) < 1e-6,
    `RMSNorm column ${rows.map((r) => r[1])}`,
  );
  assert.ok(
    Math.abs(Number(rows[1][2]) + 1) < 1e-4 && Math.abs(Number(rows[2][2]) - 1) < 1e-4,
    `LayerNorm column ${rows.map((r) => r[2])}`,
  );

  const svg = await saved(page, menu.getByRole('button', { name: 'Save Bar chart of the outputs as SVG' }));
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const root = doc.documentElement;
    const fillOf = (selector) => [...doc.querySelectorAll(selector)].map((el) => el.getAttribute('fill'));
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      bars: doc.querySelectorAll('rect.bar').length,
      fill: doc.querySelector('rect.bar')?.getAttribute('fill'),
      title: doc.querySelector('title')?.textContent,
      width: Number(root.getAttribute('width')),
      height: Number(root.getAttribute('height')),
      legend: [...doc.querySelectorAll('.legend text')].map((t) => t.textContent),
      swatches: fillOf('.legend rect'),
      barFills: [fillOf('rect.bar.series-rms')[0], fillOf('rect.bar.series-ln')[0]],
    };
  }, svg.bytes.toString('utf8'));
  assert.equal(parsed.error, null);
  assert.equal(parsed.bars, 4); // two outputs (RMSNorm, LayerNorm) for each of two dimensions
  assert.match(parsed.fill, /^rgb/);
  // a legend names each colour: the swatches have the bars' fills
  assert.deepEqual(parsed.legend, ['RMSNorm output', 'LayerNorm output']);
  assert.deepEqual(parsed.swatches, parsed.barFills);
  assert.notEqual(parsed.barFills[0], parsed.barFills[1]);
  assert.equal(parsed.title, 'Bar chart of the outputs');

  const png = await saved(page, menu.getByRole('button', { name: 'Save Bar chart of the outputs as PNG' }));
  assert.equal(png.bytes.subarray(1, 4).toString('latin1'), 'PNG');
  // the SVG file (the chart as wide as on screen, its title above and legend below), twice
  const [, , boxWidth] = (
    await page.locator('rl-vector-lab svg.bar-chart[aria-label="Bar chart of the outputs"]').getAttribute('viewBox')
  )
    .split(/\s+/)
    .map(Number);
  assert.equal(parsed.width, boxWidth);
  assert.ok(parsed.height > 200, `the legend and the title below and above the 200-px chart: ${parsed.height}`);
  assert.deepEqual([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)], [parsed.width * 2, parsed.height * 2]);

  const table = await saved(page, menu.getByRole('button', { name: 'Save Table 1 as CSV' }));
  assert.match(table.bytes.toString('utf8'), /^x × s,"\[3, 4\]"/);
  await screenshotWidget(view, widget, 'share-menu-vector-lab-en');
  view.assertClean();
  await view.close();
});

// Deterministic pseudo-random values (a reader's pasted data compresses no better).
const noisy = (count, digits) =>
  Array.from({ length: count }, (_, i) => ((Math.sin((i + 1) * 12.9898) * 43758.5453) % 1).toFixed(digits)).join(', ');

test('a long vector and a long config travel in the copied link, which opens at the widget; one too long for any link is refused in words', async () => {
  const view = await openReady(lab, EN);
  const { page } = view;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(lab.url).origin });
  const copyLink = async (widget, done) => {
    const menu = widget.locator('details.share-menu');
    if (!(await menu.evaluate((d) => d.open))) await menu.locator('summary').click();
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await menu.getByRole('button', { name: 'Copy link' }).click();
    return eventually(
      () => (done === 'status' ? textOf(menu.locator('.share-status')) : clipboard(page)),
      Boolean,
      'copied',
    );
  };

  const vector = page.locator('rl-vector-lab').first();
  const x = noisy(1000, 4);
  await vector.getByLabel('Input vector x', { exact: true }).fill(x);
  const link = await copyLink(vector);
  assert.ok(link.length < 8000, `${link.length} characters`);
  assert.equal(new URL(link).hash, '#rl-vec', 'the link opens at the widget');

  const inspector = page.locator('rl-config-inspector');
  const field = inspector.getByLabel(/config\.json/).first();
  const config = JSON.stringify({ ...JSON.parse(await field.inputValue()), _comment: noisy(700, 3) }, null, 2);
  assert.ok(config.length > 5000, `${config.length} characters`);
  await field.fill(config);
  const configLink = await copyLink(inspector);
  assert.equal(new URL(configLink).hash, '#rl-cfg');

  const opened = await lab.open(new URL(link).pathname.slice(1) + new URL(link).search + new URL(link).hash);
  const there = opened.page.locator('rl-vector-lab').first();
  await eventually(
    () => there.getAttribute('data-ready'),
    (ready) => ready !== null,
    'drawn',
    20000,
  );
  assert.equal(await there.getByLabel('Input vector x', { exact: true }).inputValue(), x);
  const top = await eventually(
    () => there.evaluate((el) => el.getBoundingClientRect().top),
    (y) => y >= -1 && y < 400,
    'scrolled to the widget',
  );
  assert.ok(top < 400);
  opened.assertClean();
  await opened.close();

  const openedConfig = await lab.open(new URL(configLink).pathname.slice(1) + new URL(configLink).search);
  const inspectorThere = openedConfig.page.locator('rl-config-inspector');
  await eventually(
    () => inspectorThere.getAttribute('data-ready'),
    (ready) => ready !== null,
    'drawn',
    20000,
  );
  assert.equal(
    await inspectorThere
      .getByLabel(/config\.json/)
      .first()
      .inputValue(),
    config,
  );
  openedConfig.assertClean();
  await openedConfig.close();

  // 2,000 values of 8 digits: no compression brings them under a link's 8,000 characters.
  await vector.getByLabel('Input vector x', { exact: true }).fill(noisy(2000, 8));
  const refused = await copyLink(vector, 'status');
  assert.match(
    refused,
    /^These settings are too long for a link \([\d,]+ characters, more than 8,000\), so nothing was copied/,
  );
  assert.equal(await clipboard(page), '', 'nothing copied');
  view.assertClean();
  await view.close();
});

test('soft-cap explorer: the uPlot curve saves its series as CSV, a parsable SVG and a PNG of the canvas size', async () => {
  const view = await openReady(lab, EN);
  const { page } = view;
  const widget = page.locator('rl-softcap-explorer');
  const cap = Number(await widget.getByLabel(/cap c/i).first().inputValue());
  const menu = widget.locator('details.share-menu');
  await menu.locator('summary').click();
  const buttons = menu.getByRole('button', { name: /as CSV/ });
  const csv = parseCsv((await saved(page, buttons.first())).bytes.toString('utf8'));
  const header = csv[0];
  const softcapColumn = header.length - 1;
  assert.equal(header[0], 'x');
  assert.ok(csv.length > 50, `${csv.length} rows`);
  for (const row of csv.slice(1)) {
    const x = Number(row[0]);
    const expected = cap * Math.tanh(x / cap);
    assert.ok(
      Math.abs(Number(row[softcapColumn]) - expected) <= 1e-5 * Math.max(1, Math.abs(expected)),
      `x = ${x}: ${row[softcapColumn]} vs ${expected}`,
    );
  }
  const svgButton = menu.getByRole('button', { name: /as SVG/ }).first();
  const svgText = (await saved(page, svgButton)).bytes.toString('utf8');
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      lines: doc.querySelectorAll('polyline').length,
      texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
    };
  }, svgText);
  assert.equal(parsed.error, null);
  assert.equal(parsed.lines, header.length - 1);
  assert.ok(parsed.texts.includes(header[softcapColumn]), 'the legend names the soft-cap series');

  const png = (await saved(page, menu.getByRole('button', { name: /as PNG/ }).first())).bytes;
  const canvas = await widget.evaluate((el) => {
    const c = el.shadowRoot.querySelector('.line-chart canvas');
    return { width: c.width, height: c.height, ratio: c.width / c.getBoundingClientRect().width };
  });
  // the canvas with the chart's label above (lines of 16 px and 10 px of space) and a legend strip below (24 px),
  // at the canvas's pixel ratio
  assert.equal(png.readUInt32BE(16), canvas.width);
  const title = png.readUInt32BE(20) - canvas.height - Math.round(24 * canvas.ratio);
  assert.ok(
    [1, 2, 3].some((lines) => title === Math.round((10 + 16 * lines) * canvas.ratio)),
    `a title of whole lines above the chart: ${title} px`,
  );
  view.assertClean();
  await view.close();
});

test('gradient flow: the CSV holds the norms themselves, the SVG axis reads 10^k, the title follows the settings, no legend table', async () => {
  const view = await openReady(lab, EN);
  const { page } = view;
  const widget = page.locator('rl-gradient-flow');
  await widget.scrollIntoViewIfNeeded();
  const done = () =>
    eventually(
      () => widget.getAttribute('data-status'),
      (status) => status === 'done',
      'gradient flow finishes',
      30000,
    );
  await done();
  await widget.evaluate((el) => {
    el.dataset.status = 'stale';
  });
  await widget.getByRole('button', { name: '0.8 × 32 layers' }).click();
  await done();
  const menu = widget.locator('details.share-menu');
  await menu.locator('summary').click();
  assert.equal(
    await menu.getByRole('button', { name: /Save Table/ }).count(),
    0,
    'the chart legend is not offered as a table',
  );

  const csv = parseQuotedCsv(
    (await saved(page, menu.getByRole('button', { name: /as CSV/ }).first())).bytes.toString('utf8'),
  );
  const [header, ...rows] = csv;
  assert.equal(header.length, 4, `x and three curves: ${header}`);
  assert.match(header[0], /^layer l/);
  assert.deepEqual(
    header.slice(1).map((name) => name.split(':')[0]),
    ['without residual', 'with residual', 'gain^(L−l)'],
  );
  assert.ok(
    header.slice(1).every((name) => name.includes('gradient norm')),
    `the quantity in every header: ${header}`,
  );
  const row0 = rows.find((row) => row[0] === '0');
  const top = rows.find((row) => row[0] === '32');
  // layer 0 without residuals gets 0.8^32 = 7.9e-4 of the top's gradient; the formula column is exactly that
  assert.ok(
    Math.abs(Number(row0[1]) / Number(top[1]) / 0.8 ** 32 - 1) < 1e-3,
    `plain, layer 0: ${row0[1]} (top ${top[1]})`,
  );
  assert.ok(Math.abs(Number(row0[3]) / 0.8 ** 32 - 1) < 1e-9, `formula, layer 0: ${row0[3]}`);

  const svgText = (await saved(page, menu.getByRole('button', { name: /as SVG/ }).first())).bytes.toString('utf8');
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const heading = [...doc.querySelectorAll('text')].find((t) => t.querySelector('tspan'));
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      title: doc.querySelector('title')?.textContent,
      heading: [...heading.querySelectorAll('tspan')].map((t) => t.textContent).join(' '),
      texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
    };
  }, svgText);
  assert.equal(parsed.error, null);
  const yLabels = parsed.texts.filter((t) => /^(1|10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$/.test(t));
  assert.ok(
    yLabels.length >= 2 && yLabels.some((t) => t.startsWith('10⁻')),
    `powers of ten on the y axis: ${parsed.texts}`,
  );
  assert.ok(!parsed.texts.some((t) => /^-\d+$/.test(t)), `no log10 exponents as labels: ${parsed.texts}`);
  assert.match(parsed.title, /32 layers with gain 0\.8/, 'the title has the current settings');
  assert.equal(parsed.heading, parsed.title, 'and shows them above the chart');
  assert.ok(
    ['without residual', 'with residual'].every((name) => parsed.texts.includes(name)),
    'a legend',
  );
  view.assertClean();
  await view.close();
});

test('a refused clipboard shows the text selected in a field; the menu speaks Chinese on the Chinese page', async () => {
  const view = await openReady(lab, ZH, {
    initScript: () => {
      navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));
    },
  });
  const widget = view.page.locator('rl-gemma-trap');
  const menu = widget.locator('details.share-menu');
  assert.equal((await menu.locator('summary').innerText()).trim(), '分享与导出');
  await menu.locator('summary').click();
  await menu.getByRole('button', { name: '复制标签代码' }).click();
  const field = menu.getByLabel('要复制的文字');
  await eventually(() => field.isVisible(), Boolean, 'fallback field shown');
  assert.equal(await field.inputValue(), '<rl-gemma-trap lang="zh"></rl-gemma-trap>');
  const selected = await widget.evaluate((el) => {
    const f = el.shadowRoot.querySelector('.share-fallback');
    return f.value.slice(f.selectionStart, f.selectionEnd);
  });
  assert.equal(selected, '<rl-gemma-trap lang="zh"></rl-gemma-trap>');
  assert.match(await menu.locator('.share-status').innerText(), /Ctrl\+C/);
  // a line chart's CSV joins each series' name and its quantity with the page's colon
  const header = await eventually(
    () =>
      view.page
        .locator('rl-gradient-flow')
        .evaluate((el) => el.shadowRoot.querySelector('.line-chart').chartExport.csv().split('\r\n')[0])
        .catch(() => ''),
    (line) => line.includes('：'),
    'the gradient-flow chart drawn, its CSV header in Chinese',
  );
  assert.doesNotMatch(header, /: /, header);
  view.assertClean();
  await view.close();
});
