// What the share menu (share-menu.js) saves of a chart or table: PNG, SVG and CSV. A chart's root element carries
// `chartExport = { label, png(), svg(), csv() }` (set by line-chart.js and bar-chart.js); tables are read from
// their cells. The SVG of a line chart is drawn here from the series data (uPlot draws on canvas): axes with
// the ticks and labels uPlot drew, one polyline per series, a legend; no library is needed for that much.
// Every export carries the chart's current label (its settings) as a title and a legend naming each colour; a CSV
// holds the values themselves (a curve plotted as log10 is written as the quantity), never what was drawn.

import { formatTicks } from './format.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const TITLE_LINE = 16; // a line of the title above a saved chart
const LEGEND_ROW = 18; // one row of the legend below a saved bar chart

/**
 * A chart's label broken into lines that fit `width` px at 12 px (about 7 px a character, 12 for a CJK one), at
 * spaces where the text has them.
 */
export function titleLines(text, width) {
  const lines = [];
  let line = '';
  let used = 0;
  for (const c of text) {
    const w = c.codePointAt(0) >= 0x2e80 ? 12 : 7;
    if (used + w > width && line) {
      const space = line.lastIndexOf(' ');
      const [kept, carried] = space > 0 ? [line.slice(0, space), line.slice(space + 1)] : [line, ''];
      lines.push(kept);
      line = carried;
      used = [...carried].reduce((sum, d) => sum + (d.codePointAt(0) >= 0x2e80 ? 12 : 7), 0);
    }
    if (!(line === '' && c === ' ')) {
      line += c;
      used += w;
    }
  }
  if (line) lines.push(line);
  return lines;
}
const titleHeight = (lines) => 10 + lines.length * TITLE_LINE;
const svgTitle = (lines, x, fill) =>
  `<text x="${x}" y="${TITLE_LINE}" font-weight="bold"${fill ? ` fill="${escapeXml(fill)}"` : ''}>${lines
    .map((line, k) => `<tspan x="${x}" dy="${k ? TITLE_LINE : 0}">${escapeXml(line)}</tspan>`)
    .join('')}</text>`;

/** One CSV line: fields with a comma, quote or line break are quoted (RFC 4180). */
export function csvLine(fields) {
  return fields
    .map((field) => {
      const text = field === null || field === undefined ? '' : String(field);
      return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    })
    .join(',');
}

export const csvText = (rows) => `${rows.map(csvLine).join('\r\n')}\r\n`;

const escapeXml = (text) =>
  String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A table's cells as CSV (header cells included, in order). A cell that shows a <data> element (a number rounded
 * for reading, a long vector in short) is saved as the element's value, in full.
 */
export function tableCsv(table) {
  const cellText = (cell) => {
    const data = cell.querySelectorAll('data[value]');
    return data.length === 1 && data[0].textContent.trim() === cell.textContent.trim()
      ? data[0].value
      : cell.textContent.trim();
  };
  return csvText([...table.rows].map((row) => [...row.cells].map(cellText)));
}

/** The tables of a widget's shadow root that are its own, not a chart's legend (uPlot lays its legend out as one). */
export const exportableTables = (root) =>
  [...root.querySelectorAll('table')].filter((table) => !table.closest('[hidden], .line-chart'));

