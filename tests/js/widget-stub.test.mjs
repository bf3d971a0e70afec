// A widget added as docs/extending.md says (its module on LabElement with one state row and its control, its strings
// file in each language, one registry row, the tag in both chapters, its folder on the map and its row from widget
// to kernel in docs/architecture.md), in a copy of the repository whose site is built (node scripts/build.mjs
// --site-only) and whose generated docs are rewritten (node scripts/options-doc.mjs --write): the pages mark its tag
// for page.css, embed-example.html lists it with its title, the bundle and the offline files define it and hold its
// strings, the attribute reference's list of element classes holds it, and the tests the doc names pass in the
// copy, with no other file edited (no language's strings/index.js, no list of the widgets).
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

// The tests docs/extending.md names for a widget ("Then run the tests these rules name"), run in the copy.
const DOC_TESTS = /^node --test (tests\/js\/[^\n]+)$/m;

/** The module the doc prescribes: LabElement, a state row, its control, a results region. */
const MODULE = `import { LabElement } from '../shared/lab-element.js';
import { h } from '../shared/dom.js';
import { numberSelect } from '../shared/fields.js';

export class RlStubProbe extends LabElement {
  static tag = '${TAG}';
  static stateRows = [{ name: 'x', type: 'integer', default: 1, min: 1, max: 3 }];

  build() {
    this.readout = h('output');
    const x = this.control('x', { field: numberSelect, options: [1, 2, 3] });
    this.body.append(x.root, this.resultsRegion(this.readout));
  }

  update() {
    this.readout.textContent = String(this.state.x);
  }
}
`;

/** The files of the repository as the work tree has them (tracked and new, not ignored). */
function copyRepository(to) {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: rootDir,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    try {
      cpSync(join(rootDir, file), join(to, file));
    } catch (error) {
      if (error.code !== 'ENOENT') throw error; // a file deleted in the work tree and not yet committed
    }
  }
}

test('a widget added as docs/extending.md says is built into the site and passes the tests the doc names', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'rl-widget-'));
  try {
    copyRepository(copy);
    symlinkSync(join(rootDir, 'node_modules'), join(copy, 'node_modules'), 'dir');
    symlinkSync(join(rootDir, 'build'), join(copy, 'build'), 'dir'); // the WASM builds, as they are

    // 1. The folder and the module.
    mkdirSync(join(copy, `web/components/${FOLDER}`));
    writeFileSync(join(copy, `web/components/${FOLDER}/${FOLDER}.js`), MODULE);
    for (const { code } of LANGUAGES) {
      // 2. Its strings: the file named after the tag, its title and its control's label (the row's name).
      writeFileSync(
        join(copy, `content/${code}/strings/${TAG}.js`),
        `export default { title: '${TITLE}', x: 'x (${code})' };\n`,
      );
      // 4. The tag in the chapter, in the row's section, before its self-check, with the lead-in and fallback.
      const { tryIt, figure } = (await import(pathToFileURL(join(rootDir, `content/${code}/strings/chapter.js`))))
        .default;
      insertBefore(
        join(copy, `content/${code}/chapter.md`),
        /^<rl-self-check set="summary">/m,
        `${tryIt}: pick x.\n\n<${TAG}>${figure}the number x that the reader picks, shown as text.</${TAG}>\n\n`,
      );
    }
    // 3. The row, after the last section's widgets.
    insertBefore(
      join(copy, 'web/components/registry.js'),
      /^ {2}\{\n {4}tag: 'rl-self-check'/m,
      `  { tag: '${TAG}', stateKey: 'stub', section: 'summary', worker: null, frameHeight: 400, example: { x: '2' } },\n`,
    );
    // 5. The map's folder and the row from widget to kernel (docs/architecture.md), in the registry's order.
    const architecture = join(copy, 'docs/architecture.md');
    insertBefore(architecture, /self-check\/ \(with the exercise table/, `${FOLDER}/ (a test's stub), `);
    insertBefore(
      architecture,
      /^\| `rl-self-check` /m,
      `| \`${TAG}\` | \`lab.describe\` | \`options_bindings.cpp\` \`describe_options\` | \`api/all_options.cpp\` \`all_tables\` | — |\n`,
    );

    // without NODE_TEST_CONTEXT, which the runner sets around this test: with it the inner run reports to the
    // outer one and exits 0 whatever fails
    const { NODE_TEST_CONTEXT, ...env } = process.env;
    const node = (...args) => execFileSync(process.execPath, args, { cwd: copy, env, stdio: 'pipe', encoding: 'utf8' });
    node(join(copy, 'scripts/build.mjs'), '--site-only');
    node(join(copy, 'scripts/options-doc.mjs'), '--write');
    const dist = join(copy, 'dist');
    const read = (path) => readFileSync(join(dist, path), 'utf8');

    for (const { page } of LANGUAGES)
      assert.match(read(page), new RegExp(`<${TAG} class="lab-widget">`), `${page}: marked for page.css`);
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
    const at = WIDGET_TAGS.indexOf(TAG);
    assert.ok(at >= 0, 'components/index.js lists it');
    assert.equal(WIDGET_ELEMENTS[at].tag, TAG, 'components/index.js defines it');
    assert.equal(WIDGET_ELEMENTS.length, WIDGET_TAGS.length);
    assert.match(readFileSync(join(copy, 'docs/embedding.md'), 'utf8'), new RegExp(`<${TAG}>`), 'its attributes');

    // The tests the doc names, and the two that hold docs/architecture.md, pass in the copy (a git repository of
    // its files: the registry's tests list them with git ls-files).
    execFileSync('git', ['init', '-q'], { cwd: copy });
    execFileSync('git', ['add', '-A'], { cwd: copy });
    const named = readFileSync(join(rootDir, 'docs/extending.md'), 'utf8').match(DOC_TESTS)[1].split(' ');
    assert.ok(named.includes('tests/js/map.test.mjs') && named.includes('tests/js/widget-paths.test.mjs'));
    node('--test', ...named);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
