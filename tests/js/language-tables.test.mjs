// A new language takes an entry in every per-language table of the tests (what its chapter and its strings say of
// each measured or cited fact, in its own words): docs/extending.md's "Adding a language" names every test file
// that holds one, so that a translator learns them all from the guide rather than from 40 failures. A table is an
// object whose keys are exactly the codes of web/languages.js, or one passed to perLanguage or saysIn
// (tests/js/per-language.mjs); acorn (through Prettier's parser) finds them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eachNode, keyName, parseModule } from './js-ast.mjs';
import { CODES } from './per-language.mjs';

const root = join(import.meta.dirname, '../..');
const TESTS = 'tests/js';

/** Whether the module `source` holds a per-language table. */
async function holdsTable(source) {
  let found = false;
  eachNode(await parseModule(source), (node) => {
    if (node.type === 'ObjectExpression') {
      const keys = node.properties.map(keyName);
      if (keys.length === CODES.length && CODES.every((code) => keys.includes(code))) found = true;
    }
    if (node.type === 'CallExpression' && ['perLanguage', 'saysIn'].includes(node.callee.name)) found = true;
  });
  return found;
}

/** The section of docs/extending.md on adding a language. */
function languageSection() {
  const doc = readFileSync(join(root, 'docs/extending.md'), 'utf8');
  const start = doc.indexOf('## Adding a language');
  assert.ok(start >= 0, 'docs/extending.md has "## Adding a language"');
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

test('docs/extending.md names every test file that holds a per-language table, and no other as one', async () => {
  const section = languageSection();
  const named = new Set([...section.matchAll(/\b([a-z-]+\.test\.mjs)\b/g)].map((m) => m[1]));
  const holding = [];
  for (const file of readdirSync(join(root, TESTS))
    .filter((name) => name.endsWith('.mjs'))
    .sort()) {
    const source = readFileSync(join(root, TESTS, file), 'utf8');
    if (file !== 'per-language.mjs' && (await holdsTable(source))) holding.push(file);
  }
  assert.ok(holding.length >= 7, `files with a table: ${holding.join(', ')}`);
  assert.deepEqual(
    holding.filter((file) => !named.has(file)),
    [],
    'test files with a per-language table that the guide does not name',
  );
  // the guide's list of tables, one item per file ("- `tests/js/x.test.mjs`: ..."), names only files that hold one
  const listed = [...section.matchAll(/^\s*- `tests\/js\/([a-z-]+\.test\.mjs)`.*\(table\)/gm)].map((m) => m[1]);
  assert.deepEqual(listed.sort(), holding, 'the items marked (table) are the files that hold one');
});

test('the table finder finds a table keyed by the codes, a perLanguage call, and no other object', async () => {
  const table = `{ ${CODES.map((code) => `${code}: /x/`).join(', ')} }`;
  assert.equal(await holdsTable(`const T = ${table};`), true);
  assert.equal(await holdsTable(`const T = { ${CODES.map((code) => `'${code}': 1`).join(', ')} };`), true);
  assert.equal(await holdsTable(`perLanguage('what', T);`), true);
  assert.equal(await holdsTable(`const T = { ${CODES[0]}: 1 };`), false);
  assert.equal(await holdsTable(`const T = { ${CODES.map((code) => `${code}: 1`).join(', ')}, other: 2 };`), false);
});
