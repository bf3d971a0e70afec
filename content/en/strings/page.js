// Text of the page around the chapter (scripts/pages.mjs writes it, web/shell/page.js labels with it), in English.
export default {
  skip: 'Skip to the text',
  contents: 'Contents',
  contentsLabel: 'Chapter contents',
  theme: 'Dark theme',
  languages: 'Language',
  languageMenu: (name) => `Language: ${name}`,
  fileNote: (offline) =>
    `This page was opened from a file, and browsers do not run its widgets that way. Open the single-file version <a href="${offline}">${offline}</a> (it works from disk), or serve the folder with npm run serve.`,
  footer:
    'Code under the MIT licence, text under CC BY 4.0. Every widget computes live, with WebAssembly, in your browser.',
  // names of the blocks that scroll sideways on a narrow screen: as the build writes them, and once the shell
  // has measured that they do scroll
  formula: 'Formula',
  table: 'Table',
  code: 'Code',
  formulaScrolls: 'Formula (scrolls sideways)',
  codeScrolls: 'Code (scrolls sideways)',
  computingForPrint: 'Computing every figure before printing…',
};
