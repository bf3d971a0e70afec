// Every widget's and page's strings file, in every language, defines each key once: in a JavaScript object literal
// the later of two equal keys silently wins (the probe's progress bar was once labelled with a table's column
// header). esbuild, which builds the site, reports such keys; a warning here is a failure.
//   node --test tests/js/strings-keys.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { transformSync } from 'esbuild';
import { LANGUAGES } from '../../web/languages.js';

const folder = (code) => new URL(`../../content/${code}/strings/`, import.meta.url);

/** esbuild's warnings about a key an object literal defines twice, as "line: message". */
function duplicateKeys(source, file) {
  const { warnings } = transformSync(source, { loader: 'js', sourcefile: file, logLevel: 'silent' });
  return warnings.filter((w) => w.id === 'duplicate-object-key').map((w) => `${w.location.line}: ${w.text}`);
}

test('the check sees a key defined twice', () => {
  assert.deepEqual(duplicateKeys('export default { a: 1, nested: { b: 2, b: 3 } };\n', 'x.js'), [
    '1: Duplicate key "b" in object literal',
  ]);
});

test('no strings file defines a key twice, in any language', () => {
  assert.ok(LANGUAGES.length >= 2);
  for (const { code } of LANGUAGES) {
    const files = readdirSync(folder(code)).filter((name) => name.endsWith('.js'));
    assert.ok(files.includes('rl-checkpoint-probe.js'), `${code}: the widgets' strings are read`);
    for (const name of files) {
      const source = readFileSync(new URL(name, folder(code)), 'utf8');
      assert.deepEqual(duplicateKeys(source, name), [], `content/${code}/strings/${name}`);
    }
  }
});
