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
  assert.equal(languageCode('zh-Hans'), 'zh');
  assert.equal(languageCode('EN-gb'), 'en');
  for (const unknown of ['fr', '', null, undefined])
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
      `${source.slice(0, rows)}  { code: 'xx', name: 'Stubbish', htmlLang: 'xx', numberLocale: 'en-US', page: 'xx/index.html', strings: xx },\n${source.slice(rows)}`.replace(
        /^(import .* from '\.\.\/content\/.*\n)/m,
        "import xx from '../content/xx/strings/index.js';\n$1",
      ),
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
