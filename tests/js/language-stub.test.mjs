// A language and a widget added as docs/extending.md says, in a copy of the repository, pass the whole JS suite
// there. The widget as stub-widget.mjs adds it ("Adding a widget"), in every language, the stub's too; the language
// as "Adding a language" says: its folder (a copy of English's, whose messages are "translated" by accenting every letter, so
// that no English sentence is left in them), its row in web/languages.js, an entry in every per-language table of
// the files the guide marks (table) (English's entry, the stub's chapter being English's), and the sizes the docs
// quote, written from the copy's build. Nothing else is edited: a table the guide leaves out, or one more place a
// language must be named, fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FALLBACK_LANGUAGE, LANGUAGES } from '../../web/languages.js';
import { OFFLINE_SCRIPT, SIZE_FIGURES } from './doc-sizes.mjs';
import { eachNode, keyName, parseModule } from './js-ast.mjs';
import { copyRepository, nodeIn, rootDir } from './repo-copy.mjs';
import { TAG, addStubWidget } from './stub-widget.mjs';

const CODE = 'eo';
const ROW = `{ code: '${CODE}', name: 'Stub', htmlLang: '${CODE}', numberLocale: 'en-US', page: '${CODE}/index.html' },`;
// The stub tests themselves (each copies the repository and runs tests there) stay out of the inner run.
const NOT_INNER = ['language-stub.test.mjs', 'widget-stub.test.mjs'];

// The messages a reader can meet, by strings file: what step 4 of the guide has translated.
const MESSAGES = {
  'common.js': ['errors', 'reasons', 'unexplained', 'at'],
  'rl-config-inspector.js': ['errors'],
  'rl-checkpoint-probe.js': ['fetchErrors'],
};

