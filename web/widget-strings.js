// Every widget's texts, by language code and then tag: content/<code>/strings/<tag>.js for each row of
// components/registry.js, so a widget's strings need no list of their own. This is node's version (the tests, the
// scripts): it loads the file of every registered tag in every folder of content/ that has strings/, skipping
// the ones a language does not have yet (its widgets then show the fallback language's texts;
// tests/js/languages.test.mjs requires every row to be complete). The site build writes the browser's version
// over it (scripts/pages.mjs widgetStringsSource): the same files, read from this table, imported statically, so
// the bundles and the offline files hold them with no top-level await and no extra request.
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
