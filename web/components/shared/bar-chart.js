// Grouped bars for a few values per dimension (the vector lab's outputs, the Gemma trap's readings).
// Why plain SVG and not uPlot: uPlot draws lines and points on canvas; a handful of bars is a few <rect>s,
// which stay crisp at any zoom, print well, take their colours from CSS classes (theme and palette live in
// the stylesheet), and carry a <title> each for hover and screen readers.
import { h, svg, replaceChildren } from './dom.js';
import { barChartExport } from './chart-export.js';
import { alignDecimals, formatTicks, formatTrimmed } from './format.js';

const DEFAULT_WIDTH = 480; // until the chart has a size of its own
const MIN_WIDTH = 240;
const HEIGHT = 200;
const MARGIN = { left: 46, right: 8, top: 14, bottom: 22 };
// Widths of the monospace text (charts.css): 12-px names and ticks, 11-px bar values, per character; a CJK
// character takes about a full em.
const TICK_CHAR = 7.3;
const VALUE_CHAR = 6.7;
const WIDE_CHAR = 12;
const TITLE_LINE = 15; // the height of one line of an axis title
const SLANT_LIMIT = 40; // slanted names, each in its own column, stay readable up to this many categories
const SLANT = Math.SQRT1_2; // sin 45°: the drop of a slanted name per unit of its length

/**
 * Creates an empty chart; `barTitle(series, category, value)` writes a bar's hover text in the page's language
 * (common.barTitle). draw({ categories, series: [{ label, className, values }], limit, format, axes })
 * draws series side by side per category on an axis from the most negative value's nice bound (or 0) to `limit`;
 * `format(value)` writes a bar's value (the lab's number format by default), the axis has the lab's tick labels.
 * Category names that would not fit side by side are slanted at 45°, every one of them up to SLANT_LIMIT categories
 * (an eps chart's 17 norms), thinned to every n-th beyond. `axes` = { x, y }, optional:
 * what the categories are (written under their names) and what the bars measure (written above the value axis),
 * each wrapped to the chart's width.
 */
export function barChart({ label, barTitle }) {
  const root = svg('svg', {
    class: 'bar-chart',
    viewBox: `0 0 ${DEFAULT_WIDTH} ${HEIGHT}`,
    role: 'img',
    'aria-label': label,
  });
  // The drawing is as wide in user units as the chart is on screen, so its text keeps its CSS size (11-12 px) on
  // a phone instead of shrinking with a fixed viewBox; it is drawn again when the width changes.
  let last = null; // the last draw() argument: redrawn on resize, read by the share menu's CSV
  let drawnWidth = DEFAULT_WIDTH;
  // Until the chart's first layout its width is unknown, and reading it would lay out the page there and then (in
  // a widget's first drawing, most of its cost): it is drawn at the default width, and again at its own once the
  // observer reports that layout, before the frame is painted.
  let laidOut = false;
  const shownWidth = () => Math.max(MIN_WIDTH, Math.round(root.getBoundingClientRect().width) || DEFAULT_WIDTH);
  root.chartExport = barChartExport({
    label,
    getLabel: () => root.getAttribute('aria-label') || label,
    root,
    getDrawn: () => last && { categories: last.categories, series: last.series },
    background: () => getComputedStyle(root).getPropertyValue('--bg').trim() || '#ffffff',
  });
  new ResizeObserver(() => {
    laidOut = true;
    if (last && Math.abs(shownWidth() - drawnWidth) > 1) draw(last);
  }).observe(root);

  function draw(args) {
    last = args;
    const { categories, series, limit, format = (v) => formatTrimmed(v, 2), axes = {} } = args;
    const WIDTH = (drawnWidth = laidOut ? shownWidth() : drawnWidth);
    const yTitle = axes.y ? wrapText(axes.y, WIDTH - 8) : [];
    const xTitle = axes.x ? wrapText(axes.x, WIDTH - 8) : [];
    const top = MARGIN.top + TITLE_LINE * yTitle.length; // the value axis's title above the plot
    const fewValues = categories.length * series.length <= 16;
    // The negative side only reaches as far as the values need (a nice number, at most `limit`), with room
    // under the deepest bar for its value label.
    const deepest = Math.max(0, ...series.flatMap((s) => Array.from(s.values, (v) => -v)));
    const hasNegative = deepest > 0;
    const low = hasNegative ? -Math.min(limit, niceLimit(deepest * (fewValues ? 1.25 : 1))) : 0;
    const ticks = [low, ...(hasNegative ? [0] : []), limit];
    const tickLabels = formatTicks(ticks);
    // The axis is as far in as its longest tick label needs (1 × 10⁻⁸ is longer than 2).
    const left = Math.max(MARGIN.left, TICK_CHAR * Math.max(...tickLabels.map((t) => t.length)) + 10);
    const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
    const y = (v) => top + ((limit - clamp(v, low, limit)) / (limit - low)) * plotHeight;
    const namesY = top + plotHeight + MARGIN.bottom - 5; // the baseline of the category names
    const plotWidth = WIDTH - left - MARGIN.right;
    const groupWidth = plotWidth / Math.max(1, categories.length);
    const { slanted, slantDrop, labelEvery } = categoryLayout(categories, groupWidth);
    const height = HEIGHT + slantDrop + TITLE_LINE * (yTitle.length + xTitle.length);
    root.setAttribute('viewBox', `0 0 ${WIDTH} ${height}`);
    const barWidth = (groupWidth * 0.8) / series.length;
    // Values are written on the bars when there are few and each fits over its bar; the <title>s always have them.
    // One chart's labels share one precision (alignDecimals), whatever `format` gives each value.
    const valueTexts = fewValues
      ? regroup(alignDecimals(series.flatMap((s) => Array.from(s.values, format))), series)
      : [];
    const showValues = fewValues && valueTexts.flat().every((text) => VALUE_CHAR * text.length <= barWidth + 6);

    const axis = valueAxis(ticks, tickLabels, y, left, WIDTH - MARGIN.right);
    const bars = categories.map((category, i) => {
      const groupLeft = left + i * groupWidth + groupWidth * 0.1;
      const rects = series.map((s, k) => {
        const value = s.values[i];
        const top = Math.min(y(value), y(0));
        const x = groupLeft + k * barWidth;
        const overflow = value > limit || value < low;
        return [
          svg(
            'rect',
            {
              class: `bar ${s.className}${overflow ? ' overflow' : ''}`,
              x,
              y: top,
              width: Math.max(1, barWidth - 2),
              height: Math.max(0.5, Math.abs(y(value) - y(0))),
            },
            svg('title', {}, barTitle(s.label, category, format(value))),
          ),
          showValues
            ? svg(
                'text',
                {
                  class: 'bar-value',
                  x: x + barWidth / 2 - 1,
                  y: value < 0 ? y(value) + 13 : y(value) - 4,
                  'text-anchor': 'middle',
                },
                valueTexts[k][i],
              )
            : null,
        ];
      });
      const name = i % labelEvery === 0 ? categoryName(category, groupLeft + groupWidth * 0.4, namesY, slanted) : null;
      return [rects, name];
    });
    replaceChildren(
      root,
      titleLines(yTitle, 12, 'y'),
      axis,
      bars,
      titleLines(xTitle, namesY + slantDrop + TITLE_LINE, 'x'),
    );
  }

  return { root, draw };
}

