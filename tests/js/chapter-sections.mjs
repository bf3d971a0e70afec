// The chapter's ## sections in order, as both languages and the built pages must have them.
export const SECTION_IDS = [
  'residual-stream',
  'why-residuals',
  'normalization',
  'precision-and-gemma',
  'placement',
  'qk-norm',
  'softcap',
  'model-table',
  'init-and-depth',
  'summary',
  'references',
];
