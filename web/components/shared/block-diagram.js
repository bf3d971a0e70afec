// A decoder layer drawn from the config that builds it: blockDiagram(config, labels) returns an <svg> of one
// layer (the attention and MLP sublayers, the residual adds, every norm where `config.placement` puts it, QK-Norm
// and the soft-caps), then the final norm and lm_head. `config` is a decoder config of the lab (createDecoder's keys:
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
const TRUNK_X = 75; // the trunk's line: a box of the usual width centred on it starts at the frame's edge
const BRANCH_GAP = 20; // from the trunk's line to the branch boxes' left edges
const CHIP_GAP = 12; // from a box to the chips beside it
const BOX_W = 130;
const BOX_H = 32;
const GAP = 16;
const CHIP_W = 96;
const CHIP_H = 24;
const PAD = 8; // between a label and its box's edge, and around the drawing
export const TEXT_SIZE = 15; // block-diagram.css: .bd-text
export const SMALL_TEXT_SIZE = 14; // .bd-caption and .bd-chip text

// The widths of characters in em, on the wide side of the sans-serif fonts a reader may have (DejaVu Sans is among
// the widest), so that a box sized from them holds its label in any of them: the SVG is built before it is in the
// document, where nothing can be measured.
const NARROW = new Set([...' .,:;\'"()[]|!ijlft-']);
const WIDE = new Set([...'mwMW@→×']);
const charWidth = (ch) => {
  const code = ch.codePointAt(0);
  if (code >= 0x2e80) return 1.0; // CJK and full-width forms
  if (NARROW.has(ch)) return 0.42;
  if (WIDE.has(ch)) return 0.95;
  if (/[A-Z]/.test(ch)) return 0.76;
  if (/[0-9a-z_]/.test(ch)) return 0.64;
  return 0.85;
};

/** An upper estimate of the width of `content` drawn at `size` user units. */
export function textWidth(content, size = TEXT_SIZE) {
  let em = 0;
  for (const ch of String(content)) em += charWidth(ch);
  return em * size;
}

/**
 * The drawing's pieces, each widening the horizontal extent drawn (extent(): { left, right }) by what it covers:
 * text, a box (as wide as its label needs, at least BOX_W, centred on cx unless that crosses minLeft: a wide box on
 * the trunk grows to the right; the group carries its right edge), a chip and a line.
 */
