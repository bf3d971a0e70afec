// docs/architecture.md's "From a widget to its kernel" against the code it names: a row for every widget of the
// registry, every API call a method of the lab (worker-methods.js lists them all), and every file named under
// wasm/ holding every function named after it. Reads the sources; needs no build.
//   node --test tests/js/widget-paths.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WIDGETS } from '../../web/components/registry.js';
import { METHODS } from '../../web/lib/worker-methods.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const architecture = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
const section = architecture.split(/^## /m).find((part) => part.startsWith('From a widget to its kernel\n'));
// The table's rows as arrays of cells, header and rule left out.
const rows = section
  .split('\n')
  .filter((line) => line.startsWith('|'))
  .slice(2)
  .map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );
const FOLDERS = [null, null, 'wasm/bindings', 'wasm/src', 'wasm/src/kernels']; // of the file columns
const ticked = (text) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

test('every widget of the registry has one row, in the registry order', () => {
  assert.deepEqual(
    rows.map((cells) => ticked(cells[0])[0]),
    WIDGETS.map((widget) => widget.tag),
  );
});

test('every API call named is a method of the lab', () => {
  for (const cells of rows) {
    const calls = ticked(cells[1]).filter((name) => name.startsWith('lab.'));
    assert.ok(calls.length > 0, `${cells[0]}: an API call`);
    for (const call of calls) assert.ok(Object.hasOwn(METHODS, call.slice('lab.'.length)), `${cells[0]}: ${call}`);
  }
});

test('every file named exists and holds the functions named after it', () => {
  for (const cells of rows) {
    FOLDERS.forEach((folder, column) => {
      if (!folder) return;
      for (const part of cells[column].split(';')) {
        const [file, ...functions] = ticked(part);
        if (!file) continue;
        const path = join(root, folder, file);
        assert.ok(existsSync(path), `${cells[0]}: ${folder}/${file}`);
        const source = readFileSync(path, 'utf8');
        for (const name of functions)
          assert.match(source, new RegExp(`\\b${name}\\s*\\(|\\bclass ${name}\\b`), `${cells[0]}: ${file} ${name}`);
      }
    });
  }
});
