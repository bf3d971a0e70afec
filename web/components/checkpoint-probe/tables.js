// The two tables of <rl-checkpoint-probe>: the norms' weight statistics and the logit lens, each { root, show(rows) }
// where `rows` are probeRows' (compute.js) and `s` the widget's strings.
import { h } from '../shared/dom.js';
import { formatFixed } from '../shared/format.js';
import { LENS_K, shownToken } from './compute.js';

const header = (...cells) =>
  h(
    'thead',
    {},
    h(
      'tr',
      {},
      cells.map((c) => h('th', { scope: 'col' }, c)),
    ),
  );

const scrolling = (table) => h('div', { class: 'table-scroll' }, table);

/** A tensor name that may wrap only after its dots and underscores: "model.layers.0." <wbr> "post_" <wbr> ... */
const breakable = (name) => name.split(/(?<=[._])/).flatMap((part, i) => (i ? [h('wbr'), part] : [part]));

/** Each norm's weights: mean, std, min, max (Gemma's 1 + w as applied). */
export function weightsTable(s) {
  const body = h('tbody');
  const cell = (v) => h('td', {}, formatFixed(v, 4));
  return {
    root: scrolling(h('table', { class: 'norm-weights' }, header(s.tensor, s.mean, s.std, s.min, s.max), body)),
    show(rows) {
      body.replaceChildren(
        ...rows.weights.map((w) =>
          h(
            'tr',
            {},
            h(
              'th',
              { scope: 'row' },
              breakable(w.stored ? s.storedOnePlus(w.name) : w.onePlus ? s.onePlus(w.name) : w.name),
            ),
            [w.mean, w.std, w.min, w.max].map(cell),
          ),
        ),
      );
    },
  };
}

/** The logit lens: per stream state, its top LENS_K tokens and their probabilities. */
export function lensTable(s) {
  const body = h('tbody');
  const ranks = Array.from({ length: LENS_K }, (_, j) => s.rank(j + 1));
  return {
    root: scrolling(h('table', { class: 'logit-lens' }, header(s.state, ...ranks), body)),
    show(rows) {
      body.replaceChildren(
        ...rows.lens.map((layer) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, layer.state === 0 ? s.embedding : s.afterLayer(layer.state - 1)),
            layer.tokens.map((t) => h('td', {}, h('code', {}, shownToken(t.text)), ` ${formatFixed(t.prob, 3)}`)),
          ),
        ),
      );
    },
  };
}
