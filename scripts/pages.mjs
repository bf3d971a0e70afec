// Renders the chapter in every language of web/languages.js (content/<code>/chapter.md) into a static page each
// (the row's page: index.html, en/index.html), and typesets the widgets' formulas into components/shared/formulas.js, under outDir.
// Called by scripts/build.mjs after web/ is copied into the site tree, .dist-site/ (scripts/lib/site-assets.mjs
// then makes dist/ from it and points the pages at the hashed files): `await renderPages({ rootDir, outDir })`.
//
// Markdown: markdown-it with raw HTML on (widgets are custom-element tags on their own lines), headings carry
// their ids as `## Title {#section-id}`, formulas are `$...$` and `$$...$$` typeset by KaTeX as MathML only
// (its HTML output needs style attributes, which the page CSP blocks). A formula KaTeX cannot parse, or any
// style attribute in the output, fails the build instead of shipping a broken page.
//
// Every HTML page in outDir (these two and the ones copied from web/, such as embed-example.html) carries the
// lab's Content-Security-Policy as a meta element, so the site keeps it on a static host that sends no header.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import katex from 'katex';
import MarkdownIt from 'markdown-it';
import texmath from 'markdown-it-texmath';
import { FALLBACK_LANGUAGE, LANGUAGES, languageCode, stringsOf } from '../web/languages.js';
import { WIDGETS, widgetModule, widgetOf } from '../web/components/registry.js';
import { LOADED_STRINGS, WIDGET_STRINGS } from '../web/widget-strings.js';
import { CSP_META } from './lib/csp.mjs';

/** The chapter page's stylesheets, in cascade order: the page, its header, then paper (which overrides both). */
export const PAGE_STYLES = ['styles/page.css', 'styles/page-header.css', 'styles/page-print.css'];

// One page per row of the language table (web/languages.js), its chapter content/<code>/chapter.md. Paths are
// relative, so the site works from any URL prefix (and the language menu keeps ?query and #section: shell/page.js
// rewrites a link's href before it is followed).
const PAGE_LANGUAGES = LANGUAGES.map((row) => ({
  ...row,
  base: '../'.repeat(row.page.split('/').length - 1),
  ui: stringsOf(row.code, 'page'),
}));

const escapeHtml = (text) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** The href from `row`'s page to `other`'s. */
const pageHref = (row, other) => posix.relative(posix.dirname(row.page), other.page);

/**
 * The language menu: every row of the table, each link in its own language, the page's own marked current. A
 * <details> disclosure, so it opens and closes from the keyboard with no script (shell/page.js adds Escape).
 */
function languageMenu(language) {
  const links = PAGE_LANGUAGES.map(
    (row) =>
      `        <li><a href="${pageHref(language, row)}" hreflang="${row.htmlLang}" lang="${row.htmlLang}"${row.code === language.code ? ' aria-current="page"' : ''} data-lang-link="${row.code}">${escapeHtml(row.name)}</a></li>`,
  );
  return `<details class="lang-menu" data-lang-menu>
      <summary class="header-button" aria-label="${escapeHtml(language.ui.languageMenu(language.name))}" title="${language.ui.languages}">${escapeHtml(language.name)}</summary>
      <ul class="lang-menu-list">
${links.join('\n')}
      </ul>
    </details>`;
}

