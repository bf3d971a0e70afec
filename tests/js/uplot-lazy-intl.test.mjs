// The bundle's uPlot constructs no Intl object when its module is evaluated (scripts/lib/uplot-lazy-intl.mjs):
// ICU's start-up would otherwise be one long main-thread task while the page loads. Its formatters still work
// when called, and the build refuses a uPlot whose lines have changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lazyIntlUplot } from '../../scripts/lib/uplot-lazy-intl.mjs';

const root = join(import.meta.dirname, '../..');
const UPLOT = join(root, 'node_modules/uplot/dist/uPlot.esm.js');

/** Imports `source` as a module while counting Intl constructions; resolves to [module, constructions]. */
async function importCountingIntl(source, dir, name) {
  const file = join(dir, name);
  writeFileSync(file, source);
  const saved = { NumberFormat: Intl.NumberFormat, DateTimeFormat: Intl.DateTimeFormat };
  const constructed = [];
  for (const [key, Original] of Object.entries(saved)) {
    Intl[key] = new Proxy(Original, {
      construct(target, args) {
        constructed.push(key);
        return Reflect.construct(target, args);
      },
    });
  }
  try {
    const module = await import(pathToFileURL(file).href);
    return [module, constructed];
  } finally {
    Object.assign(Intl, saved);
  }
}

test("uPlot's module builds its Intl objects on evaluation, the bundle's copy only when they are used", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'uplot-intl-'));
  try {
    const source = readFileSync(UPLOT, 'utf8');
    const [, original] = await importCountingIntl(source, dir, 'original.mjs');
    assert.deepEqual(original.sort(), ['DateTimeFormat', 'NumberFormat'], 'the installed uPlot as shipped');
    const [lazy, none] = await importCountingIntl(lazyIntlUplot(source), dir, 'lazy.mjs');
    assert.deepEqual(none, []);
    assert.equal(lazy.default.fmtNum(1234.5), new Intl.NumberFormat('en-US').format(1234.5));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a uPlot whose module-level Intl lines changed fails the build with the line it expected', () => {
  const source = readFileSync(UPLOT, 'utf8').replace('const localTz =', 'const localTimeZone =');
  assert.throws(() => lazyIntlUplot(source, 'uPlot.esm.js'), /expected "const localTz = new Intl\.DateTimeFormat/);
});
