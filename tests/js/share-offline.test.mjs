// The pure parts of sharing and the offline build: CSV quoting and axis ticks of the chart exports, the CORS
// headers of the development server, and the offline file's policy (hashes of exactly its inline code).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csvLine, csvText, linearTicks } from '../../web/components/shared/chart-export.js';
import { offlinePolicy } from '../../scripts/offline.mjs';
import { startServer } from '../../scripts/serve.mjs';

test('CSV fields with a comma, quote or line break are quoted; lines end in CRLF', () => {
  assert.equal(csvLine(['x', 'a, b', 'say "hi"', 'two\nlines', 1.5, null]), 'x,"a, b","say ""hi""","two\nlines",1.5,');
  assert.equal(csvText([['x', 'y'], [1, 2]]), 'x,y\r\n1,2\r\n');
});

test('linear ticks are round steps (1, 2 or 5 times a power of ten) inside the range', () => {
  assert.deepEqual(linearTicks(0, 10), [0, 2, 4, 6, 8, 10]);
  assert.deepEqual(linearTicks(-200, 200), [-200, -100, 0, 100, 200]);
  assert.deepEqual(linearTicks(0.1, 0.35), [0.1, 0.15, 0.2, 0.25, 0.3, 0.35]);
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
  assert.match(policy, new RegExp(`script-src ${hash('a()')} ${hash('b()')} 'wasm-unsafe-eval'(;|$)`.replace(/[+/]/g, '\\$&')));
  assert.ok(policy.includes(`style-src ${hash('p{}')};`));
  assert.ok(policy.includes('worker-src blob:') && policy.includes("default-src 'none'"));
  assert.doesNotMatch(policy, /'unsafe-eval'|'unsafe-inline'|'self'|https?:/);
});
