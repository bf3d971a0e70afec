// Prettier's settings for the JS, CSS, JSON and Markdown of the tree (scripts/format.mjs runs it; .prettierignore
// says what it leaves alone).
//
// Markdown keeps its authors' line breaks (proseWrap 'preserve'): the docs are wrapped by hand near printWidth, and
// the chapters hold one paragraph per line (a line break inside Chinese prose renders as a space). Prettier aligns
// the columns of every table, however wide, unless proseWrap is 'never', where a table wider than printWidth is
// written compact (one space around each cell). The chapters take 'never' (it changes none of their paragraphs), so
// their wide tables of prose and CJK cells are not padded to 250+ characters a row; the docs' tables are aligned
// (the generated references of scripts/options-doc.mjs too: it writes them through Prettier). Code blocks are left
// as written (embeddedLanguageFormatting 'off'): they are laid out for reading, such as the README's ten-line API
// example with its comments aligned. The chapters' pages are the same either way (markdown-it renders `*a*` and
// `_a_` alike, and a table's padding not at all): the site's build is byte-identical before and after formatting.
export default {
  printWidth: 120,
  singleQuote: true,
  trailingComma: 'all',
  arrowParens: 'always',
  overrides: [
    { files: '*.md', options: { proseWrap: 'preserve', embeddedLanguageFormatting: 'off' } },
    { files: 'content/*/chapter.md', options: { proseWrap: 'never' } },
  ],
};
