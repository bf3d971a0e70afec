// Content checks for the chapter Markdown (content/<code>/chapter.md, every language of web/languages.js): the
// structure the page build and the language switch rely on (section ids, widget tags and where they sit), and that
// every formula parses.
// The chapter's numbers and claims: content-facts.test.mjs.
// Run: node --test tests/js/content.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SECTION_IDS } from './chapter-sections.mjs';
import { WIDGETS } from '../../web/components/registry.js';
import { EXERCISE_SECTIONS } from '../../web/components/self-check/exercises.js';
import katex from 'katex';
import { LANGS, chapters, markdown, walkTokens } from './chapter-text.mjs';

// widget tag -> the section it must sit in (web/components/registry.js)
const WIDGET_SECTION = Object.fromEntries(
  WIDGETS.filter((widget) => widget.section).map((widget) => [widget.tag, widget.section]),
);
// <rl-self-check set="<section>">: one per section that has exercises, the section's last element (its row has no section).
const SELF_CHECK = 'rl-self-check';

// ---------- per-language checks ----------

for (const [lang, { tryIt, figure }] of Object.entries(LANGS)) {
  const ch = chapters[lang];

  test(`${lang}: starts with a level-1 title and has exactly one`, () => {
    assert.match(ch.lines[0], /^# \S/, 'first line must be "# <title>"');
    assert.equal(ch.headings.filter((h) => h.level === 1).length, 1);
  });

  test(`${lang}: section ids present exactly once, in order, every ## heading has an id`, () => {
    const h2 = ch.headings.filter((h) => h.level === 2);
    for (const h of h2) assert.ok(h.id, `line ${h.line}: "## ${h.text}" lacks an explicit {#id}`);
    assert.deepEqual(
      h2.map((h) => h.id),
      SECTION_IDS,
    );
  });

  test(`${lang}: heading ids are unique`, () => {
    const ids = ch.headings.filter((h) => h.id).map((h) => h.id);
    const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
    assert.deepEqual(dupes, [], `duplicate ids: ${dupes.join(', ')}`);
  });

  test(`${lang}: every code fence is closed`, () => {
    assert.equal(ch.unclosedAt, null, `fence opened on line ${ch.unclosedAt} is never closed`);
  });

  test(`${lang}: math delimiters are balanced line by line`, () => {
    let displayOpenedAt = null;
    ch.lines.forEach((line, i) => {
      if (ch.inCode[i]) return;
      if (line.trim() === '$$') {
        displayOpenedAt = displayOpenedAt === null ? i + 1 : null;
        return;
      }
      if (displayOpenedAt !== null) return;
      const bare = line.replace(/`[^`]*`/g, '').replace(/\\\$/g, '');
      assert.ok(!bare.includes('$$'), `line ${i + 1}: put display math on lines of its own`);
      const dollars = (bare.match(/\$/g) || []).length;
      assert.equal(dollars % 2, 0, `line ${i + 1}: odd number of $ delimiters`);
    });
    assert.equal(displayOpenedAt, null, `display math opened on line ${displayOpenedAt} is never closed`);
  });

  test(`${lang}: every formula parses with markdown-it-texmath and KaTeX, no $ left as text`, () => {
    const tokens = markdown().parse(ch.text, {});
    let formulas = 0;
    for (const t of walkTokens(tokens)) {
      assert.notEqual(t.type, 'math_block_eqno', 'a "(" right after display math was read as an equation number');
      if (t.type.startsWith('math_')) {
        formulas += 1;
        assert.doesNotThrow(
          () => katex.renderToString(t.content, { throwOnError: true, strict: 'error' }),
          `KaTeX rejects: ${t.content}`,
        );
      }
      if (t.type === 'text') assert.ok(!t.content.includes('$'), `unparsed $ in text: "${t.content}"`);
    }
    assert.ok(formulas >= 30, `only ${formulas} formulas found`);
  });

  test(`${lang}: every widget tag is present once, on its own line, in its section, after a "${tryIt}" line`, () => {
    const found = [];
    ch.lines.forEach((line, i) => {
      if (ch.inCode[i]) return;
      for (const m of line.matchAll(/<(rl-[a-z0-9-]+)/g)) found.push({ tag: m[1], i });
    });
    const unknown = found.filter((f) => !(f.tag in WIDGET_SECTION) && f.tag !== SELF_CHECK).map((f) => f.tag);
    assert.deepEqual(unknown, [], `unknown widget tags: ${unknown.join(', ')}`);
    for (const [tag, section] of Object.entries(WIDGET_SECTION)) {
      const hits = found.filter((f) => f.tag === tag);
      assert.equal(hits.length, 1, `<${tag}> must appear exactly once, found ${hits.length}`);
      const { i } = hits[0];
      // the tag holds one sentence, shown before the script runs (or without it): what the figure is
      assert.match(
        ch.lines[i],
        new RegExp(`^<${tag}(\\s[^>]*)?>${figure.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^<]{20,300}</${tag}>$`),
        `<${tag}> must be alone on its line, with its fallback sentence`,
      );
      assert.equal(ch.lines[i - 1], '', `<${tag}> needs a blank line before it`);
      assert.equal(ch.lines[i + 1], '', `<${tag}> needs a blank line after it`);
      assert.equal(ch.sectionOf[i], section, `<${tag}> belongs in #${section}`);
      assert.ok(ch.lines[i - 2].startsWith(tryIt), `<${tag}>: the line before it should start with "${tryIt}"`);
    }
  });

  test(`${lang}: each section with exercises ends with its <rl-self-check set>, alone on its line`, () => {
    const checks = [];
    ch.lines.forEach((line, i) => {
      if (!ch.inCode[i] && line.includes(`<${SELF_CHECK}`)) checks.push({ line, i });
    });
    assert.deepEqual(
      checks.map(({ i }) => ch.sectionOf[i]),
      EXERCISE_SECTIONS,
      'one self-check per section, in chapter order',
    );
    for (const { line, i } of checks) {
      const section = ch.sectionOf[i];
      assert.match(
        line,
        new RegExp(`^<${SELF_CHECK} set="${section}">[^<]+</${SELF_CHECK}>$`),
        `#${section}: the self-check names its own section and holds its fallback sentence`,
      );
      assert.equal(ch.lines[i - 1], '', `#${section}: a blank line before the self-check`);
      const rest = ch.lines.slice(i + 1).findIndex((l, k) => l.trim() !== '' || ch.sectionOf[i + 1 + k] !== section);
      assert.notEqual(ch.sectionOf[i + 1 + rest], section, `#${section}: the self-check is the section's last element`);
    }
    const html = markdown().render(ch.text);
    for (const section of EXERCISE_SECTIONS) {
      assert.match(
        html,
        new RegExp(`<${SELF_CHECK} set="${section}">[^<]+</${SELF_CHECK}>`),
        `#${section}: the set attribute survives rendering`,
      );
    }
  });

  test(`${lang}: widget tags survive Markdown rendering`, () => {
    const html = markdown().render(ch.text);
    for (const tag of Object.keys(WIDGET_SECTION))
      assert.match(html, new RegExp(`<${tag}>[^<]+</${tag}>`), `<${tag}> lost`);
  });
}

// ---------- every language against the first ----------

test('every language: the widget tags, sub-section ids, formulas and code blocks of the first', () => {
  const profile = (ch) => ({
    widgets: [...ch.text.matchAll(/<(rl-[a-z0-9-]+)/g)].map((m) => m[1]),
    subsections: ch.headings.filter((h) => h.level === 3).map((h) => h.id),
    displayMath: ch.lines.filter((l, i) => !ch.inCode[i] && l.trim() === '$$').length,
    codeFences: ch.lines.filter((l) => /^ {0,3}(```|~~~)/.test(l)).length,
  });
  const [first, ...others] = Object.keys(chapters);
  const reference = profile(chapters[first]);
  assert.ok(
    reference.subsections.every(Boolean),
    'every ### heading needs an id, so the language switch can keep the place',
  );
  for (const lang of others) {
    const own = profile(chapters[lang]);
    assert.deepEqual(
      own.widgets,
      reference.widgets,
      `${lang}: widget tags differ from ${first}'s or come in another order`,
    );
    assert.deepEqual(own.subsections, reference.subsections, `${lang}: sub-section ids`);
    assert.equal(own.displayMath, reference.displayMath, `${lang}: display formulas`);
    assert.equal(own.codeFences, reference.codeFences, `${lang}: code fences`);
  }
});
