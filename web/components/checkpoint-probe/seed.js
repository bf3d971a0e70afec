// The chapter's own measurement beside the reader's: when the files <rl-checkpoint-probe> opens have the shape of
// the model the chapter measured (content/measurements.js: its config.json fields), the probe sets the chapter's
// numbers beside the same points of the reader's run, and says whether the two are comparable (the same prompt,
// the last position). The numbers come from the one table the chapter's text is held to.
import { QWEN_SEED } from '../../../content/measurements.js';
import { h } from '../shared/dom.js';
import { formatFixed } from '../shared/format.js';

/** The published measurements the probe knows, each recognised by its model's config.json fields. */
export const SEEDS = [QWEN_SEED];

/** config.json's text or bytes as an object; null where it does not parse (the lab reports that itself). */
export function configOf(files) {
  const raw = files['config.json'];
  try {
    return JSON.parse(typeof raw === 'string' ? raw : new TextDecoder().decode(raw));
  } catch {
    return null;
  }
}

/**
 * The seed whose model `config` has the shape of: every field the seed lists is present with the same value (a
 * number is compared as a number, so 1000000 and 1000000.0 agree; a missing tie_word_embeddings is false). Else null.
 */
export function seedOf(config, seeds = SEEDS) {
  if (!config || typeof config !== 'object') return null;
  const value = (key) => (key === 'tie_word_embeddings' ? (config[key] ?? false) : config[key]);
  return seeds.find((seed) => Object.entries(seed.config).every(([key, want]) => value(key) === want)) ?? null;
}

/** The middle half of L layers, the span the chapter's "middle layers" is read over: [first, last]. */
export const middleLayers = (L) => [Math.floor(L / 4), Math.floor((3 * L) / 4) - 1];

/**
 * The rows of the comparison, from the probe's rows of one run (probeRows: streamAt[i] the stream after layer
 * i - 1, attnAt / mlpAt[l] what layer l's sublayers add): { key, layer(s), seed, yours }. A range is [low, high].
 */
export function seedRows(seed, rows) {
  const L = rows.layers;
  const last = L - 1;
  const [from, to] = middleLayers(L);
  const middle = rows.streamAt.slice(from + 1, to + 2);
  const [low, high] = seed.increments;
  // every sublayer but the last FFN, which the chapter names apart
  const others = [...rows.attnAt, ...rows.mlpAt.slice(0, last)];
  return [
    { key: 'embedding', seed: seed.embedding, yours: rows.streamAt[0] },
    { key: 'afterLayer0', seed: seed.afterLayer0, yours: rows.streamAt[1] },
    // the source states where the middle layers' slow climb reaches (15-20), not how low it starts
    { key: 'middle', layers: [from, to], seed: seed.middle, yours: Math.max(...middle) },
    { key: 'peak', layer: seed.peak.layer, seed: seed.peak.norm, yours: rows.streamAt[seed.peak.layer + 1] },
    { key: 'last', layer: last, seed: seed.last, yours: rows.streamAt[L] },
    { key: 'lastFfn', layer: last, seed: seed.lastFfn, yours: rows.mlpAt[last] },
    {
      key: 'increments',
      seed: seed.increments,
      yours: { within: others.filter((v) => v >= low && v <= high).length, of: others.length },
    },
  ];
}

/** Whether the reader's run reads what the seed's did: the same prompt and its last position. */
export const comparable = (seed, prompt, position, tokens) => ({
  prompt: prompt.trim() === seed.prompt,
  position: position === tokens - 1,
});

const range = ([a, b], show) => `${show(a)}–${show(b)}`;

/**
 * The comparison's view: { root, show(view) }, view null (the model is not a seed's: nothing shown) or
 * { seed, rows, comparable, prompt, position, token, dtypes, canUseSeed, hasTokenizer }. `onUseSeed` sets the
 * seed's prompt and position: its button is offered only where the model can read that prompt (canUseSeed), and
 * files without tokenizer.json are told what would make it readable.
 */
export function seedComparison(s, onUseSeed) {
  const title = h('h4', {});
  const recognised = h('p', { class: 'hint' });
  const conditions = h('p', { 'data-seed': 'conditions' });
  const yours = h('p', { 'data-seed': 'yours' });
  const useSeed = h('button', { type: 'button', class: 'use-seed', onclick: () => onUseSeed() }, s.useSeed);
  const note = h('p', { class: 'seed-note', role: 'note', 'data-seed': 'note' });
  const needs = h('p', { class: 'hint', 'data-seed': 'needs-tokenizer' });
  const body = h('tbody');
  const root = h(
    'section',
    { class: 'seed-comparison', hidden: true },
    title,
    recognised,
    conditions,
    yours,
    h('div', { class: 'seed-mismatch' }, note, useSeed, needs),
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        { class: 'seed-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [s.point, s.chapter, s.yours].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        body,
      ),
    ),
  );
  const own = (v) => formatFixed(v, 2);
  const chapter = (v) => String(v);
  const cells = (row) => {
    if (row.key === 'increments')
      return [s.most(range(row.seed, chapter)), s.within(row.yours.within, row.yours.of, range(row.seed, chapter))];
    if (Array.isArray(row.seed)) return [range(row.seed, chapter), own(row.yours)];
    return [chapter(row.seed), own(row.yours)];
  };
  return {
    root,
    show(view) {
      root.hidden = !view;
      if (!view) return;
      const { seed, rows } = view;
      title.textContent = s.title(seed.model);
      recognised.textContent = s.recognised(seed.model);
      conditions.textContent = s.conditions(seed.prompt, [...seed.prompt].at(-1), seed.precision);
      yours.textContent = s.yoursAre(view.prompt, view.position, view.token, view.dtypes.join(', '));
      const same = view.comparable.prompt && view.comparable.position;
      note.textContent = same ? '' : s.notComparable(!view.comparable.prompt, !view.comparable.position);
      note.parentElement.hidden = same;
      useSeed.hidden = !view.canUseSeed;
      needs.textContent = view.hasTokenizer ? '' : s.needsTokenizer;
      needs.hidden = !needs.textContent;
      body.replaceChildren(
        ...rows.map((row) =>
          h(
            'tr',
            { 'data-point': row.key },
            h('th', { scope: 'row' }, s.points[row.key](row.layers ?? row.layer)),
            cells(row).map((c) => h('td', {}, c)),
          ),
        ),
      );
    },
  };
}