function drawingTools() {
  let left = PAD;
  let right = W - PAD;
  const cover = (l, r) => {
    left = Math.min(left, l);
    right = Math.max(right, r);
  };
  const text = (x, ty, content, cls = 'bd-text', size = cls === 'bd-text' ? TEXT_SIZE : SMALL_TEXT_SIZE) => {
    const half = textWidth(content, size) / 2;
    cover(x - half, x + half);
    return svg('text', { x, y: ty, class: cls, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, content);
  };
  const boxWidth = (content) => Math.max(BOX_W, Math.ceil(textWidth(content) + 2 * PAD));
  const box = (cx, top, content, cls, data = {}, minLeft = -Infinity) => {
    const width = boxWidth(content);
    const x = Math.max(minLeft, cx - width / 2);
    cover(x, x + width);
    const group = svg(
      'g',
      { class: cls, ...data },
      svg('rect', { x, y: top, width, height: BOX_H, rx: 6 }),
      text(x + width / 2, top + BOX_H / 2, content),
    );
    return Object.assign(group, { right: x + width });
  };
  const line = (x1, y1, x2, y2, cls = 'bd-line') => svg('line', { x1, y1, x2, y2, class: cls });
  const chip = (x, top, content, data) => {
    const width = Math.max(CHIP_W, Math.ceil(textWidth(content, SMALL_TEXT_SIZE) + 2 * PAD));
    return svg(
      'g',
      { class: 'bd-chip', ...data },
      svg('rect', { x, y: top, width, height: CHIP_H, rx: 11 }),
      text(x + width / 2, top + CHIP_H / 2, content, 'bd-text', SMALL_TEXT_SIZE),
    );
  };
  return { cover, text, boxWidth, box, line, chip, extent: () => ({ left, right }) };
}

/** The residual add of sublayer `name` on the trunk at height y: a circled plus. */
function addNode(line, name, y) {
  return svg(
    'g',
    { class: 'bd-add', 'data-add': name },
    svg('circle', { cx: TRUNK_X, cy: y, r: 9 }),
    line(TRUNK_X - 5, y, TRUNK_X + 5, y, 'bd-plus'),
    line(TRUNK_X, y - 5, TRUNK_X, y + 5, 'bd-plus'),
  );
}

/**
 * attnExtras: names of norms inside attention that the lab's decoder has no place for (MLA's q_a_layernorm and
 * kv_a_layernorm, a v_norm), drawn as chips on the attention box.
 * labels: { norm: { layernorm: 'LayerNorm', ... }, attn, mlp, qkNorm, softcap(cap), input, lmHead, finalNorm,
 *   layers(n), skipScaled, noSkip, summary(layout) } (the strings of content/en/strings/block-diagram.js).
 * nLayers (optional) labels the repeat count.
 */
export function blockDiagram(config, labels, { nLayers, attnExtras = [] } = {}) {
  const layout = blockLayout(config);
  const normName = labels.norm[layout.norm] ?? layout.norm;
  const parts = [];
  const { cover, text, boxWidth, box, line, chip, extent } = drawingTools();
  let y = 14;
  const trunkBox = (top, content, cls, data) => box(TRUNK_X, top, content, cls, data, PAD);
  // the branch column's centre: its widest box starts BRANCH_GAP right of the trunk (or of "no skip" written on it)
  const branchNorms = layout.sublayers.some((sub) => sub.norms.includes('before') || sub.norms.includes('after'));
  const branchWidth = Math.max(
    ...layout.sublayers.map((sub) => boxWidth(labels[sub.name])),
    branchNorms ? boxWidth(normName) : 0,
  );
  const branchLeft =
    TRUNK_X + Math.max(BRANCH_GAP, layout.residual ? 0 : textWidth(labels.noSkip, SMALL_TEXT_SIZE) / 2 + PAD);
  const BRANCH_X = branchLeft + branchWidth / 2;

  cover(PAD, PAD + textWidth(labels.input, SMALL_TEXT_SIZE));
  parts.push(svg('text', { x: PAD, y, class: 'bd-caption', 'dominant-baseline': 'central' }, labels.input));
  y += 16;
  const layerTop = y;
  for (const sub of layout.sublayers) {
    const fork = y + 8;
    parts.push(line(TRUNK_X, y, TRUNK_X, fork), svg('circle', { cx: TRUNK_X, cy: fork, r: 3.5, class: 'bd-fork' }));
    parts.push(line(TRUNK_X, fork, BRANCH_X, fork), line(BRANCH_X, fork, BRANCH_X, fork + GAP));
    let by = fork + GAP;
    const branchBox = (content, cls, data) => {
      const drawn = box(BRANCH_X, by, content, cls, data);
      parts.push(drawn);
      by += BOX_H;
      parts.push(line(BRANCH_X, by, BRANCH_X, by + GAP));
      by += GAP;
      return drawn.right;
    };
    if (sub.norms.includes('before')) branchBox(normName, 'bd-norm', { 'data-norm': `${sub.name}-before` });
    const fTop = by;
    const fRight = branchBox(labels[sub.name], `bd-sublayer bd-${sub.name}`, { 'data-sublayer': sub.name });
    const chipX = fRight + CHIP_GAP;
    const chips = [
      sub.qkNorm && [labels.qkNorm, { 'data-norm': 'qk', 'data-qk-norm': '' }],
      sub.softcap !== null && [labels.softcap(sub.softcap), { 'data-softcap': 'attn' }],
      ...(sub.name === 'attn' ? attnExtras : []).map((text) => [text, { 'data-norm': 'extra', 'data-qk-norm': '' }]),
    ].filter(Boolean);
    const chipsTop = fTop + BOX_H / 2 - (chips.length * (CHIP_H + 4) - 4) / 2;
    chips.forEach(([content, data], k) => parts.push(chip(chipX, chipsTop + k * (CHIP_H + 4), content, data)));
    if (chips.length) parts.push(line(fRight, fTop + BOX_H / 2, chipX, fTop + BOX_H / 2, 'bd-line bd-dashed'));
    if (sub.norms.includes('after')) branchBox(normName, 'bd-norm', { 'data-norm': `${sub.name}-after` });
    const add = by;
    parts.push(line(BRANCH_X, add, TRUNK_X + 9, add));
    if (layout.residual) {
      parts.push(line(TRUNK_X, fork, TRUNK_X, add - 9, 'bd-line bd-skip'));
      if (layout.scaledSkip) parts.push(text(TRUNK_X - 26, (fork + add) / 2, labels.skipScaled, 'bd-caption'));
    } else {
      parts.push(text(TRUNK_X, (fork + add) / 2, labels.noSkip, 'bd-caption'));
    }
    parts.push(addNode(line, sub.name, add));
    y = add + 9;
    if (sub.norms.includes('trunk')) {
      parts.push(line(TRUNK_X, y, TRUNK_X, y + GAP / 2));
      parts.push(trunkBox(y + GAP / 2, normName, 'bd-norm', { 'data-norm': `${sub.name}-trunk` }));
      y += GAP / 2 + BOX_H;
    }
  }
  const layerBottom = y + 6;
  const { left, right } = extent(); // the layer's boxes and labels
  // the layer's frame, around all of the layer (drawn first, under it), its repeat count inside its right edge
  const frameLeft = Math.min(PAD, left - PAD / 2);
  const frameRight = Math.max(W - PAD, right + PAD / 2);
  const layersCaption = labels.layers(nLayers);
  const captionHalf = textWidth(layersCaption, SMALL_TEXT_SIZE) / 2;
  parts.push(text(frameRight - PAD - captionHalf, layerBottom - 10, layersCaption, 'bd-caption'));
  parts.unshift(
    svg('rect', {
      x: frameLeft,
      y: layerTop - 4,
      width: frameRight - frameLeft,
      height: layerBottom - layerTop + 4,
      rx: 10,
      class: 'bd-layer',
    }),
  );
  parts.push(line(TRUNK_X, y, TRUNK_X, layerBottom + GAP));
  y = layerBottom + GAP;
  if (layout.finalNorm) {
    const drawn = trunkBox(y, normName, 'bd-norm', { 'data-norm': 'final' });
    parts.push(drawn);
    const captionWidth = textWidth(labels.finalNorm, SMALL_TEXT_SIZE);
    parts.push(text(drawn.right + PAD + captionWidth / 2, y + BOX_H / 2, labels.finalNorm, 'bd-caption'));
    y += BOX_H;
    parts.push(line(TRUNK_X, y, TRUNK_X, y + GAP));
    y += GAP;
  }
  const head = trunkBox(y, labels.lmHead, 'bd-sublayer bd-head', { 'data-sublayer': 'lm_head' });
  parts.push(head);
  if (layout.finalSoftcap !== null) {
    const chipX = head.right + CHIP_GAP;
    parts.push(line(head.right, y + BOX_H / 2, chipX, y + BOX_H / 2, 'bd-line bd-dashed'));
    parts.push(chip(chipX, y + (BOX_H - CHIP_H) / 2, labels.softcap(layout.finalSoftcap), { 'data-softcap': 'final' }));
  }
  y += BOX_H + 8;
  // everything drawn, with a margin: a label wider than the usual column widens the drawing, never clips
  const whole = extent();
  const minX = Math.min(0, Math.floor(whole.left - PAD));
  const maxX = Math.max(W, Math.ceil(whole.right + PAD));
  const summary = labels.summary(layout);
  return svg(
    'svg',
    {
      class: 'block-diagram',
      viewBox: `${minX} 0 ${maxX - minX} ${y}`,
      role: 'img',
      'aria-label': summary,
      'data-placement': layout.placement,
      'data-norm-kind': layout.norm,
    },
    svg('title', {}, summary),
    parts,
  );
}