/** Up to about `count` round tick values covering [min, max] (1, 2 or 5 times a power of ten apart). */
export function linearTicks(min, max, count = 5) {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const ticks = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

function logTicks(min, max, base) {
  const ticks = [];
  for (let e = Math.ceil(Math.log(min) / Math.log(base) - 1e-9); base ** e <= max * (1 + 1e-9); e++)
    ticks.push(base ** e);
  return ticks;
}

/**
 * A uPlot scale as { position(v) in 0..1, ticks, labels }: the ticks and labels uPlot drew on `axis` (its splits
 * and values callbacks ran then), or round ones where it has drawn none.
 */
function scaleMap(scale, axis) {
  const { min, max } = scale;
  const drawn = axis?._splits?.length && axis._values?.length === axis._splits.length;
  const labelled = (ticks) =>
    drawn
      ? { ticks: axis._splits, labels: axis._values.map((v) => (v == null ? '' : String(v))) }
      : { ticks, labels: formatTicks(ticks) };
  if (scale.distr === 3) {
    const base = scale.log ?? 10;
    const [lo, hi] = [Math.log(min), Math.log(max)];
    return { position: (v) => (v > 0 ? (Math.log(v) - lo) / (hi - lo) : NaN), ...labelled(logTicks(min, max, base)) };
  }
  return { position: (v) => (v - min) / (max - min), ...labelled(linearTicks(min, max)) };
}

function seriesColor(plot, i) {
  const stroke = plot.series[i].stroke;
  const value = typeof stroke === 'function' ? stroke(plot, i) : stroke;
  return typeof value === 'string' ? value : '#777777';
}

/** The grid lines and tick labels of both axes; `box` = { left, top, width, height } of the plot. */
function svgGrid(xScale, yScale, px, py, box) {
  const { left, top, width, height } = box;
  return [
    ...xScale.ticks.flatMap((t, k) => [
      `<line x1="${px(t)}" x2="${px(t)}" y1="${top}" y2="${top + height}" stroke="#dddddd"/>`,
      `<text x="${px(t)}" y="${top + height + 16}" text-anchor="middle">${escapeXml(xScale.labels[k])}</text>`,
    ]),
    ...yScale.ticks.flatMap((t, k) => [
      `<line x1="${left}" x2="${left + width}" y1="${py(t)}" y2="${py(t)}" stroke="#dddddd"/>`,
      `<text x="${left - 6}" y="${py(t) + 4}" text-anchor="end">${escapeXml(yScale.labels[k])}</text>`,
    ]),
  ];
}

/** The points of a series' polylines, "x,y" each: a gap (null, NaN, off a log scale) ends one and starts the next. */
function polylineRuns(xs, values, px, py) {
  const runs = [[]];
  values.forEach((v, r) => {
    const x = px(xs[r]);
    const y = py(v);
    if (v === null || !Number.isFinite(x) || !Number.isFinite(y)) runs.push([]);
    else runs.at(-1).push(`${x.toFixed(2)},${y.toFixed(2)}`);
  });
  return runs;
}

/** An SVG legend of { color, name } entries, three to a row from (left, top) across `width`. */
function svgLegend(legend, left, width, top) {
  return legend.flatMap(({ color, name }, k) => {
    const x = left + (k % 3) * (width / 3);
    const y = top + Math.floor(k / 3) * 16;
    return [
      `<rect x="${x}" y="${y - 9}" width="14" height="4" fill="${escapeXml(color)}"/>`,
      `<text x="${x + 20}" y="${y}">${escapeXml(name)}</text>`,
    ];
  });
}

/**
 * The export of a uPlot chart; `getPlot()` and `getData()` give the current plot and data ([xs, ys...]),
 * `getLabel()` the chart's current label, `background()` and `foreground()` the widget's colours. `log10`: the y values are log10 of the quantity (log-axis.js), which the
 * CSV writes back as the quantity; `quantity` names it in the CSV's headers ("without residuals: gradient norm"),
 * joined to each series' name by `seriesHeader(series, quantity)` (the page language's punctuation).
 */
export function lineChartExport({
  label,
  getLabel = () => label,
  getPlot,
  getData,
  background,
  foreground = () => '#000000',
  log10 = false,
  quantity = '',
  seriesHeader = (series, named) => `${series}: ${named}`,
}) {
  const names = (plot) =>
    plot.series.map((s, i) => {
      if (i === 0) return plot.axes[0]?.label || 'x';
      const name = s.label || `series ${i}`;
      return quantity ? seriesHeader(name, quantity) : name;
    });
  const shownValue = (v) => (log10 ? 10 ** v : v);
  return {
    label,
    csv() {
      const plot = getPlot();
      const data = getData() ?? [];
      const rows = [names(plot)];
      for (let r = 0; r < (data[0]?.length ?? 0); r++) {
        rows.push(
          data.map((column, i) =>
            column[r] !== null && Number.isFinite(column[r]) ? (i === 0 ? column[r] : shownValue(column[r])) : '',
          ),
        );
      }
      return csvText(rows);
    },
    svg() {
      const plot = getPlot();
      const data = getData() ?? [];
      const W = 640;
      const title = getLabel();
      const lines = titleLines(title, W - 16);
      const H = 400 + titleHeight(lines);
      const m = { left: 70, right: 20, top: 20 + titleHeight(lines), bottom: 90 };
      const pw = W - m.left - m.right;
      const ph = H - m.top - m.bottom;
      const xScale = scaleMap(plot.scales.x, plot.axes[0]);
      const yKey = plot.series.find((s, i) => i > 0)?.scale ?? 'y';
      const yAxis = plot.axes.find((a, i) => i > 0 && (a.scale ?? 'y') === yKey);
      const yScale = scaleMap(plot.scales[yKey], yAxis);
      const flipX = plot.scales.x.dir === -1;
      const px = (v) => m.left + (flipX ? 1 - xScale.position(v) : xScale.position(v)) * pw;
      const py = (v, scale = yScale) => m.top + (1 - scale.position(v)) * ph;
      const parts = [svgTitle(lines, 8), ...svgGrid(xScale, yScale, px, py, { ...m, width: pw, height: ph })];
      parts.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#888888"/>`);
      parts.push(
        `<text x="${m.left + pw / 2}" y="${m.top + ph + 36}" text-anchor="middle">${escapeXml(plot.axes[0]?.label ?? '')}</text>`,
        `<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${escapeXml(yAxis?.label ?? '')}</text>`,
      );
      const legend = [];
      for (let i = 1; i < data.length; i++) {
        const scale = (plot.series[i].scale ?? 'y') === yKey ? yScale : scaleMap(plot.scales[plot.series[i].scale]);
        const runs = polylineRuns(data[0], data[i], px, (v) => py(v, scale));
        const color = seriesColor(plot, i);
        for (const run of runs)
          if (run.length)
            parts.push(
              `<polyline fill="none" stroke="${escapeXml(color)}" stroke-width="2" points="${run.join(' ')}"/>`,
            );
        legend.push({ color, name: plot.series[i].label ?? `series ${i}` });
      }
      parts.push(...svgLegend(legend, m.left, pw, H - 34));
      return (
        `<svg xmlns="${SVG_NS}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui, sans-serif" font-size="12">\n` +
        `<title>${escapeXml(title)}</title>\n<rect width="${W}" height="${H}" fill="#ffffff"/>\n${parts.join('\n')}\n</svg>\n`
      );
    },
    /**
     * The chart's canvas (axes and curves as uPlot drew them) on the widget's background, the chart's label above
     * and a legend strip below.
     */
    png() {
      const plot = getPlot();
      const source = plot.ctx.canvas;
      const ratio = source.width / Math.max(1, plot.width);
      const strip = Math.round(24 * ratio);
      const lines = titleLines(getLabel(), plot.width - 16);
      const top = Math.round(titleHeight(lines) * ratio);
      const canvas = Object.assign(document.createElement('canvas'), {
        width: source.width,
        height: top + source.height + strip,
      });
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = background();
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(source, 0, top);
      ctx.textBaseline = 'middle';
      ctx.fillStyle = foreground();
      ctx.font = `bold ${Math.round(12 * ratio)}px system-ui, sans-serif`;
      lines.forEach((line, k) => ctx.fillText(line, 8 * ratio, (TITLE_LINE / 2 + 4 + k * TITLE_LINE) * ratio));
      ctx.font = `${Math.round(12 * ratio)}px system-ui, sans-serif`;
      let x = 8 * ratio;
      const legendY = top + source.height + strip / 2;
      for (let i = 1; i < plot.series.length; i++) {
        ctx.fillStyle = seriesColor(plot, i);
        ctx.fillRect(x, legendY - 2 * ratio, 14 * ratio, 4 * ratio);
        ctx.fillText(plot.series[i].label ?? '', x + 18 * ratio, legendY);
        x += 18 * ratio + ctx.measureText(plot.series[i].label ?? '').width + 14 * ratio;
      }
      return canvasBlob(canvas);
    },
  };
}

const canvasBlob = (canvas) =>
  new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error('the chart could not be encoded as PNG'))),
      'image/png',
    ),
  );