function pageHtml({ language, body, title, headings }) {
  const { code, htmlLang, base, ui } = language;
  const alternates = PAGE_LANGUAGES.filter((row) => row.code !== code).map(
    (row) => `<link rel="alternate" hreflang="${row.htmlLang}" href="${pageHref(language, row)}">`,
  );
  const toc = headings
    .map((h) => `        <li><a href="#${h.id}" data-toc-link="${h.id}">${escapeHtml(h.text)}</a></li>`)
    .join('\n');
  return `<!doctype html>
<html lang="${htmlLang}">
<head>
  <meta charset="utf-8">
  ${CSP_META}
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)} · Residual Lab</title>
  <meta name="color-scheme" content="light dark">
  <link rel="icon" href="${base}favicon.svg" type="image/svg+xml">
  ${alternates.join('\n  ')}
  ${PAGE_STYLES.map((file) => `<link rel="stylesheet" href="${base}${file}">`).join('\n  ')}
  <script src="${base}shell/theme-init.js"></script>
  <script type="module" src="${base}shell/page.js"></script>
  <script type="module" src="${base}components/index.js"></script>
</head>
<body>
  <a class="skip-link" href="#main">${ui.skip}</a>
  <header class="site-header">
    <p class="site-title"><a href="#top">Residual Lab · ${escapeHtml(title)}</a></p>
    ${languageMenu(language)}
    <button type="button" class="header-button theme-toggle" aria-pressed="false" data-theme-toggle><span class="theme-icon-dark" aria-hidden="true">☾ </span><span class="theme-icon-light" aria-hidden="true">☀ </span><span class="theme-label">${ui.theme}</span></button>
  </header>
  <div class="layout" id="top">
    <nav class="toc" aria-label="${ui.contentsLabel}">
      <details open>
        <summary>${ui.contents}</summary>
        <ol>
${toc}
        </ol>
      </details>
    </nav>
    <main id="main" tabindex="-1">
      <p class="file-note" role="note">${ui.fileNote(`${base}offline/residual-lab-${code}.html`)}</p>
      <article>
${body}
      </article>
    </main>
  </div>
  <footer class="site-footer"><p>${ui.footer}</p></footer>
</body>
</html>
`;
}

const HEADING_ID = /\s*\{#([A-Za-z][\w-]*)\}\s*$/;

function typeset(tex, displayMode, where) {
  try {
    return katex.renderToString(tex, { displayMode, output: 'mathml', throwOnError: true, strict: 'error' });
  } catch (error) {
    throw new Error(`${where}: KaTeX cannot typeset ${JSON.stringify(tex)}: ${error.message}`);
  }
}

/** `## Title {#id}` -> <h2 id="id">Title</h2>; collects the h2 headings for the table of contents. */
function headingIds(md, headings) {
  md.core.ruler.push('heading_ids', (state) => {
    const { tokens } = state;
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i].type !== 'heading_open') continue;
      const inline = tokens[i + 1];
      const match = inline.content.match(HEADING_ID);
      if (!match) continue;
      inline.content = inline.content.replace(HEADING_ID, '');
      const last = inline.children.at(-1);
      if (last?.type === 'text') last.content = last.content.replace(HEADING_ID, '');
      tokens[i].attrSet('id', match[1]);
      if (tokens[i].tag === 'h2') headings.push({ id: match[1], text: plainText(inline.children) });
    }
  });
}

function plainText(children) {
  return children
    .map((t) => (['text', 'code_inline', 'math_inline'].includes(t.type) ? t.content : ''))
    .join('')
    .trim();
}

/**
 * Wraps each h2 and what follows it in <section data-section="id">, so the table of contents can watch which
 * section crosses the reading line (an IntersectionObserver per section, in shell/page.js).
 */
function sectionWrappers(md) {
  md.core.ruler.push('section_wrappers', (state) => {
    const out = [];
    let open = false;
    const html = (content) => Object.assign(new state.Token('html_block', '', 0), { content, block: true });
    for (const token of state.tokens) {
      if (token.type === 'heading_open' && token.tag === 'h2') {
        if (open) out.push(html('</section>\n'));
        const id = token.attrGet('id');
        out.push(
          html(
            id
              ? `<section class="chapter-section" data-section="${id}" aria-labelledby="${id}">\n`
              : '<section class="chapter-section">\n',
          ),
        );
        open = true;
      }
      out.push(token);
    }
    if (open) out.push(html('</section>\n'));
    state.tokens = out;
  });
}

