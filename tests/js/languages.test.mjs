// Languages as data: the table (web/languages.js), every language's texts complete, no code that names a
// language, and a new language added as docs/extending.md says (a folder and a row) in a copy of the repository,
// whose pages build with it in every page's language menu.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { languageStringsFile, languageStringsSource, widgetStringsSource } from '../../scripts/pages.mjs';
import { WIDGET_TAGS } from '../../web/components/registry.js';
import { FALLBACK_LANGUAGE, LANGUAGES, languageCode, stringsOf } from '../../web/languages.js';

const rootDir = join(dirname(fileURLToPath(import.meta.url)), '../..');

const isTable = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Where `own` lacks a key of `reference` or has one it lacks, or holds another kind of value: path: problem. */
function differences(own, reference, path = '') {
  const found = [];
  for (const key of new Set([...Object.keys(reference), ...Object.keys(own)])) {
    const where = path ? `${path}.${key}` : key;
    if (!(key in own)) found.push(`${where}: missing`);
    else if (!(key in reference)) found.push(`${where}: not in ${FALLBACK_LANGUAGE}`);
    else if (isTable(reference[key]) !== isTable(own[key]) || typeof reference[key] !== typeof own[key])
      found.push(`${where}: a ${typeof own[key]}, ${typeof reference[key]} in ${FALLBACK_LANGUAGE}`);
    else if (isTable(own[key])) found.push(...differences(own[key], reference[key], where));
  }
  return found;
}

test('the table: codes, pages and page languages each name one row; the fallback language is a row', () => {
  for (const field of ['code', 'page', 'htmlLang', 'name']) {
    const values = LANGUAGES.map((row) => row[field]);
    assert.equal(new Set(values).size, values.length, `${field}: ${values.join(', ')}`);
  }
  assert.ok(LANGUAGES.some((row) => row.code === FALLBACK_LANGUAGE));
  assert.equal(LANGUAGES[0].page, 'index.html', 'the first row is the site root');
  for (const row of LANGUAGES) {
    assert.match(row.code, /^[a-z]{2,3}$/, 'a code is a primary language subtag');
    assert.equal(row.htmlLang.split('-')[0].toLowerCase(), row.code, `${row.code}: its html lang picks it back`);
    assert.equal(languageCode(row.htmlLang), row.code);
    assert.doesNotThrow(() => (1234567).toLocaleString(row.numberLocale), `${row.code}: ${row.numberLocale}`);
    assert.ok(existsSync(join(rootDir, 'content', row.code, 'chapter.md')), `content/${row.code}/chapter.md`);
  }
  // a region or script subtag, in any case, picks the row of its primary subtag
  for (const row of LANGUAGES) assert.equal(languageCode(`${row.code.toUpperCase()}-Hans-gb`), row.code);
  // qaa: the start of ISO 639's range reserved for local use, which no language of the lab's will take
  assert.ok(!LANGUAGES.some((row) => row.code === 'qaa'));
  for (const unknown of ['qaa', 'qaa-DE', '', null, undefined])
    assert.equal(languageCode(unknown), FALLBACK_LANGUAGE, String(unknown));
});

test(`every language has every text of ${FALLBACK_LANGUAGE}, no other and of the same kind (none relies on the fallback)`, () => {
  const reference = LANGUAGES.find((row) => row.code === FALLBACK_LANGUAGE).strings;
  for (const row of LANGUAGES)
    assert.deepEqual(differences(row.strings, reference), [], `content/${row.code}/strings/`);
  // and the check finds a missing key, a stray one and a wrong kind
  const broken = {
    ...reference,
    page: { ...reference.page, footer: undefined },
    extra: 'x',
    run: { ...reference.run, steps: 'text' },
  };
  delete broken.page.footer;
  assert.deepEqual(
    differences(broken, reference),
    ['page.footer: missing', 'run.steps: a string, function in en', 'extra: not in en'].map((d) =>
      d.replace(' en', ` ${FALLBACK_LANGUAGE}`),
    ),
  );
});

/**
 * What content/<code>/strings/ holds against the registry: a tag with no file, and a file that is neither index.js,
 * nor one index.js imports, nor a registered tag's (a widget's strings file is named after its tag).
 */
