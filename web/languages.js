// The lab's languages: one row each, the one table the page build (scripts/pages.mjs), the offline build
// (scripts/offline.mjs), the page shell (shell/page.js), embed.html and the widgets read. A language is a folder,
// content/<code>/ (chapter.md, the chapter; strings/, every other text: strings/index.js lists those of no one
// widget, and each widget's are strings/<tag>.js, found through the widget registry), and a row here;
// docs/extending.md says how to add one.
//   code          the folder's name, the value of embed.html's ?lang= and of a widget's lang attribute (any
//                 lang whose first subtag is the code picks the row: zh, zh-CN, zh-Hans)
//   name          the language's own name, in the page's language menu
//   htmlLang      the pages' <html lang>
//   numberLocale  the locale numbers are grouped in (toLocaleString)
//   page          the page the chapter is rendered to, under the site root (the first row's is index.html)
//   strings       the texts, by what shows them: content/<code>/strings/index.js, with each widget's own texts
//                 (content/<code>/strings/<tag>.js) under its tag, from widget-strings.js; set once loaded
//                 (loadLanguage: node has every language from the start, a browser fetches each when first asked)
import { INCOMPLETE_LANGUAGES, LOADED_STRINGS, STRINGS_LOADERS } from './widget-strings.js';

export const LANGUAGES = [
  { code: 'zh', name: '中文', htmlLang: 'zh-CN', numberLocale: 'en-US', page: 'index.html' },
  { code: 'en', name: 'English', htmlLang: 'en', numberLocale: 'en-US', page: 'en/index.html' },
].map((row) => ({ ...row, strings: LOADED_STRINGS[row.code] ?? null }));

/**
 * The language of a lang attribute that names no row (or of none), and the one a text missing from a language
 * falls back to, key by key: a language in progress shows English where it has no text yet
 * (tests/js/languages.test.mjs requires every row to be complete).
 */
export const FALLBACK_LANGUAGE = 'en';

const rowOf = new Map(LANGUAGES.map((row) => [row.code, row]));

/** The row of a language code (the fallback's for an unknown code). */
export const languageRow = (code) => rowOf.get(code) ?? rowOf.get(FALLBACK_LANGUAGE);

/** The code of the row a lang attribute's value picks by its first subtag ("zh-CN" -> zh); else the fallback. */
export function languageCode(langAttribute) {
  const primary = String(langAttribute ?? '')
    .split(/[-_]/)[0]
    .toLowerCase();
  return rowOf.has(primary) ? primary : FALLBACK_LANGUAGE;
}

const isPlainObject = (value) =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

/** `own` over `fallback`, key by key, into nested tables (functions and text are taken whole). */
function withFallback(own, fallback) {
  if (own === undefined) return fallback;
  if (!isPlainObject(own) || !isPlainObject(fallback)) return own;
  const merged = { ...fallback };
  for (const [key, value] of Object.entries(own)) merged[key] = withFallback(value, fallback[key]);
  return merged;
}

const loading = new Map(); // code -> Promise of its row's texts (and the fallback's where it lacks some)

async function loadRow(row) {
  row.strings ??= (await STRINGS_LOADERS[row.code]()).default;
}

/**
 * Loads the texts of the language `code` picks (languageRow), and the fallback language's too where it lacks
 * some; stringsOf answers for it once this resolves. A failed load is tried again at the next call.
 */
export function loadLanguage(code) {
  const row = languageRow(code);
  if (!loading.has(row.code)) {
    const rows = INCOMPLETE_LANGUAGES.includes(row.code) ? [row, languageRow(FALLBACK_LANGUAGE)] : [row];
    const load = Promise.all(rows.map(loadRow));
    load.catch(() => loading.delete(row.code));
    loading.set(row.code, load);
  }
  return loading.get(row.code);
}

const merged = new Map();

/**
 * The texts of `part` (a widget's tag, or common, run, page, embed, exercises, block-diagram) in language `code`,
 * once loaded (loadLanguage).
 */
export function stringsOf(code, part) {
  const row = languageRow(code);
  if (!row.strings) throw new Error(`the ${row.code} texts are not loaded: await loadLanguage('${row.code}') first`);
  const key = `${row.code}\u0000${part}`;
  if (!merged.has(key))
    merged.set(key, withFallback(row.strings[part], languageRow(FALLBACK_LANGUAGE).strings?.[part]));
  return merged.get(key);
}
