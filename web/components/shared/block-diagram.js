// A decoder layer drawn from the config that builds it: blockDiagram(config, labels) returns an <svg> of one
// layer (the attention and MLP sublayers, the residual adds, every norm where `config.placement` puts it, QK-Norm
// and the soft-caps), then the final norm and lm_head. `config` is a toy decoder config (createDecoder's keys:
// placement, norm, qkNorm, attnSoftcap, finalSoftcap), so what is drawn is what the engine would build.
// blockLayout(config) is the same description without the DOM (for tests and for text alternatives).
//
// Where each placement puts its norms, per sublayer F (the decoder option table's `placement` meanings, and the
// tensors wasm/src/decoder/layout.cpp allocates; tests/js/block-diagram.test.mjs checks both agree):
//   before: on the branch, F's input            pre, sandwich      h + F(Norm(h))
//   after:  on the branch, F's output           sandwich, olmo2    h + Norm(F(h))
//   trunk:  on the trunk, after the add         post, deepnorm     Norm(h + F(h)); deepnorm scales the skip by alpha
//   final:  one norm before lm_head             pre, sandwich, olmo2
import { svg } from './dom.js';

export const PLACEMENT_SLOTS = Object.freeze({
  pre: Object.freeze({ before: true, after: false, trunk: false, final: true, scaledSkip: false }),
  post: Object.freeze({ before: false, after: false, trunk: true, final: false, scaledSkip: false }),
  sandwich: Object.freeze({ before: true, after: true, trunk: false, final: true, scaledSkip: false }),
  olmo2: Object.freeze({ before: false, after: true, trunk: false, final: true, scaledSkip: false }),
  deepnorm: Object.freeze({ before: false, after: false, trunk: true, final: false, scaledSkip: true }),
});

export const SUBLAYERS = Object.freeze(['attn', 'mlp']);

/**
 * { placement, norm, sublayers: [{ name, norms: ['before' | 'after' | 'trunk', ...], qkNorm, softcap }],
 *   finalNorm, finalSoftcap, scaledSkip, residual, normsPerLayer } for a decoder config. norm 'none' draws no norm
 * (QK-Norm is an RMSNorm whatever the kind, as in the engine).
 */
export function blockLayout({
  placement = 'pre',
  norm = 'layernorm',
  qkNorm = false,
  attnSoftcap = null,
  finalSoftcap = null,
  residual = true,
} = {}) {
  const slots = PLACEMENT_SLOTS[placement];
  if (!slots || !Object.hasOwn(PLACEMENT_SLOTS, placement))
    throw new Error(`block diagram: unknown placement "${placement}"`);
  const hasNorm = norm !== 'none';
  const norms = hasNorm ? ['before', 'after', 'trunk'].filter((slot) => slots[slot]) : [];
  const sublayers = SUBLAYERS.map((name) => ({
    name,
    norms,
    qkNorm: name === 'attn' && Boolean(qkNorm),
    softcap: name === 'attn' ? (attnSoftcap ?? null) : null,
  }));
  return {
    placement,
    norm,
    sublayers,
    residual,
    scaledSkip: slots.scaledSkip,
    finalNorm: hasNorm && slots.final,
    finalSoftcap: finalSoftcap ?? null,
    normsPerLayer: 2 * norms.length + (qkNorm ? 2 : 0),
  };
}

// Drawn in a column of a widget (a third to a half of its width, about 340 px on a desktop): 372 units wide with
// 14-unit text at the least (block-diagram.css), so no text is drawn under 12 px there.
const W = 372;
const TRUNK_X = 56; // centre of the trunk column
const BRANCH_X = 200; // centre of the branch column
const BOX_W = 130;
const BOX_H = 32;
const GAP = 16;
const CHIP_X = 272;
const CHIP_W = 96;
const CHIP_H = 24;

/**
 * attnExtras: names of norms inside attention that the toy decoder has no place for (MLA's q_a_layernorm and
 * kv_a_layernorm, a v_norm), drawn as chips on the attention box.
 * labels: { norm: { layernorm: 'LayerNorm', ... }, attn, mlp, qkNorm, softcap(cap), input, lmHead, finalNorm,
 *   layers(n), skipScaled, noSkip, summary(layout) } (the strings of content/en/strings/block-diagram.js).
 * nLayers (optional) labels the repeat count.
 */
