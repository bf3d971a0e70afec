// Where the README and docs/ quote a built file's size (a figure in MB, to the digits shown): docs-sizes.test.mjs
// holds each to the build, language-stub.test.mjs rewrites them after adding a language, as docs/extending.md says.
export const SIZE_FIGURES = {
  packed: { doc: 'README.md', pattern: /the types; ([\d.]+) MB packed\)/ },
  offlineEach: { doc: 'docs/embedding.md', pattern: /residual-lab-zh\.html` \(about ([\d.]+) MB each/ },
  offlineScript: { doc: 'docs/embedding.md', pattern: /the ([\d.]+) MB script they share/ },
};

/** The offline script the single-file chapters share, in dist/. */
export const OFFLINE_SCRIPT = 'dist/offline/parts/page-code.js';
