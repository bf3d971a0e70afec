// The pure parts of sharing and the offline build: CSV quoting and axis ticks of the chart exports, the CORS
// headers of the development server, and the offline file's policy (hashes of exactly its inline code).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csvLine, csvText, lineChartExport, linearTicks } from '../../web/components/shared/chart-export.js';
import { offlinePolicy } from '../../scripts/offline.mjs';
import { startServer } from '../../scripts/serve.mjs';

test('CSV fields with a comma, quote or line break are quoted; lines end in CRLF', () => {
  assert.equal(csvLine(['x', 'a, b', 'say "hi"', 'two\nlines', 1.5, null]), 'x,"a, b","say ""hi""","two\nlines",1.5,');
  assert.equal(
    csvText([
      ['x', 'y'],
      [1, 2],
    ]),
    'x,y\r\n1,2\r\n',
  );
});

test('linear ticks are round steps (1, 2 or 5 times a power of ten) inside the range', () => {
  assert.deepEqual(linearTicks(0, 10), [0, 2, 4, 6, 8, 10]);
  assert.deepEqual(linearTicks(-200, 200), [-200, -100, 0, 100, 200]);
  assert.deepEqual(linearTicks(0.1, 0.35), [0.1, 0.15, 0.2, 0.25, 0.3, 0.35]);
});

// A chart as uPlot leaves it after drawing: gradient norms 10^-2 .. 10^2 plotted as log10 on a linear scale, with
// the ticks and labels its log axis drew (shared/log-axis.js).
function loggedChart(label = 'gradient norms, 32 layers') {
  const norms = [0.01, 1, 100];
  const plot = {
    series: [{ label: 'l' }, { label: 'without residuals', stroke: '#d55e00' }],
    axes: [{ label: 'layer l' }, { _splits: [-2, 0, 2], _values: ['10⁻²', '1', '10²'] }],
    scales: { x: { min: 0, max: 2 }, y: { min: -2, max: 2 } },
  };
  const data = [[0, 1, 2], norms.map(Math.log10)];
  return {
    norms,
    exporter: lineChartExport({
      label,
      getLabel: () => label,
      getPlot: () => plot,
      getData: () => data,
      log10: true,
      quantity: 'gradient norm',
    }),
  };
}

test('a chart plotted as log10 saves the quantity itself, named with its quantity, and its axis as drawn', () => {
  const { norms, exporter } = loggedChart();
  const rows = exporter
    .csv()
    .trim()
    .split('\r\n')
    .map((line) => line.split(','));
  assert.deepEqual(rows[0], ['layer l', 'without residuals: gradient norm']);
  rows
    .slice(1)
    .forEach((row, r) =>
      assert.ok(Math.abs(Number(row[1]) - norms[r]) <= 1e-12 * norms[r], `${row[1]} is ${norms[r]}`),
    );
  const svg = exporter.svg();
  for (const label of ['10⁻²', '1', '10²'])
    assert.match(svg, new RegExp(`>${label}</text>`), `the y axis reads ${label}`);
  assert.doesNotMatch(svg, />-2<\/text>/, 'no log10 exponents as values');
  assert.match(svg, /<title>gradient norms, 32 layers<\/title>/);
  assert.match(svg, />without residuals<\/text>/, 'the legend names the series');
});

test('the development server lets any origin read the lab files (CORS), as a cross-origin module script needs', async () => {
  const site = mkdtempSync(join(tmpdir(), 'rl-cors-'));
  writeFileSync(join(site, 'a.js'), 'export {};');
  const { server, url } = await startServer({ siteRoot: site, port: 0 });
  try {
    const response = await fetch(new URL('a.js', url), { headers: { Origin: 'http://localhost:9999' } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.equal(response.headers.get('cross-origin-resource-policy'), 'cross-origin');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('the offline policy allows its inline code by sha256 and nothing else that runs', () => {
  const policy = offlinePolicy({ scripts: ['a()', 'b()'], styles: ['p{}'] });
  const hash = (text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  assert.match(
    policy,
    new RegExp(`script-src ${hash('a()')} ${hash('b()')} 'wasm-unsafe-eval'(;|$)`.replace(/[+/]/g, '\\$&')),
  );
  assert.ok(policy.includes(`style-src ${hash('p{}')};`));
  assert.ok(policy.includes('worker-src blob:') && policy.includes("default-src 'none'"));
  assert.doesNotMatch(policy, /'unsafe-eval'|'unsafe-inline'|'self'|https?:/);
});
