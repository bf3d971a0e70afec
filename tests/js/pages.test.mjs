// scripts/pages.mjs: the chapter pages render with every section, typeset math as MathML, widget tags kept,
// and nothing the page CSP would block (no style attributes, no inline script or style elements).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderPages } from '../../scripts/pages.mjs';
import { SECTION_IDS as SECTIONS } from './chapter-sections.mjs';

const rootDir = join(dirname(fileURLToPath(import.meta.url)), '../..');
const WIDGETS = ['rl-vector-lab', 'rl-precision-lab', 'rl-gemma-trap', 'rl-softcap-explorer', 'rl-residual-growth', 'rl-gradient-flow', 'rl-placement-lab', 'rl-warmup-race', 'rl-qk-norm-lab', 'rl-init-scaling'];

let outDir;
let pages;
before(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'rl-pages-'));
  await renderPages({ rootDir, outDir });
  pages = { zh: readFileSync(join(outDir, 'index.html'), 'utf8'), en: readFileSync(join(outDir, 'en/index.html'), 'utf8') };
});
after(() => rmSync(outDir, { recursive: true, force: true }));

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
  assert.match(pages.zh, /<html lang="zh-CN">/);
  assert.match(pages.en, /<html lang="en">/);
  assert.match(pages.zh, /href="en\/index.html"[^>]*data-lang-switch/);
  assert.match(pages.en, /href="\.\.\/index.html"[^>]*data-lang-switch/);
  assert.match(pages.en, /src="\.\.\/components\/index.js"/, 'the English page loads the widgets from one level up');
});

test('formulas are MathML (KaTeX output mathml), including the chapter formulas', () => {
  for (const [lang, html] of Object.entries(pages)) {
    assert.ok((html.match(/<math/g) ?? []).length > 40, `${lang}: many formulas`);
    assert.ok(!html.includes('katex-html'), `${lang}: no KaTeX HTML output`);
    assert.ok(!html.includes('katex-error'), `${lang}: no formula failed`);
    assert.ok(!/(^|[^\\])\$\$/.test(html.replace(/<annotation[\s\S]*?<\/annotation>/g, '')), `${lang}: no untypeset $$`);
    assert.match(html, /<div class="math-display"><span class="katex"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML" display="block">/);
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
    assert.ok(!/\son[a-z]+\s*=/i.test(html.replace(/<annotation[\s\S]*?<\/annotation>/g, '')), `${lang}: no inline event handler`);
  }
});

test('markdown tables align with classes, and the widget formulas are typeset for the components', async () => {
  assert.match(pages.en, /<td class="align-right">/);
  const { FORMULAS } = await import(join(outDir, 'components/shared/formulas.js'));
  const { FORMULA_SOURCES } = await import('../../web/components/shared/formula-sources.js');
  assert.deepEqual(Object.keys(FORMULAS).sort(), Object.keys(FORMULA_SOURCES).sort());
  for (const mathml of Object.values(FORMULAS)) assert.match(mathml, /^<span class="katex"><math/);
});