/** markdown-it aligns table columns with style="text-align:..."; the CSP blocks that, so use classes. */
function tableAlignClasses(md) {
  md.core.ruler.push('table_align_classes', (state) => {
    for (const token of state.tokens) {
      if (token.type !== 'th_open' && token.type !== 'td_open') continue;
      const align = token.attrGet('style')?.match(/text-align:\s*(left|center|right)/)?.[1];
      if (!align) continue;
      token.attrs = token.attrs.filter(([name]) => name !== 'style');
      token.attrJoin('class', `align-${align}`);
    }
  });
}

/**
 * A widget tag with its fallback sentence on one line (`<rl-vector-lab>Interactive figure: ...</rl-vector-lab>`)
 * is inline HTML to markdown-it, so it would land in a <p>: the paragraph's own tags are dropped, the widget
 * stands on its own in the section.
 */
function bareWidgetTags(md) {
  const widgetLine = /^<(rl-[a-z0-9-]+)(\s[^>]*)?>[^<]*<\/\1>$/;
  md.core.ruler.push('bare_widget_tags', (state) => {
    state.tokens.forEach((token, i) => {
      if (token.type !== 'paragraph_open' || !widgetLine.test(state.tokens[i + 1]?.content ?? '')) return;
      token.hidden = true;
      state.tokens[i + 2].hidden = true;
    });
  });
}

/**
 * Code blocks scroll sideways on a narrow screen, so a keyboard reader must be able to focus them: tabindex 0,
 * and a name for what the focus lands on.
 */
function focusableCode(md, codeLabel) {
  const fence = md.renderer.rules.fence;
  md.renderer.rules.fence = (...args) =>
    fence(...args).replace(/^<pre>/, `<pre tabindex="0" role="group" aria-label="${codeLabel}">`);
}

function createMarkdown(headings, source, ui) {
  // A display formula or a table scrolls sideways on a narrow screen: focusable (and named) like the code blocks.
  const formulaLabel = ui.formula;
  const md = new MarkdownIt({ html: true, linkify: false, typographer: false });
  md.use(texmath, { engine: katex, delimiters: 'dollars', katexOptions: { output: 'mathml' } });
  // Our own renderers for texmath's tokens: MathML only, a failed formula fails the build, and display
  // formulas in a scrollable block (texmath's default wraps them in <section>, which the TOC would mistake).
  for (const name of ['math_inline', 'math_inline_double']) {
    md.renderer.rules[name] = (tokens, idx) => typeset(tokens[idx].content, name === 'math_inline_double', source);
  }
  for (const name of ['math_block', 'math_block_eqno']) {
    md.renderer.rules[name] = (tokens, idx) =>
      `<div class="math-display" tabindex="0" role="group" aria-label="${formulaLabel}">${typeset(tokens[idx].content, true, source)}</div>\n`;
  }
  md.renderer.rules.table_open = () =>
    `<div class="table-scroll" tabindex="0" role="group" aria-label="${ui.table}"><table>\n`;
  md.renderer.rules.table_close = () => '</table></div>\n';
  headingIds(md, headings);
  sectionWrappers(md);
  tableAlignClasses(md);
  bareWidgetTags(md);
  focusableCode(md, ui.code);
  return md;
}