/** A strings file whose `keys` are English's with every ASCII letter accented (ȧ for a), functions included. */
function accentedStrings(english, keys) {
  const table = english.replace(/^export default \{/m, 'const english = {');
  assert.notEqual(table, english, 'a strings file is `export default { ... }`');
  return `${table}
const ACCENTED = 'ȧḃċḋėḟġḣïȷḳŀṁṅȯṗǫṙṡṫůṽẇẋẏżȦḂĊḊĖḞĠḢİĴḲĿṀṄȮṖǪṘṠṪŮṼẆẊẎŻ';
const PLAIN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const accent = (text) => String(text).replace(/[A-Za-z]/g, (c) => ACCENTED[PLAIN.indexOf(c)]);
const translated = (value) =>
  typeof value === 'function'
    ? (...args) => accent(value(...args))
    : typeof value === 'string'
      ? accent(value)
      : Object.fromEntries(Object.entries(value).map(([key, one]) => [key, translated(one)]));
export default { ...english, ${keys.map((key) => `${key}: translated(english.${key})`).join(', ')} };
`;
}

/** `source` with an entry for CODE, English's, in every object keyed by exactly the languages' codes. */
async function withEntries(source) {
  const codes = LANGUAGES.map((row) => row.code);
  const inserts = [];
  eachNode(await parseModule(source), (node) => {
    if (node.type !== 'ObjectExpression') return;
    const keys = node.properties.map(keyName);
    if (keys.length !== codes.length || !codes.every((code) => keys.includes(code))) return;
    const english = node.properties.find((property) => keyName(property) === FALLBACK_LANGUAGE);
    inserts.push({ at: english.start, text: `${CODE}: ${source.slice(english.value.start, english.value.end)}, ` });
  });
  let out = source;
  for (const { at, text } of inserts.sort((a, b) => b.at - a.at)) out = out.slice(0, at) + text + out.slice(at);
  return { out, count: inserts.length };
}

/** Writes the size `bytes` into the figure `name` of SIZE_FIGURES in the copy, to the digits it shows. */
function writeSize(copy, name, bytes) {
  const { doc, pattern } = SIZE_FIGURES[name];
  const path = join(copy, doc);
  const text = readFileSync(path, 'utf8');
  const found = pattern.exec(text);
  assert.ok(found, `${doc} quotes ${name}`);
  const digits = found[1].split('.')[1]?.length ?? 0;
  const figure = found[0].replace(found[1], (bytes / 1e6).toFixed(digits));
  writeFileSync(path, text.replace(found[0], figure));
}

test('a language and a widget added as docs/extending.md says pass the whole JS suite', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'rl-language-stub-'));
  try {
    copyRepository(copy);
    // 1. The folder: English's chapter and strings.
    cpSync(join(rootDir, 'content', FALLBACK_LANGUAGE), join(copy, 'content', CODE), { recursive: true });
    // 2. The row, last in the table.
    const languages = join(copy, 'web/languages.js');
    const table = readFileSync(languages, 'utf8');
    const last = LANGUAGES.at(-1);
    const lastRow = table.split('\n').find((line) => line.includes(`code: '${last.code}'`));
    assert.ok(lastRow, `web/languages.js has the row of ${last.code} on a line`);
    writeFileSync(languages, table.replace(lastRow, `${lastRow}\n  ${ROW}`));
    // 3. An entry in every table of the files the guide marks (table).
    const guide = readFileSync(join(rootDir, 'docs/extending.md'), 'utf8');
    const tableFiles = [...guide.matchAll(/^\s*- `(tests\/js\/[a-z-]+\.test\.mjs)`.*\(table\)/gm)].map((m) => m[1]);
    assert.ok(tableFiles.length >= 7, `the guide's table files: ${tableFiles.join(', ')}`);
    for (const file of tableFiles) {
      const { out, count } = await withEntries(readFileSync(join(copy, file), 'utf8'));
      assert.ok(count > 0, `${file}: a table keyed by the languages' codes`);
      writeFileSync(join(copy, file), out);
    }
    // 4. The messages, translated.
    for (const [file, keys] of Object.entries(MESSAGES)) {
      const path = join(copy, 'content', CODE, 'strings', file);
      writeFileSync(path, accentedStrings(readFileSync(path, 'utf8'), keys));
    }
    // The widget, in every language.
    await addStubWidget(copy, [...LANGUAGES.map((row) => row.code), CODE]);
    nodeIn(copy, join(copy, 'scripts/build.mjs'), '--site-only');
    nodeIn(copy, join(copy, 'scripts/options-doc.mjs'), '--write');
    // 5. The sizes the docs quote, from the copy's build.
    const packed = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: copy,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    writeSize(copy, 'packed', JSON.parse(packed)[0].size);
    writeSize(copy, 'offlineEach', statSync(join(copy, 'dist/offline/residual-lab-zh.html')).size);
    writeSize(copy, 'offlineScript', statSync(join(copy, OFFLINE_SCRIPT)).size);

    // The whole JS suite, in the copy (a git repository of its files: some tests list them with git ls-files).
    execFileSync('git', ['init', '-q'], { cwd: copy });
    execFileSync('git', ['add', '-A'], { cwd: copy });
    const files = readdirSync(join(copy, 'tests/js'))
      .filter((name) => name.endsWith('.test.mjs') && !NOT_INNER.includes(name))
      .sort()
      .map((name) => join('tests/js', name));
    let output;
    try {
      output = nodeIn(copy, '--test', '--test-reporter=spec', ...files);
    } catch (failed) {
      const failures = String(failed.stdout)
        .split('\n')
        .filter((line) => /^✖ /.test(line));
      assert.fail(
        `the JS suite fails in the copy with language ${CODE} and <${TAG}>:\n${[...new Set(failures)].join('\n')}`,
      );
    }
    assert.match(output, /^ℹ fail 0$/m);
    const page = readFileSync(join(copy, 'dist', CODE, 'index.html'), 'utf8');
    assert.match(page, new RegExp(`<html lang="${CODE}">`));
    assert.match(page, new RegExp(`<${TAG} class="lab-widget">`));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