/**
 * How the category names fit columns of groupWidth: side by side, every n-th (labelEvery) where too many;
 * slanted, every one, where too wide for their column but few enough (each then needs a line's height of column,
 * not its length), the plot's bottom then slantDrop lower.
 */
function categoryLayout(categories, groupWidth) {
  const widestName = Math.max(0, ...categories.map((name) => textWidth(String(name)) + 10));
  const slanted = widestName > groupWidth && categories.length <= SLANT_LIMIT && groupWidth >= TITLE_LINE - 3;
  return {
    slanted,
    slantDrop: slanted ? Math.ceil((widestName - 10) * SLANT) : 0,
    labelEvery: slanted ? 1 : Math.max(1, Math.ceil(categories.length / 16), Math.ceil(widestName / groupWidth)),
  };
}

/** A category's name under its column, centred on `centre`, or slanted up to its end there. */
function categoryName(category, centre, baseline, slanted) {
  if (!slanted) return svg('text', { class: 'category', x: centre, y: baseline, 'text-anchor': 'middle' }, category);
  const y = baseline - 8;
  const attributes = { class: 'category', x: centre, y, 'text-anchor': 'end', transform: `rotate(-45 ${centre} ${y})` };
  return svg('text', attributes, category);
}

/** The value axis: a grid line at each tick (the zero line marked) from `left` to `right`, its label left of it. */
function valueAxis(ticks, tickLabels, y, left, right) {
  return ticks.map((tick, k) => [
    svg('line', { class: tick === 0 ? 'zero-line' : 'grid-line', x1: left, x2: right, y1: y(tick), y2: y(tick) }),
    svg(
      'text',
      { class: 'tick', x: left - 6, y: y(tick), 'text-anchor': 'end', 'dominant-baseline': 'middle' },
      tickLabels[k],
    ),
  ]);
}

/** An axis title of `lines`, the first on `firstBaseline`, one TITLE_LINE apart; null when there are none. */
function titleLines(lines, firstBaseline, side) {
  if (!lines.length) return null;
  return svg(
    'text',
    { class: 'axis-title', 'data-axis': side },
    lines.map((line, i) => svg('tspan', { x: 4, y: firstBaseline + i * TITLE_LINE }, line)),
  );
}

/** `text` broken into lines no wider than `width` user units: between words, or between CJK characters. */
function wrapText(text, width) {
  const lines = [];
  let line = '';
  for (const piece of text.match(/[\u2e80-\u9fff\uff00-\uffef]|[^\s\u2e80-\u9fff\uff00-\uffef]+|\s+/g)) {
    const next = line + piece;
    if (line.trim() && textWidth(next.trimEnd()) > width) {
      lines.push(line.trimEnd());
      line = piece.trimStart();
    } else line = next;
  }
  if (line.trim()) lines.push(line.trim());
  return lines;
}

const textWidth = (text) =>
  [...text].reduce((w, ch) => w + (/[\u2e80-\u9fff\uff00-\uffef]/.test(ch) ? WIDE_CHAR : TICK_CHAR), 0);

/** A flat list of texts back into one array per series. */
function regroup(texts, series) {
  let at = 0;
  return series.map((s) => texts.slice(at, (at += s.values.length)));
}

/**
 * One entry of a chart's legend: the series' swatch and its name, kept on one line together (a line may break
 * between entries, never between a swatch and its name).
 */
export const legendEntry = (className, name) =>
  h('span', { class: 'legend-entry' }, h('span', { class: `swatch ${className}` }), name);

function clamp(v, low, high) {
  return Number.isFinite(v) ? Math.min(high, Math.max(low, v)) : 0;
}

/** A "nice" axis limit at or above `value`: 1, 2, 2.5 or 5 times a power of ten. */
export function niceLimit(value) {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((candidate) => candidate >= value * (1 - 1e-9));
}
