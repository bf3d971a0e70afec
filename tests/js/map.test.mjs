// The map of the house: docs/architecture.md's layout is the one map (the README links to it), held here to what it
// describes: the folders at the top and under wasm/src/ and web/components/, the tier table RL_TIERS in
// CMakeLists.txt, the modules of web/lib/ and the widget registry, as options-doc.test.mjs holds the options
// reference to the option tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WIDGETS } from '../../web/components/registry.js';
import { TIERS } from './cpp-tiers.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path) => readFileSync(join(root, path), 'utf8');
const folders = (path) =>
  readdirSync(join(root, path), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules')
    .map((entry) => entry.name);
const architecture = read('docs/architecture.md');
const section = (title) => architecture.split(/^## /m).find((part) => part.startsWith(`${title}\n`));
const codeBlock = (text) => text.match(/```\n([^]*?)```/)[1];
const layout = codeBlock(section('The layout'));
const tiersDiagram = codeBlock(section('C++ tiers'));
const RL_TIERS = TIERS.map((tier) => tier.name);
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
NUMBER_WORDS.push('eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen');

/** Every count the text gives of all of `noun` ("is six layers", "the 15 widgets"), as numbers. */
const countsOf = (text, noun, before = '') =>
  [...text.matchAll(new RegExp(`\\b${before}(\\d+|${NUMBER_WORDS.join('|')}) ${noun}\\b`, 'gi'))].map(([, n]) =>
    /\d/.test(n) ? Number(n) : NUMBER_WORDS.indexOf(n.toLowerCase()),
  );

test('the layout names every folder at the top of the repository, under wasm/src/ and under web/components/', () => {
  for (const name of folders('.').filter((name) => !['build', 'dist', 'release', 'test-results'].includes(name)))
    assert.match(layout, new RegExp(`^${name}/`, 'm'), `${name}/ is on the map`);
  for (const name of folders('wasm/src')) assert.match(layout, new RegExp(`^  ${name}/ `, 'm'), `wasm/src/${name}/`);
  for (const name of folders('web/components'))
    assert.ok(layout.includes(`${name}/`), `web/components/${name}/ is on the map`);
});

test('the layout names every module of web/lib/', () => {
  const modules = readdirSync(join(root, 'web/lib')).filter((name) => name.endsWith('.js'));
  assert.ok(modules.length >= 10, `web/lib has its modules: ${modules}`);
  for (const name of [...modules, ...folders('web/lib').map((folder) => `${folder}/`)])
    assert.ok(layout.includes(name), `web/lib/${name} is on the map`);
});

test('the tiers, as the map and the tier diagram draw them, are RL_TIERS in its order and with its links', () => {
  assert.ok(RL_TIERS.length >= 7, `RL_TIERS: ${RL_TIERS}`);
  const mapped = [...layout.matchAll(/^ {2}(\w+)\/ /gm)].map(([, name]) => name).filter((n) => n !== 'reference');
  assert.deepEqual(mapped, RL_TIERS, 'the map lists the tiers bottom to top');
  const rows = [...tiersDiagram.matchAll(/^ {2}(\w+)\/ +(rl_\w+|residual_lab) +(\S+)/gm)];
  const drawn = rows.map(([, name]) => name);
  assert.deepEqual(drawn, [...RL_TIERS].reverse(), 'the diagram draws them top to bottom');
  const drawnLinks = Object.fromEntries(rows.map(([, name, , links]) => [name, links === '—' ? [] : links.split(',')]));
  for (const { name, links } of TIERS) assert.deepEqual(drawnLinks[name], links, `the diagram's links of ${name}/`);
  for (const count of countsOf(architecture, 'tiers', '(?:in|is) '))
    assert.equal(count, RL_TIERS.length, 'the tiers counted');
});

test("every count of the widgets in the docs is the registry's", () => {
  for (const page of ['README.md', ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`)]) {
    if (!page.endsWith('.md')) continue;
    for (const count of countsOf(read(page), 'widgets', '(?:the|all) '))
      assert.equal(count, WIDGETS.length, `${page} counts widgets`);
  }
});

test('the README keeps no map of its own: it links to the layout', () => {
  const readme = read('README.md');
  assert.ok(readme.includes('docs/architecture.md#the-layout'), 'the README links to the map');
  assert.doesNotMatch(readme, /^ {2}(kernels|decoder|core)\/ /m, 'no second tree of wasm/src/ in the README');
});
