// A widget added as docs/extending.md says (its module, its strings file in each language, one registry row, the
// tag in both chapters), in a copy of the repository whose site is built (node scripts/build.mjs --site-only): the
// pages mark its tag for page.css, embed-example.html lists it with its title, the bundle and the offline files
// define it and hold its strings, and the attribute reference's list of element classes holds it, with no other
// file edited (no language's strings/index.js, no list of the widgets).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LANGUAGES } from '../../web/languages.js';

const rootDir = join(dirname(fileURLToPath(import.meta.url)), '../..');
const TAG = 'rl-stub-probe';
const FOLDER = 'stub-probe'; // the tag without rl-: its folder and its module's name
const TITLE = 'Stub probe: a widget added by a test';

/** Inserts `text` before the first match of `pattern` in the file at `path`; fails when there is none. */
function insertBefore(path, pattern, text) {
  const source = readFileSync(path, 'utf8');
  const at = source.search(pattern);
  assert.ok(at >= 0, `${path}: ${pattern}`);
  writeFileSync(path, `${source.slice(0, at)}${text}${source.slice(at)}`);
}

test('a widget added as a module, its strings, one registry row and its tag in the chapters is built into the site', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'rl-widget-'));
  try {
    for (const dir of ['web', 'content', 'scripts']) cpSync(join(rootDir, dir), join(copy, dir), { recursive: true });
    symlinkSync(join(rootDir, 'node_modules'), join(copy, 'node_modules'), 'dir');
    symlinkSync(join(rootDir, 'build'), join(copy, 'build'), 'dir'); // the WASM builds, as they are

    // 1. The module.
    mkdirSync(join(copy, `web/components/${FOLDER}`));
    writeFileSync(
      join(copy, `web/components/${FOLDER}/${FOLDER}.js`),
      `export class RlStubProbe extends HTMLElement {\n  static tag = '${TAG}';\n  connectedCallback() {\n    this.setAttribute('data-ready', '');\n  }\n}\n`,
    );
    for (const { code } of LANGUAGES) {
      // 2. Its strings: the file named after the tag, and no other line (web/widget-strings.js finds it).
      writeFileSync(join(copy, `content/${code}/strings/${TAG}.js`), `export default { title: '${TITLE}' };\n`);
      // 4. The tag in the chapter, in the row's section (the last one).
      insertBefore(
        join(copy, `content/${code}/chapter.md`),
        /^<rl-self-check set="summary">/m,
        `<${TAG}>Stub.</${TAG}>\n\n`,
      );
    }
    // 3. The row.
    insertBefore(
      join(copy, 'web/components/registry.js'),
      /^ {2}\{\n {4}tag: /m,
      `  { tag: '${TAG}', stateKey: 'stub', section: 'summary', worker: null, frameHeight: 400, example: { x: '1' } },\n`,
    );

    execFileSync(process.execPath, [join(copy, 'scripts/build.mjs'), '--site-only'], { stdio: 'pipe' });
    const dist = join(copy, 'dist');
    const read = (path) => readFileSync(join(dist, path), 'utf8');

    for (const { page } of LANGUAGES)
      assert.match(
        read(page),
        new RegExp(`<${TAG} class="lab-widget">Stub\\.</${TAG}>`),
        `${page}: marked for page.css`,
      );
    assert.ok(
      read('embed-example.html').includes(`<li><code>&lt;${TAG}&gt;</code> ${TITLE}</li>`),
      'embed-example.html lists it with its title',
    );
    const bundles = readdirSync(join(dist, 'assets')).filter((name) => name.endsWith('.js'));
    assert.ok(
      bundles.some((name) => read(`assets/${name}`).includes(`"${TAG}"`)),
      'the bundle holds the module',
    );
    assert.ok(
      bundles.some((name) => read(`assets/${name}`).includes(TITLE)),
      'the bundle holds its strings',
    );
    for (const name of readdirSync(join(dist, 'offline')).filter((n) => n.endsWith('.html'))) {
      assert.ok(read(`offline/${name}`).includes(`"${TAG}"`), `offline/${name} holds it`);
      assert.ok(read(`offline/${name}`).includes(TITLE), `offline/${name} holds its strings`);
    }

    // The element classes as the attribute reference reads them (scripts/options-doc.mjs), from the copy's build.
    globalThis.HTMLElement ??= class {};
    globalThis.matchMedia ??= () => ({ matches: false, addEventListener() {} });
    globalThis.customElements ??= { get: () => undefined, define() {} };
    const { WIDGET_ELEMENTS, WIDGET_TAGS } = await import(pathToFileURL(join(dist, 'components/index.js')));
    assert.equal(WIDGET_TAGS[0], TAG);
    assert.equal(WIDGET_ELEMENTS[0].tag, TAG, 'components/index.js defines it');
    assert.equal(WIDGET_ELEMENTS.length, WIDGET_TAGS.length);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
