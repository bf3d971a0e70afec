// Ties the snippet's lines to the shared block diagram: each diagram element that a line's steps touch gets
// data-keys ('attn:norm-in', ...) and a tabindex, so hovering or focusing either side lights up both.
// Step -> element of shared/block-diagram.js: norm-in -> [data-norm=<sub>-before], norm-out -> <sub>-after,
// norm-after -> <sub>-trunk, sublayer -> [data-sublayer], add -> [data-add], skip and skip-scale -> the
// sublayer's skip line (the diagram draws one .bd-skip per sublayer, attention first).
import { SUBLAYERS } from '../shared/forward-logic.js';

const SELECTORS = {
  'norm-in': (sub) => `[data-norm="${sub}-before"]`,
  'norm-out': (sub) => `[data-norm="${sub}-after"]`,
  'norm-after': (sub) => `[data-norm="${sub}-trunk"]`,
  sublayer: (sub) => `[data-sublayer="${sub}"]`,
  add: (sub) => `[data-add="${sub}"]`,
};

/** Marks the diagram's linkable elements with their keys; returns them. */
export function markDiagram(diagram, labelOf) {
  const marked = [];
  const mark = (element, keys) => {
    if (!element) return;
    element.setAttribute('data-keys', keys.join(' '));
    element.setAttribute('tabindex', '0');
    element.setAttribute('class', `${element.getAttribute('class') ?? ''} fr-link`.trim());
    element.setAttribute('role', 'img');
    element.setAttribute('aria-label', labelOf(keys[0]));
    marked.push(element);
  };
  const skips = diagram.querySelectorAll('.bd-skip');
  SUBLAYERS.forEach((sub, i) => {
    for (const [step, selector] of Object.entries(SELECTORS))
      mark(diagram.querySelector(selector(sub)), [`${sub}:${step}`]);
    mark(skips[i], [`${sub}:skip`, `${sub}:skip-scale`]);
  });
  return marked;
}

export const keysOf = (element) => (element.getAttribute('data-keys') ?? '').split(' ').filter(Boolean);
