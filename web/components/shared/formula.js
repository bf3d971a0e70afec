// A typeset formula as an element. The MathML comes from components/shared/formulas.js, written by the build
// (scripts/pages.mjs) from formula-sources.js; if that file is missing the TeX source is shown as code.
import { h } from './dom.js';
import { FORMULA_SOURCES } from './formula-sources.js';

let typeset = null;
const ready = import('./formulas.js').then(
  (module) => {
    typeset = module.FORMULAS;
  },
  () => {
    typeset = {};
  },
);

/** Resolves once the typeset formulas are loaded (or known to be missing). */
export const formulasReady = () => ready;

export function formula(key, { display = false } = {}) {
  const mathml = typeset?.[key];
  if (!mathml) return h('code', { class: 'formula formula-tex' }, FORMULA_SOURCES[key] ?? key);
  const element = h(display ? 'div' : 'span', { class: display ? 'formula formula-display' : 'formula' });
  element.innerHTML = mathml; // build-time KaTeX output from our own TeX, not reader input
  return element;
}
