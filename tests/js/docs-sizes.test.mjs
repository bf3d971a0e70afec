// The sizes the README and docs/ quote are the built files' (to the last digit they show, plus or minus one):
// the npm package packed (`npm pack --dry-run`), the offline files and the script they share, the SIMD module and
// its brotli copy. A size that drifts from what the build writes fails here, not in a reader's hands.
//   node --test tests/js/docs-sizes.test.mjs     after `node scripts/build.mjs`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OFFLINE_SCRIPT, SIZE_FIGURES } from './doc-sizes.mjs';
import { simdModuleFile } from './simd-module.mjs';

const root = join(import.meta.dirname, '../..');
const read = (path) => readFileSync(join(root, path), 'utf8');
const bytes = (path) => statSync(join(root, path)).size;

/** `shown` (a figure in MB as the text writes it) is `actual` bytes, within one unit of its last digit. */
function sameSize(shown, actual, what) {
  const unit = 10 ** -(shown.split('.')[1]?.length ?? 0);
  const mb = actual / 1e6;
  assert.ok(
    Math.abs(mb - Number(shown)) <= unit + 1e-9,
    `${what}: the text says ${shown} MB, the build ${mb.toFixed(3)}`,
  );
}
const figure = (text, pattern, where) => {
  const found = pattern.exec(text);
  assert.ok(found, `${where} quotes it (${pattern})`);
  return found.slice(1);
};

test("README: the package's packed size is what npm pack writes", () => {
  const { doc, pattern } = SIZE_FIGURES.packed;
  const [packed] = figure(read(doc), pattern, doc);
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  sameSize(packed, JSON.parse(out)[0].size, 'the tarball');
});

test('docs/embedding.md: the offline files and the script their parts share', () => {
  const { offlineEach, offlineScript } = SIZE_FIGURES;
  const [each] = figure(read(offlineEach.doc), offlineEach.pattern, offlineEach.doc);
  for (const name of ['residual-lab-en.html', 'residual-lab-zh.html'])
    sameSize(each, bytes(`dist/offline/${name}`), name);
  const [script] = figure(read(offlineScript.doc), offlineScript.pattern, offlineScript.doc);
  sameSize(script, bytes(OFFLINE_SCRIPT), 'the offline script');
});

test('docs/api.md: the SIMD binary and its brotli copy', () => {
  const [binary, brotli] = figure(
    read('docs/api.md'),
    /the ([\d.]+) MB binary \(([\d.]+) MB as brotli\)/,
    'docs/api.md',
  );
  const wasm = fileURLToPath(simdModuleFile('wasm'));
  sameSize(binary, statSync(wasm).size, basename(wasm));
  sameSize(brotli, statSync(`${wasm}.br`).size, `${basename(wasm)}.br`);
});
