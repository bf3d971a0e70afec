// The chapters' Markdown as the content tests read it: each language's lines, which are code, its headings, the
// section every line sits in ('intro' before the first ## heading) and each section's text, and markdown-it with
// texmath as the page build renders it.
import { readFileSync } from 'node:fs';
import MarkdownIt from 'markdown-it';
import texmath from 'markdown-it-texmath';
import katex from 'katex';
import { LANGUAGES } from '../../web/languages.js';

const CONTENT_DIR = new URL('../../content/', import.meta.url);
// every language of the table, with the words its chapter uses around a widget (content/<lang>/strings/chapter.js)
export const LANGS = Object.fromEntries(LANGUAGES.map((row) => [row.code, row.strings.chapter]));

// Classifies each line: fence lines and lines inside fences are code; reports an unclosed fence.
export function scanFences(lines) {
  const inCode = new Array(lines.length).fill(false);
  let open = null; // { char, length, line }
  lines.forEach((line, i) => {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      inCode[i] = true;
      if (m && m[1][0] === open.char && m[1].length >= open.length && m[2].trim() === '') open = null;
    } else if (m) {
      inCode[i] = true;
      open = { char: m[1][0], length: m[1].length, line: i + 1 };
    }
  });
  return { inCode, unclosedAt: open ? open.line : null };
}

export function loadChapter(lang) {
  const text = readFileSync(new URL(`${lang}/chapter.md`, CONTENT_DIR), 'utf8');
  const lines = text.split(/\r?\n/);
  const { inCode, unclosedAt } = scanFences(lines);
  const headings = [];
  const sectionOf = []; // section id of every line ('intro' before the first ## heading)
  let current = 'intro';
  lines.forEach((line, i) => {
    const m = !inCode[i] && /^(#{1,6})\s+(.*?)\s*$/.exec(line);
    if (m) {
      const idMatch = /\{#([A-Za-z0-9_-]+)\}$/.exec(m[2]);
      headings.push({ level: m[1].length, text: m[2], id: idMatch ? idMatch[1] : null, line: i + 1 });
      if (m[1].length === 2) current = idMatch ? idMatch[1] : `(no id, line ${i + 1})`;
    }
    sectionOf.push(current);
  });
  const sections = {}; // section id -> its lines, in the chapter's order
  lines.forEach((line, i) => (sections[sectionOf[i]] ??= []).push(line));
  for (const id of Object.keys(sections)) sections[id] = sections[id].join('\n');
  const sectionText = (id) => sections[id] ?? '';
  return { lang, text, lines, inCode, unclosedAt, headings, sectionOf, sections, sectionText };
}

export function markdown() {
  const md = new MarkdownIt({ html: true });
  md.use(texmath, { engine: katex, delimiters: 'dollars', katexOptions: { throwOnError: false } });
  return md;
}

export function* walkTokens(tokens) {
  for (const t of tokens) {
    yield t;
    if (t.children) yield* walkTokens(t.children);
  }
}

export const chapters = Object.fromEntries(Object.keys(LANGS).map((lang) => [lang, loadChapter(lang)]));