export function blockDiagram(config, labels, { nLayers, attnExtras = [] } = {}) {
  const layout = blockLayout(config);
  const normName = labels.norm[layout.norm] ?? layout.norm;
  const parts = [];
  let y = 14;
  const text = (x, ty, content, cls = 'bd-text') =>
    svg('text', { x, y: ty, class: cls, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, content);
  const box = (cx, top, content, cls, data = {}) =>
    svg(
      'g',
      { class: cls, ...data },
      svg('rect', { x: cx - BOX_W / 2, y: top, width: BOX_W, height: BOX_H, rx: 6 }),
      text(cx, top + BOX_H / 2, content),
    );
  const line = (x1, y1, x2, y2, cls = 'bd-line') => svg('line', { x1, y1, x2, y2, class: cls });
  const chip = (top, content, data) =>
    svg(
      'g',
      { class: 'bd-chip', ...data },
      svg('rect', { x: CHIP_X, y: top, width: CHIP_W, height: CHIP_H, rx: 11 }),
      text(CHIP_X + CHIP_W / 2, top + CHIP_H / 2, content),
    );

  parts.push(svg('text', { x: 8, y, class: 'bd-caption', 'dominant-baseline': 'central' }, labels.input));
  y += 16;
  const layerTop = y;
  for (const sub of layout.sublayers) {
    const fork = y + 8;
    parts.push(line(TRUNK_X, y, TRUNK_X, fork), svg('circle', { cx: TRUNK_X, cy: fork, r: 3.5, class: 'bd-fork' }));
    parts.push(line(TRUNK_X, fork, BRANCH_X, fork), line(BRANCH_X, fork, BRANCH_X, fork + GAP));
    let by = fork + GAP;
    const branchBox = (content, cls, data) => {
      parts.push(box(BRANCH_X, by, content, cls, data));
      by += BOX_H;
      parts.push(line(BRANCH_X, by, BRANCH_X, by + GAP));
      by += GAP;
    };
    if (sub.norms.includes('before')) branchBox(normName, 'bd-norm', { 'data-norm': `${sub.name}-before` });
    const fTop = by;
    branchBox(labels[sub.name], `bd-sublayer bd-${sub.name}`, { 'data-sublayer': sub.name });
    const chips = [
      sub.qkNorm && [labels.qkNorm, { 'data-norm': 'qk', 'data-qk-norm': '' }],
      sub.softcap !== null && [labels.softcap(sub.softcap), { 'data-softcap': 'attn' }],
      ...(sub.name === 'attn' ? attnExtras : []).map((text) => [text, { 'data-norm': 'extra', 'data-qk-norm': '' }]),
    ].filter(Boolean);
    const chipsTop = fTop + BOX_H / 2 - (chips.length * (CHIP_H + 4) - 4) / 2;
    chips.forEach(([content, data], k) => parts.push(chip(chipsTop + k * (CHIP_H + 4), content, data)));
    if (chips.length)
      parts.push(line(BRANCH_X + BOX_W / 2, fTop + BOX_H / 2, CHIP_X, fTop + BOX_H / 2, 'bd-line bd-dashed'));
    if (sub.norms.includes('after')) branchBox(normName, 'bd-norm', { 'data-norm': `${sub.name}-after` });
    const add = by;
    parts.push(line(BRANCH_X, add, TRUNK_X + 9, add));
    if (layout.residual) {
      parts.push(line(TRUNK_X, fork, TRUNK_X, add - 9, 'bd-line bd-skip'));
      if (layout.scaledSkip) parts.push(text(TRUNK_X - 26, (fork + add) / 2, labels.skipScaled, 'bd-caption'));
    } else {
      parts.push(text(TRUNK_X, (fork + add) / 2, labels.noSkip, 'bd-caption'));
    }
    parts.push(
      svg(
        'g',
        { class: 'bd-add', 'data-add': sub.name },
        svg('circle', { cx: TRUNK_X, cy: add, r: 9 }),
        line(TRUNK_X - 5, add, TRUNK_X + 5, add, 'bd-plus'),
        line(TRUNK_X, add - 5, TRUNK_X, add + 5, 'bd-plus'),
      ),
    );
    y = add + 9;
    if (sub.norms.includes('trunk')) {
      parts.push(line(TRUNK_X, y, TRUNK_X, y + GAP / 2));
      parts.push(box(TRUNK_X, y + GAP / 2, normName, 'bd-norm', { 'data-norm': `${sub.name}-trunk` }));
      y += GAP / 2 + BOX_H;
    }
  }
  const layerBottom = y + 6;
  parts.unshift(
    svg('rect', {
      x: 8,
      y: layerTop - 4,
      width: W - 16,
      height: layerBottom - layerTop + 4,
      rx: 10,
      class: 'bd-layer',
    }),
  );
  parts.push(text(CHIP_X + CHIP_W / 2, layerBottom - 10, labels.layers(nLayers), 'bd-caption'));
  parts.push(line(TRUNK_X, y, TRUNK_X, layerBottom + GAP));
  y = layerBottom + GAP;
  if (layout.finalNorm) {
    parts.push(box(TRUNK_X, y, normName, 'bd-norm', { 'data-norm': 'final' }));
    parts.push(text(TRUNK_X + BOX_W / 2 + 40, y + BOX_H / 2, labels.finalNorm, 'bd-caption'));
    y += BOX_H;
    parts.push(line(TRUNK_X, y, TRUNK_X, y + GAP));
    y += GAP;
  }
  parts.push(box(TRUNK_X, y, labels.lmHead, 'bd-sublayer bd-head', { 'data-sublayer': 'lm_head' }));
  if (layout.finalSoftcap !== null) {
    parts.push(line(TRUNK_X + BOX_W / 2, y + BOX_H / 2, CHIP_X, y + BOX_H / 2, 'bd-line bd-dashed'));
    parts.push(chip(y + (BOX_H - CHIP_H) / 2, labels.softcap(layout.finalSoftcap), { 'data-softcap': 'final' }));
  }
  y += BOX_H + 8;
  const summary = labels.summary(layout);
  return svg(
    'svg',
    {
      class: 'block-diagram',
      viewBox: `0 0 ${W} ${y}`,
      role: 'img',
      'aria-label': summary,
      'data-placement': layout.placement,
      'data-norm-kind': layout.norm,
    },
    svg('title', {}, summary),
    parts,
  );
}