function renderChapter(markdownText, source, ui) {
  const headings = [];
  const md = createMarkdown(headings, source, ui);
  const body = md.render(markdownText);
  const title = markdownText.match(/^#\s+(.+)$/m)?.[1].trim() ?? 'Residual Lab';
  if (/\sstyle\s*=/i.test(body))
    throw new Error(`${source}: the rendered page holds a style attribute, which the CSP (style-src 'self') blocks`);
  checkWidgetTags(body, source);
  return { body: markWidgets(body), title, headings };
}

/** The class page.css gives every widget of the chapter (its spacing, and whole on one printed page). */
export const WIDGET_CLASS = 'lab-widget';

/** `html` with every widget's opening tag marked with WIDGET_CLASS (the widgets come without a class). */
export function markWidgets(html) {
  return html.replace(/<(rl-[a-z0-9-]+)(?=[\s>])/g, (whole, tag) =>
    widgetOf(tag) ? `<${tag} class="${WIDGET_CLASS}"` : whole,
  );
}

/** A tag `<rl-...>` in a rendered page that is no widget of web/components/registry.js fails the build. */
export function checkWidgetTags(html, source) {
  const unknown = [...new Set([...html.matchAll(/<(rl-[a-z0-9-]+)/g)].map((m) => m[1]))].filter(
    (tag) => !widgetOf(tag),
  );
  if (unknown.length)
    throw new Error(
      `${source}: ${unknown.map((tag) => `<${tag}>`).join(', ')} is no widget of web/components/registry.js`,
    );
}

/** Typesets components/shared/formula-sources.js into components/shared/formulas.js under outDir. */
async function renderWidgetFormulas(rootDir, outDir) {
  const sourcesUrl = pathToFileURL(join(rootDir, 'web/components/shared/formula-sources.js'));
  const { FORMULA_SOURCES } = await import(sourcesUrl.href);
  const typesetFormulas = Object.fromEntries(
    Object.entries(FORMULA_SOURCES).map(([key, tex]) => [key, typeset(tex, false, `formula ${key}`)]),
  );
  const target = join(outDir, 'components/shared/formulas.js');
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(
    target,
    `// Generated by scripts/pages.mjs from formula-sources.js (KaTeX, MathML output). Do not edit.\nexport const FORMULAS = ${JSON.stringify(typesetFormulas, null, 1)};\n`,
  );
}

const WIDGET_LIST_MARKER = /^( *)<!-- widget-list:[^>]*-->\n/m;

/**
 * `html` with its widget-list marker (a comment `<!-- widget-list: ... -->` in a list) replaced by one item per
 * widget of the registry: the tag and the widget's title, in the page's language.
 */
export function withWidgetList(html) {
  const marker = html.match(WIDGET_LIST_MARKER);
  if (!marker) return html;
  const code = languageCode(html.match(/<html lang="([^"]*)"/)?.[1]);
  const escape = (text) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  const items = WIDGETS.map(
    ({ tag }) => `${marker[1]}<li><code>&lt;${tag}&gt;</code> ${escape(stringsOf(code, tag).title)}</li>\n`,
  );
  return html.replace(WIDGET_LIST_MARKER, () => items.join(''));
}

/** The source of components/widget-modules.js: every widget's element module (widgetModule), in the registry's order. */
export function widgetModulesSource() {
  return [
    '// Generated by scripts/pages.mjs from registry.js: every widget module, in its order. Do not edit.',
    ...WIDGETS.map((widget, i) => `import * as widget${i} from './${widgetModule(widget)}';`),
    `export const WIDGET_MODULES = [${WIDGETS.map((_, i) => `widget${i}`).join(', ')}];`,
    '',
  ].join('\n');
}

const isTable = (value) =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

/** Whether `own` leaves out a text of `fallback`, at any depth (as languages.js stringsOf fills them in). */
function lacksTexts(own, fallback) {
  if (own === undefined) return fallback !== undefined;
  if (!isTable(own) || !isTable(fallback)) return false;
  return Object.keys(fallback).some((key) => lacksTexts(own[key], fallback[key]));
}

/** The file name of language `code`'s texts in the browser's site, beside widget-strings.js. */
export const languageStringsFile = (code) => `widget-strings-${code}.js`;

/**
 * The browser's widget-strings.js (node's reads the files at run time, with top-level await, which the offline
 * file's classic script cannot hold): a loader per language of its module (languageStringsSource), which the
 * bundler makes a chunk of its own, and the languages that need the fallback language's texts as well.
 */
export function widgetStringsSource() {
  const fallback = LOADED_STRINGS[FALLBACK_LANGUAGE];
  const incomplete = Object.keys(LOADED_STRINGS).filter((code) => lacksTexts(LOADED_STRINGS[code], fallback));
  return [
    "// Generated by scripts/pages.mjs from content/: each language's texts, loaded when first asked for. Do not edit.",
    'export const LOADED_STRINGS = {};',
    'export const STRINGS_LOADERS = {',
    ...Object.keys(WIDGET_STRINGS).map(
      (code) => `  ${JSON.stringify(code)}: () => import('./${languageStringsFile(code)}'),`,
    ),
    '};',
    `export const INCOMPLETE_LANGUAGES = ${JSON.stringify(incomplete)};`,
    '',
  ].join('\n');
}

/**
 * The browser's module of language `code`'s texts: the very files node's table loaded, strings/index.js and
 * content/<code>/strings/<tag>.js for every registered tag, imported statically.
 */
export function languageStringsSource(code) {
  const imports = Object.keys(WIDGET_STRINGS[code]).map(
    (tag, i) => `import strings${i} from '../content/${code}/strings/${tag}.js';`,
  );
  const entries = Object.keys(WIDGET_STRINGS[code]).map((tag, i) => `${JSON.stringify(tag)}: strings${i}`);
  return [
    `// Generated by scripts/pages.mjs from content/${code}/strings/: every text of the language. Do not edit.`,
    `import texts from '../content/${code}/strings/index.js';`,
    ...imports,
    `export default { ...texts, ${entries.join(', ')} };`,
    '',
  ].join('\n');
}

function renderWidgetModules(outDir) {
  mkdirSync(join(outDir, 'components'), { recursive: true });
  writeFileSync(join(outDir, 'components/widget-modules.js'), widgetModulesSource());
  writeFileSync(join(outDir, 'widget-strings.js'), widgetStringsSource());
  for (const code of Object.keys(WIDGET_STRINGS))
    writeFileSync(join(outDir, languageStringsFile(code)), languageStringsSource(code));
}

const CSP_META_PATTERN = /<meta\s+http-equiv="Content-Security-Policy"[^>]*>/gi;

/**
 * `html` with the lab's CSP meta right after <meta charset> (a policy only applies to what follows it in the
 * head). A page without <meta charset>, or with another CSP meta, fails the build.
 */
export function withCspMeta(html, where) {
  const metas = html.match(CSP_META_PATTERN) ?? [];
  if (metas.length === 1 && metas[0] === CSP_META) return html;
  if (metas.length)
    throw new Error(`${where}: holds a Content-Security-Policy meta other than the lab's (scripts/lib/csp.mjs)`);
  const charset = html.match(/<meta charset="utf-8">\n?/i);
  if (!charset) throw new Error(`${where}: no <meta charset="utf-8"> to put the Content-Security-Policy meta after`);
  const at = charset.index + charset[0].length;
  return `${html.slice(0, at)}  ${CSP_META}\n${html.slice(at)}`;
}

function htmlFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.html'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

export async function renderPages({ rootDir, outDir }) {
  const chapters = PAGE_LANGUAGES.map((language) => {
    const source = join(rootDir, 'content', language.code, 'chapter.md');
    return { language, ...renderChapter(readFileSync(source, 'utf8'), source, language.ui) };
  });
  const ids = chapters.map((c) => c.headings.map((h) => h.id).join(' '));
  if (new Set(ids).size !== 1) {
    throw new Error(
      `the language versions have different sections:\n  ${chapters.map((c, i) => `${c.language.code}: ${ids[i]}`).join('\n  ')}`,
    );
  }
  for (const chapter of chapters) {
    const target = join(outDir, chapter.language.page);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, pageHtml(chapter));
  }
  for (const file of htmlFiles(outDir))
    writeFileSync(file, withCspMeta(withWidgetList(readFileSync(file, 'utf8')), file));
  await renderWidgetFormulas(rootDir, outDir);
  renderWidgetModules(outDir);
  return chapters.map((c) => join(outDir, c.language.page));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [rootDir = process.cwd(), outDir = join(rootDir, 'dist')] = process.argv.slice(2);
  const written = await renderPages({ rootDir, outDir });
  console.log(`pages: wrote ${written.join(', ')}`);
}
