// Which folder may use which: bench/ and tools/ are programs on top of scripts/ (its server, its helpers), so
// scripts/ reaches neither, and neither reaches the other; in a widget's folder a view (view.js, *-view.js,
// *-panel.js) and the settings (state.js) do not import each other, both reading what lies below them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';

const root = join(import.meta.dirname, '../..');
const filesUnder = (dir, pattern) =>
  readdirSync(join(root, dir), { recursive: true })
    .map((entry) => posix.join(dir, entry.split('\\').join('/')))
    .filter((path) => pattern.test(path));

/** The repository paths `file` imports (JS) or includes with quotes (C++), resolved from its folder. */
function dependenciesOf(file) {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [
    ...[...text.matchAll(/(?:from|import\(?)\s*'(\.[^']+)'/g)].map((m) => m[1]),
    ...[...text.matchAll(/^#include\s+"([^"]+)"/gm)].map((m) => m[1]),
  ];
  return specifiers.map((target) => posix.normalize(posix.join(posix.dirname(file), target)));
}

const MAY_USE = { scripts: [], bench: ['scripts'], tools: ['scripts'] };

test('scripts/ imports nothing from bench/ or tools/, and bench/ and tools/ do not import each other', () => {
  for (const [folder, allowed] of Object.entries(MAY_USE))
    for (const file of filesUnder(folder, /\.(mjs|js|cpp|hpp)$/))
      for (const target of dependenciesOf(file)) {
        const [top] = target.split('/');
        assert.ok(
          !(top in MAY_USE) || top === folder || allowed.includes(top),
          `${file} uses ${target}: ${folder}/ may use ${allowed.join(', ') || 'neither bench/ nor tools/'}`,
        );
      }
});

test("a widget's views and its settings module do not import each other", () => {
  const isView = (path) => /\/(view|[a-z-]+-view|[a-z-]+-panel)\.js$/.test(path);
  const isState = (path) => path.endsWith('/state.js') && !path.includes('/shared/');
  const modules = filesUnder('web/components', /\.js$/);
  assert.ok(modules.some(isView) && modules.some(isState), 'the rule has modules to hold');
  for (const file of modules.filter((path) => isView(path) || isState(path)))
    for (const target of dependenciesOf(file))
      assert.ok(
        !(isView(file) ? isState(target) : isView(target)),
        `${file} imports ${target}: a view takes the settings from its widget, the settings take nothing from a view`,
      );
});
