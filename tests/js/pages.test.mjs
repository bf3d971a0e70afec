// scripts/pages.mjs: the chapter pages render with every section, typeset math as MathML, widget tags kept,
// and nothing the page CSP would block (no style attributes, no inline script or style elements); every page
// carries the policy the server sends, and the server refuses other methods than GET and HEAD.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderPages, withCspMeta } from '../../scripts/pages.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { WIDGET_TAGS as WIDGETS } from '../../web/components/registry.js';
import { SECTION_IDS as SECTIONS } from './chapter-sections.mjs';
import { LANGUAGES, stringsOf } from '../../web/languages.js';

const rootDir = join(dirname(fileURLToPath(import.meta.url)), '../..');

let outDir;
let pages;
let embedPage;
let staticPages;
// The HTML pages of web/, copied by the build: each gets the policy too.
const STATIC_PAGES = readdirSync(join(rootDir, 'web')).filter((name) => name.endsWith('.html'));
before(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'rl-pages-'));
  for (const page of STATIC_PAGES) copyFileSync(join(rootDir, 'web', page), join(outDir, page)); // as the build copies web/
  await renderPages({ rootDir, outDir });
  pages = Object.fromEntries(LANGUAGES.map((row) => [row.code, readFileSync(join(outDir, row.page), 'utf8')]));
  embedPage = readFileSync(join(outDir, 'embed-example.html'), 'utf8');
  staticPages = Object.fromEntries(STATIC_PAGES.map((page) => [page, readFileSync(join(outDir, page), 'utf8')]));
});
after(() => rmSync(outDir, { recursive: true, force: true }));

/** One request to the server: { status, headers, rawHeaders, body }. */
function send(url, method, path = '') {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, rawHeaders: res.rawHeaders, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The values of every header named `name` (a header may come more than once). */
function allHeaderValues(rawHeaders, name) {
  const values = [];
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i].toLowerCase() === name) values.push(rawHeaders[i + 1]);
  return values;
}