const PAINTED = ['fill', 'stroke', 'stroke-width', 'font-size', 'font-family', 'font-weight', 'opacity'];

/**
 * A file of an SVG chart: its current label as a title above, a copy of the chart with the colours its stylesheet
 * gives it written as attributes (a file has no CSS), and a legend below: one swatch per series in the colour of
 * that series' bars.
 */
function standaloneSvg(svgElement, { title, series, background }) {
  const copy = svgElement.cloneNode(true);
  const originals = [svgElement, ...svgElement.querySelectorAll('*')];
  const copies = [copy, ...copy.querySelectorAll('*')];
  originals.forEach((original, k) => {
    const style = getComputedStyle(original);
    for (const property of PAINTED) {
      const value = style.getPropertyValue(property);
      if (value) copies[k].setAttribute(property, value);
    }
  });
  const [, , width, chartHeight] = (svgElement.getAttribute('viewBox') ?? '0 0 480 200').split(/\s+/).map(Number);
  const lines = titleLines(title, width - 16);
  const top = titleHeight(lines);
  copy.setAttribute('y', top);
  copy.setAttribute('width', width);
  copy.setAttribute('height', chartHeight);
  const text = getComputedStyle(svgElement).color || '#000000';
  // The legend flows in rows: a swatch, the series' name, a gap (names measured at about 7 px per character).
  const legend = [];
  let x = 8;
  let row = 0;
  for (const { label, className } of series) {
    const itemWidth = 22 + 7 * label.length + 14;
    if (x > 8 && x + itemWidth > width) {
      x = 8;
      row += 1;
    }
    const y = top + chartHeight + 4 + row * LEGEND_ROW;
    const bar = svgElement.querySelector(`rect.bar.${CSS.escape(className)}`);
    const fill = bar ? getComputedStyle(bar).fill : '#777777';
    legend.push(
      `<rect class="legend-swatch ${escapeXml(className)}" x="${x}" y="${y + 3}" width="14" height="10" fill="${escapeXml(fill)}"/>`,
      `<text x="${x + 20}" y="${y + 12}" fill="${escapeXml(text)}">${escapeXml(label)}</text>`,
    );
    x += itemWidth;
  }
  const height = top + chartHeight + (series.length ? (row + 1) * LEGEND_ROW + 6 : 0);
  const file =
    `<svg xmlns="${SVG_NS}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="12">` +
    `<title>${escapeXml(title)}</title><rect width="${width}" height="${height}" fill="${escapeXml(background)}"/>` +
    svgTitle(lines, 8, text) +
    `${new XMLSerializer().serializeToString(copy)}<g class="legend">${legend.join('')}</g></svg>`;
  return { text: file, width, height };
}

/**
 * The export of an SVG bar chart; `getDrawn()` gives the last draw() argument ({ categories, series }), `getLabel()`
 * the chart's current label.
 */
export function barChartExport({ label, getLabel = () => label, root, getDrawn, background }) {
  const file = () =>
    standaloneSvg(root, { title: getLabel(), series: getDrawn()?.series ?? [], background: background() });
  return {
    label,
    csv() {
      const { categories = [], series = [] } = getDrawn() ?? {};
      return csvText([
        ['', ...series.map((s) => s.label)],
        ...categories.map((c, i) => [c, ...series.map((s) => s.values[i])]),
      ]);
    },
    svg: () => file().text,
    /** The SVG rendered at twice its size (an image from a data: URL, which the page's img-src allows). */
    async png() {
      const { text, width, height } = file();
      const image = new Image();
      image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
      await image.decode();
      const canvas = Object.assign(document.createElement('canvas'), { width: width * 2, height: height * 2 });
      canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
      return canvasBlob(canvas);
    },
  };
}
