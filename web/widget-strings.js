// Every language's texts, by language code: content/<code>/strings/index.js (the texts of no one widget) and each
// widget's own, content/<code>/strings/<tag>.js for each row of components/registry.js, under its tag, so a
// widget's strings need no list of their own. This is node's version (the tests, the scripts): it loads every
// folder of content/ that has strings/ at once, skipping the widget files a language does not have yet (its
// widgets then show the fallback language's texts; tests/js/languages.test.mjs requires every row to be
// complete). The site build writes the browser's version over it (scripts/pages.mjs widgetStringsSource): the same
// files, one module per language imported when a page or a widget first asks for that language
// (languages.js loadLanguage), so that a page fetches the texts of its own language only.
// The folder sits beside web/ on purpose: the site is assembled in .dist-site/, beside web/ too, so these imports
// resolve to the same files from both.
import { existsSync, readdirSync } from 'node:fs';
import { WIDGET_TAGS } from './components/registry.js';

const content = new URL('../content/', import.meta.url);

const codes = readdirSync(content, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/strings/`, content)))
  .map((entry) => entry.name)
  .sort();

async function stringsIn(code) {
  const found = WIDGET_TAGS.map((tag) => [tag, new URL(`${code}/strings/${tag}.js`, content)]).filter(([, file]) =>
    existsSync(file),
  );
  return Object.fromEntries(await Promise.all(found.map(async ([tag, file]) => [tag, (await import(file)).default])));
}

/** { [code]: { [tag]: the default export of content/<code>/strings/<tag>.js } }. */
export const WIDGET_STRINGS = Object.fromEntries(
  await Promise.all(codes.map(async (code) => [code, await stringsIn(code)])),
);

/** { [code]: every text of the language: strings/index.js's parts and, under its tag, each widget's }. */
export const LOADED_STRINGS = Object.fromEntries(
  await Promise.all(
    codes.map(async (code) => [
      code,
      { ...(await import(new URL(`${code}/strings/index.js`, content))).default, ...WIDGET_STRINGS[code] },
    ]),
  ),
);

/** The languages loaded on demand, by code (the browser's version; here every language is loaded). */
export const STRINGS_LOADERS = {};

/** The languages that lack texts of the fallback language, which they then show (the browser's version). */
export const INCOMPLETE_LANGUAGES = [];