const metaPolicies = (html) =>
  [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)].map((m) =>
    m[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&'),
  );

test('every page carries, as its first head element after the charset, exactly the policy the server sends', async () => {
  const { server, url } = await startServer({ siteRoot: outDir, port: 0 });
  try {
    assert.ok(
      ['embed-example.html', 'embed.html', 'embed-frame-example.html'].every((page) => STATIC_PAGES.includes(page)),
      STATIC_PAGES.join(', '),
    );
    const built = { ...pages, ...staticPages };
    for (const [name, path] of [
      ...LANGUAGES.map((row) => [row.code, row.page]),
      ...STATIC_PAGES.map((page) => [page, page]),
    ]) {
      const response = await send(url, 'GET', path);
      assert.equal(response.status, 200, path);
      const headerPolicies = allHeaderValues(response.rawHeaders, 'content-security-policy');
      const pagePolicy = headerPolicies.find((policy) => policy.includes('script-src'));
      assert.ok(pagePolicy, `${path}: the server sends the page policy`);
      assert.deepEqual(metaPolicies(built[name]), [pagePolicy], `${name}: one meta, the server's policy word for word`);
      assert.match(pagePolicy, /script-src 'self' 'wasm-unsafe-eval'/);
      assert.doesNotMatch(
        pagePolicy,
        /'unsafe-inline'|'unsafe-eval'|frame-ancestors/,
        'nothing a meta cannot carry, no inline code',
      );
      assert.match(
        built[name],
        /<head>\s*<meta charset="utf-8">\s*<meta http-equiv="Content-Security-Policy"/,
        `${name}: before any script or stylesheet`,
      );
      // Framing is allowed on purpose (the lab is meant to be embedded), by its own header policy.
      assert.deepEqual(
        headerPolicies.filter((policy) => policy !== pagePolicy),
        ['frame-ancestors *'],
      );
      assert.equal(response.headers['x-frame-options'], undefined);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('withCspMeta adds the meta once, keeps it on a second pass and refuses a foreign one', () => {
  const page = '<!doctype html>\n<html>\n<head>\n  <meta charset="utf-8">\n  <title>t</title>\n</head>\n</html>\n';
  const once = withCspMeta(page, 'page');
  assert.equal(metaPolicies(once).length, 1);
  assert.equal(withCspMeta(once, 'page'), once);
  assert.throws(
    () =>
      withCspMeta(
        page.replace('<title>', '<meta http-equiv="Content-Security-Policy" content="default-src *"><title>'),
        'page',
      ),
    /other than the lab's/,
  );
  assert.throws(() => withCspMeta('<html><head></head></html>', 'page'), /no <meta charset/);
});

test('the server answers 405 with Allow: GET, HEAD to other methods, and GET and HEAD as before', async () => {
  const { server, url } = await startServer({ siteRoot: outDir, port: 0 });
  try {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      for (const path of ['index.html', 'no-such-file']) {
        const response = await send(url, method, path);
        assert.equal(response.status, 405, `${method} ${path}`);
        assert.equal(response.headers.allow, 'GET, HEAD', `${method} ${path}`);
      }
    }
    const head = await send(url, 'HEAD', 'index.html');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.ok(Number(head.headers['content-length']) > 1000);
    assert.equal((await send(url, 'GET', 'no-such-file')).status, 404);
    assert.equal((await send(url, 'GET', 'en/')).status, 200);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('each page has every section in order, as a heading with its id and a contents link', () => {
  for (const [lang, html] of Object.entries(pages)) {
    const headingIds = [...html.matchAll(/<h2 id="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(headingIds, SECTIONS, `${lang}: h2 ids`);
    const tocIds = [...html.matchAll(/data-toc-link="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(tocIds, SECTIONS, `${lang}: contents`);
    assert.ok(!/\{#[\w-]+\}/.test(html), `${lang}: no heading-id marker left in the text`);
  }
});

test('every widget tag reaches the page, and the pages set their language', () => {
  for (const [lang, html] of Object.entries(pages)) {
    for (const tag of WIDGETS) assert.ok(html.includes(`<${tag}`), `${lang}: <${tag}>`);
  }
  for (const row of LANGUAGES) {
    const html = pages[row.code];
    assert.ok(html.includes(`<html lang="${row.htmlLang}">`), `${row.code}: <html lang>`);
    // the language menu lists every language, each link in its own language, the page's own marked current
    for (const link of LANGUAGES) {
      const href = posix.relative(posix.dirname(row.page), link.page);
      const current = link === row ? ' aria-current="page"' : '';
      assert.ok(
        html.includes(
          `<a href="${href}" hreflang="${link.htmlLang}" lang="${link.htmlLang}"${current} data-lang-link="${link.code}">${link.name}</a>`,
        ),
        `${row.code}: the menu's link to ${link.code}`,
      );
    }
    const ui = stringsOf(row.code, 'page');
    assert.ok(
      html.includes(
        `<summary class="header-button" aria-label="${ui.languageMenu(row.name)}" title="${ui.languages}">${row.name}</summary>`,
      ),
      `${row.code}: the menu button names the page's language`,
    );
    // the widgets load from the site root, however deep the page is ("../components/index.js" from en/)
    const widgets = posix.relative(posix.dirname(row.page), 'components/index.js');
    assert.ok(html.includes(`src="${widgets}"`), `${row.code}: the widgets from ${widgets}`);
  }
});

test('formulas are MathML (KaTeX output mathml), including the chapter formulas', () => {
  for (const [lang, html] of Object.entries(pages)) {
    assert.ok((html.match(/<math/g) ?? []).length > 40, `${lang}: many formulas`);
    assert.ok(!html.includes('katex-html'), `${lang}: no KaTeX HTML output`);
    assert.ok(!html.includes('katex-error'), `${lang}: no formula failed`);
    assert.ok(
      !/(^|[^\\])\$\$/.test(html.replace(/<annotation[\s\S]*?<\/annotation>/g, '')),
      `${lang}: no untypeset $$`,
    );
    assert.match(
      html,
      /<div class="math-display"[^>]*><span class="katex"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML" display="block">/,
    );
  }
});

test('nothing in the pages needs style-src or script-src exceptions', () => {
  for (const [lang, html] of Object.entries(pages)) {
    assert.ok(!/\sstyle\s*=/i.test(html), `${lang}: a style attribute`);
    assert.ok(!/<style[\s>]/i.test(html), `${lang}: a <style> element`);
    for (const script of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
      assert.match(script[1], /\ssrc="/, `${lang}: every script is a file`);
      assert.equal(script[2].trim(), '', `${lang}: no inline script`);
    }
    assert.ok(
      !/\son[a-z]+\s*=/i.test(html.replace(/<annotation[\s\S]*?<\/annotation>/g, '')),
      `${lang}: no inline event handler`,
    );
  }
});

test('markdown tables align with classes, and the widget formulas are typeset for the components', async () => {
  for (const [lang, html] of Object.entries(pages)) assert.match(html, /<td class="align-right">/, lang);
  const { FORMULAS } = await import(join(outDir, 'components/shared/formulas.js'));
  const { FORMULA_SOURCES } = await import('../../web/components/shared/formula-sources.js');
  assert.deepEqual(Object.keys(FORMULAS).sort(), Object.keys(FORMULA_SOURCES).sort());
  for (const mathml of Object.values(FORMULAS)) assert.match(mathml, /^<span class="katex"><math/);
});
