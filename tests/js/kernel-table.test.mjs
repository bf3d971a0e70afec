// docs/architecture.md's "The layer kernels" against the code it names: every kernel file holds the functions named
// after it, every reference exists, every finite-difference test case exists, and every engine file named calls
// the functions named after it, each one of that row's kernel functions (an engine that ran its own copy would
// have no call to name). Reads the sources; needs no build.
//   node --test tests/js/kernel-table.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tableRows } from './markdown-tables.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const architecture = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
const section = architecture.split(/^## /m).find((part) => part.startsWith('The layer kernels\n'));
const rows = tableRows(section).slice(1); // the header left out
const ticked = (text) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
const quoted = (text) => [...text.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
const read = (path) => {
  assert.ok(existsSync(join(root, path)), path);
  return readFileSync(join(root, path), 'utf8');
};
// [file, functions] for each `;`-separated part of a cell
const parts = (cell) =>
  cell
    .split(';')
    .map((part) => ticked(part))
    .filter((names) => names.length > 0)
    .map(([file, ...functions]) => [file, functions]);
const calls = (source, name) => new RegExp(`\\b${name}\\s*\\(`).test(source);

test('the table lists the operations of a layer, each in one row', () => {
  assert.ok(rows.length >= 8, 'a row per operation');
  assert.equal(new Set(rows.map((cells) => cells[0])).size, rows.length);
});

test('every kernel and reference named exists with its functions', () => {
  for (const [operation, kernel, reference] of rows) {
    const [[file, functions]] = parts(kernel);
    const source = read(`wasm/src/kernels/${file}`);
    assert.ok(functions.length > 0, `${operation}: a kernel function`);
    for (const name of functions) assert.ok(calls(source, name), `${operation}: ${file} ${name}`);
    for (const [path, names] of parts(reference)) {
      const text = read(path);
      for (const name of names) assert.ok(calls(text, name), `${operation}: ${path} ${name}`);
    }
  }
});

test('every finite-difference test named exists in its file', () => {
  for (const [operation, , , tests] of rows) {
    const named = tests.split(';').map((part) => [ticked(part)[0], quoted(part)]);
    assert.ok(named.length > 0, `${operation}: a test`);
    for (const [file, names] of named) {
      const source = read(`tests/cpp/${file}`);
      assert.ok(names.length > 0, `${operation}: ${file} names a test`);
      for (const name of names) assert.ok(source.includes(`"${name}"`), `${operation}: ${file} "${name}"`);
    }
  }
});

test("each engine calls the row's own kernels where the table says", () => {
  for (const [operation, kernel, , , decoder, checkpoint] of rows) {
    const [[, own]] = parts(kernel);
    for (const [folder, cell] of [
      ['wasm/src/decoder', decoder],
      ['wasm/src/checkpoint', checkpoint],
    ]) {
      for (const [file, functions] of parts(cell)) {
        const source = read(`${folder}/${file}`);
        assert.ok(functions.length > 0, `${operation}: ${folder}/${file} names what it calls`);
        for (const name of functions) {
          assert.ok(own.includes(name), `${operation}: ${name} is not one of the row's kernels`);
          assert.ok(calls(source, name), `${operation}: ${folder}/${file} calls ${name}`);
        }
      }
    }
  }
});