function widgetFileProblems(code, files, indexSource) {
  const shared = new Set([...indexSource.matchAll(/from '\.\/([^']+)'/g)].map((m) => m[1]));
  const problems = WIDGET_TAGS.filter((tag) => !files.includes(`${tag}.js`)).map(
    (tag) => `content/${code}/strings/${tag}.js: missing (<${tag}> is a row of web/components/registry.js)`,
  );
  for (const file of files)
    if (file !== 'index.js' && !shared.has(file) && !WIDGET_TAGS.includes(file.replace(/\.js$/, '')))
      problems.push(
        `content/${code}/strings/${file}: no widget of web/components/registry.js has this tag, and index.js does not import it`,
      );
  return problems;
}

test("each language's strings/ holds one file per registered widget, named after its tag, and no stray one", async () => {
  for (const row of LANGUAGES) {
    const dir = join(rootDir, 'content', row.code, 'strings');
    const files = readdirSync(dir).filter((name) => name.endsWith('.js'));
    assert.deepEqual(widgetFileProblems(row.code, files, readFileSync(join(dir, 'index.js'), 'utf8')), []);
    for (const tag of WIDGET_TAGS) {
      const file = (await import(pathToFileURL(join(dir, `${tag}.js`)).href)).default;
      assert.equal(row.strings[tag], file, `${row.code}: the texts of <${tag}> are ${tag}.js`);
    }
  }
  // and the check names a widget without a file and a file without a widget
  const [first, ...rest] = WIDGET_TAGS.map((tag) => `${tag}.js`);
  assert.deepEqual(
    widgetFileProblems('xx', [...rest, 'rl-retired.js', 'page.js', 'index.js'], "import page from './page.js';"),
    [
      `content/xx/strings/${first}: missing (<${first.slice(0, -3)}> is a row of web/components/registry.js)`,
      'content/xx/strings/rl-retired.js: no widget of web/components/registry.js has this tag, and index.js does not import it',
    ],
  );
});

test("the browser's widget-strings.js loads each language's module: its index.js and every registered widget's file, under its tag", () => {
  const source = widgetStringsSource();
  for (const row of LANGUAGES) {
    const file = languageStringsFile(row.code);
    assert.ok(source.includes(`  "${row.code}": () => import('./${file}'),\n`), `${row.code}: a loader of ${file}`);
    const module = languageStringsSource(row.code);
    assert.ok(module.includes(`import texts from '../content/${row.code}/strings/index.js';\n`), module);
    const imported = new Map(
      [...module.matchAll(/^import (strings\d+) from '\.\.\/content\/([a-z]+)\/strings\/([a-z-]+)\.js';$/gm)].map(
        (m) => [m[1], `${m[2]}/${m[3]}`],
      ),
    );
    assert.equal(imported.size, WIDGET_TAGS.length, module);
    const line = module.match(/^export default \{ \.\.\.texts, (.*) \};$/m);
    assert.ok(line, `${row.code}: one table of the texts`);
    const entries = [...line[1].matchAll(/"([a-z-]+)": (strings\d+)/g)];
    assert.deepEqual(
      entries.map((m) => m[1]),
      WIDGET_TAGS,
      `${row.code}: every tag, in the registry's order`,
    );
    for (const [, tag, name] of entries) assert.equal(imported.get(name), `${row.code}/${tag}`);
  }
  // Every language is complete (above), so none has the fallback language's texts loaded with its own.
  assert.ok(source.includes('export const INCOMPLETE_LANGUAGES = [];\n'), source);
});

test('no code in web/ or scripts/ names a language: each is a row of web/languages.js', () => {
  const names = LANGUAGES.flatMap((row) => [row.code, row.htmlLang]).map((name) => name.replace(/-/g, '\\-'));
  const alternatives = names.join('|');
  // 'zh' as a value, /^zh/ as a pattern, STRINGS.zh, { zh: ... }, zh ? ... : ...
  const naming = new RegExp(
    `(['"\`])(${alternatives})\\1|/\\^?(${alternatives})\\b|\\.(${alternatives})\\b(?![-.])|^\\s*(${alternatives})\\s*:|\\b(${alternatives})\\s*\\?`,
    'm',
  );
  const files = ['web', 'scripts']
    .flatMap((dir) =>
      readdirSync(join(rootDir, dir), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && /\.m?js$/.test(entry.name))
        .map((entry) => join(entry.parentPath ?? entry.path, entry.name)),
    )
    .filter((file) => relative(rootDir, file) !== join('web', 'languages.js'));
  assert.ok(files.length > 50, `files read: ${files.length}`);
  const found = [];
  for (const file of files) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, ''); // comments may name one
        if (naming.test(code)) found.push(`${relative(rootDir, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, []);
  assert.ok(
    naming.test("lang === 'zh'") &&
      naming.test('COMMON.en') &&
      naming.test('  zh: {') &&
      naming.test('zh ? 1 : 2') &&
      naming.test('/^zh/i'),
  );
});

test("a language added as a folder and a row builds its page, in every page's language menu; missing texts fall back", async () => {
  const copy = mkdtempSync(join(tmpdir(), 'rl-language-'));
  try {
    for (const dir of ['web', 'content', 'scripts']) cpSync(join(rootDir, dir), join(copy, dir), { recursive: true });
    symlinkSync(join(rootDir, 'node_modules'), join(copy, 'node_modules'), 'dir');
    // The folder: the chapter (here the English one, retitled) and the strings it has so far.
    const chapter = readFileSync(join(rootDir, 'content', FALLBACK_LANGUAGE, 'chapter.md'), 'utf8').replace(
      /^# (.+)$/m,
      '# Stub: $1',
    );
    mkdirSync(join(copy, 'content/xx/strings'), { recursive: true });
    writeFileSync(join(copy, 'content/xx/chapter.md'), chapter);
    writeFileSync(
      join(copy, 'content/xx/strings/index.js'),
      "export default { page: { skip: 'Stub skip', contents: 'Stub contents' } };\n",
    );
    // The row.
    const table = join(copy, 'web/languages.js');
    const source = readFileSync(table, 'utf8');
    const rows = source.indexOf('export const LANGUAGES = [\n') + 'export const LANGUAGES = [\n'.length;
    assert.ok(rows > 100, 'the table is where docs/extending.md says');
    writeFileSync(
      table,
      `${source.slice(0, rows)}  { code: 'xx', name: 'Stubbish', htmlLang: 'xx', numberLocale: 'en-US', page: 'xx/index.html' },\n${source.slice(rows)}`,
    );

    const out = join(copy, 'out');
    execFileSync(process.execPath, [join(copy, 'scripts/pages.mjs'), copy, out], { stdio: 'pipe' });
    const stub = readFileSync(join(out, 'xx/index.html'), 'utf8');
    assert.match(stub, /<html lang="xx">/);
    assert.match(stub, /<title>Stub: /);
    assert.match(stub, /<a class="skip-link" href="#main">Stub skip<\/a>/, 'its own text');
    const english = stringsOf(FALLBACK_LANGUAGE, 'page');
    assert.ok(
      stub.includes(`<footer class="site-footer"><p>${english.footer}</p></footer>`),
      "a text it lacks: the fallback language's",
    );
    assert.match(
      stub,
      /<a href="index.html" hreflang="xx" lang="xx" aria-current="page" data-lang-link="xx">Stubbish<\/a>/,
    );
    for (const row of LANGUAGES) {
      const page = readFileSync(join(out, row.page), 'utf8');
      const href = relative(dirname(row.page), 'xx/index.html');
      assert.ok(
        page.includes(`<a href="${href}" hreflang="xx" lang="xx" data-lang-link="xx">Stubbish</a>`),
        `${row.page} lists the new language`,
      );
      assert.ok(stub.includes(`data-lang-link="${row.code}">${row.name}</a>`), `and its menu lists ${row.code}`);
    }
    // The widgets' lookup, in the copy: the stub's own key, and the fallback for the rest.
    const copied = await import(pathToFileURL(table).href);
    assert.equal(copied.languageCode('xx-YY'), 'xx');
    assert.equal(copied.stringsOf('xx', 'page').skip, 'Stub skip');
    assert.equal(copied.stringsOf('xx', 'rl-vector-lab').title, stringsOf(FALLBACK_LANGUAGE, 'rl-vector-lab').title);
    assert.equal(copied.stringsOf('xx', 'common').errors.empty, stringsOf(FALLBACK_LANGUAGE, 'common').errors.empty);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
