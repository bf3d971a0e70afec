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
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LANGUAGES } from '../../web/languages.js';
import { CODES } from './per-language.mjs';
import { copyRepository, nodeIn } from './repo-copy.mjs';
import { TAG, TITLE, addStubWidget } from './stub-widget.mjs';

const rootDir = join(dirname(fileURLToPath(import.meta.url)), '../..');

// The tests docs/extending.md names for a widget ("Then run the tests these rules name"), run in the copy.
const DOC_TESTS = /^node --test (tests\/js\/[^\n]+)$/m;

test('a widget added as docs/extending.md says is built into the site and passes the tests the doc names', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'rl-widget-'));
  try {
    copyRepository(copy);

    await addStubWidget(copy, CODES);

    const node = (...args) => nodeIn(copy, ...args);
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
