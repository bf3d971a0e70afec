// What the share menu (share-menu.js) saves of a chart or table: PNG, SVG and CSV. A chart's root element carries
// `chartExport = { label, png(), svg(), csv() }` (set by line-chart.js and bar-chart.js); tables are read from
// their cells. The SVG of a line chart is drawn here from the series data (uPlot draws on canvas): axes with
// ticks and labels, one polyline per series, a legend; no library is needed for that much.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** One CSV line: fields with a comma, quote or line break are quoted (RFC 4180). */
export function csvLine(fields) {
  return fields.map((field) => {
    const text = field === null || field === undefined ? '' : String(field);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }).join(',');
}

export const csvText = (rows) => `${rows.map(csvLine).join('\r\n')}\r\n`;

const escapeXml = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A table's cells as CSV (header cells included, in order). */
export function tableCsv(table) {
  return csvText([...table.rows].map((row) => [...row.cells].map((cell) => cell.textContent.trim())));
}

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
  for (let e = Math.ceil(Math.log(min) / Math.log(base) - 1e-9); base ** e <= max * (1 + 1e-9); e++) ticks.push(base ** e);
  return ticks;
}

const tickText = (v) => (Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(1) : String(Number(v.toPrecision(6))));

/** A uPlot scale as { position(v) in 0..1, ticks }. */
function scaleMap(scale) {
  const { min, max } = scale;
  if (scale.distr === 3) {
    const base = scale.log ?? 10;
    const [lo, hi] = [Math.log(min), Math.log(max)];
    return { position: (v) => (v > 0 ? (Math.log(v) - lo) / (hi - lo) : NaN), ticks: logTicks(min, max, base) };
  }
  return { position: (v) => (v - min) / (max - min), ticks: linearTicks(min, max) };
}

function seriesColor(plot, i) {
  const stroke = plot.series[i].stroke;
  const value = typeof stroke === 'function' ? stroke(plot, i) : stroke;
  return typeof value === 'string' ? value : '#777777';
}

/** The export of a uPlot chart; `getPlot()` and `getData()` give the current plot and data ([xs, ys...]). */
export function lineChartExport({ label, getPlot, getData, background }) {
  const names = (plot) => plot.series.map((s, i) => (i === 0 ? plot.axes[0]?.label || 'x' : s.label || `series ${i}`));
  return {
    label,
    csv() {
      const plot = getPlot();
      const data = getData() ?? [];
      const rows = [names(plot)];
      for (let r = 0; r < (data[0]?.length ?? 0); r++) rows.push(data.map((column) => (Number.isFinite(column[r]) ? column[r] : '')));
      return csvText(rows);
    },
    svg() {
      const plot = getPlot();
      const data = getData() ?? [];
      const W = 640;
      const H = 400;
      const m = { left: 70, right: 20, top: 20, bottom: 90 };
      const pw = W - m.left - m.right;
      const ph = H - m.top - m.bottom;
      const xScale = scaleMap(plot.scales.x);
      const yKey = plot.series.find((s, i) => i > 0)?.scale ?? 'y';
      const yScale = scaleMap(plot.scales[yKey]);
      const flipX = plot.scales.x.dir === -1;
      const px = (v) => m.left + (flipX ? 1 - xScale.position(v) : xScale.position(v)) * pw;
      const py = (v, scale = yScale) => m.top + (1 - scale.position(v)) * ph;
      const parts = [];
      for (const t of xScale.ticks) {
        parts.push(`<line x1="${px(t)}" x2="${px(t)}" y1="${m.top}" y2="${m.top + ph}" stroke="#dddddd"/>`,
          `<text x="${px(t)}" y="${m.top + ph + 16}" text-anchor="middle">${escapeXml(tickText(t))}</text>`);
      }
      for (const t of yScale.ticks) {
        parts.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${py(t)}" y2="${py(t)}" stroke="#dddddd"/>`,
          `<text x="${m.left - 6}" y="${py(t) + 4}" text-anchor="end">${escapeXml(tickText(t))}</text>`);
      }
      parts.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#888888"/>`);
      const yAxis = plot.axes.find((a, i) => i > 0 && (a.scale ?? 'y') === yKey);
      parts.push(`<text x="${m.left + pw / 2}" y="${m.top + ph + 36}" text-anchor="middle">${escapeXml(plot.axes[0]?.label ?? '')}</text>`,
        `<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${escapeXml(yAxis?.label ?? '')}</text>`);
      const legend = [];
      for (let i = 1; i < data.length; i++) {
        const scale = scaleMap(plot.scales[plot.series[i].scale ?? 'y']);
        // a gap (null, NaN, off a log scale) ends one polyline and starts the next
        const runs = [[]];
        data[i].forEach((v, r) => {
          const x = px(data[0][r]);
          const y = py(v, scale);
          if (v === null || !Number.isFinite(x) || !Number.isFinite(y)) runs.push([]);
          else runs.at(-1).push(`${x.toFixed(2)},${y.toFixed(2)}`);
        });
        const color = seriesColor(plot, i);
        for (const run of runs) if (run.length) parts.push(`<polyline fill="none" stroke="${escapeXml(color)}" stroke-width="2" points="${run.join(' ')}"/>`);
        legend.push({ color, name: plot.series[i].label ?? `series ${i}` });
      }
      legend.forEach(({ color, name }, k) => {
        const x = m.left + (k % 3) * (pw / 3);
        const y = H - 34 + Math.floor(k / 3) * 16;
        parts.push(`<rect x="${x}" y="${y - 9}" width="14" height="4" fill="${escapeXml(color)}"/>`, `<text x="${x + 20}" y="${y}">${escapeXml(name)}</text>`);
      });
      return `<svg xmlns="${SVG_NS}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui, sans-serif" font-size="12">\n`
        + `<title>${escapeXml(label)}</title>\n<rect width="${W}" height="${H}" fill="#ffffff"/>\n${parts.join('\n')}\n</svg>\n`;
    },
    /** The chart's canvas (axes and curves as uPlot drew them) on the widget's background, a legend strip below. */
    png() {
      const plot = getPlot();
      const source = plot.ctx.canvas;
      const ratio = source.width / Math.max(1, plot.width);
      const strip = Math.round(24 * ratio);
      const canvas = Object.assign(document.createElement('canvas'), { width: source.width, height: source.height + strip });
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = background();
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(source, 0, 0);
      ctx.font = `${Math.round(12 * ratio)}px system-ui, sans-serif`;
      ctx.textBaseline = 'middle';
      let x = 8 * ratio;
      for (let i = 1; i < plot.series.length; i++) {
        ctx.fillStyle = seriesColor(plot, i);
        ctx.fillRect(x, source.height + strip / 2 - 2 * ratio, 14 * ratio, 4 * ratio);
        ctx.fillText(plot.series[i].label ?? '', x + 18 * ratio, source.height + strip / 2);
        x += 18 * ratio + ctx.measureText(plot.series[i].label ?? '').width + 14 * ratio;
      }
      return canvasBlob(canvas);
    },
  };
}

const canvasBlob = (canvas) => new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the chart could not be encoded as PNG'))), 'image/png'));

const PAINTED = ['fill', 'stroke', 'stroke-width', 'font-size', 'font-family', 'font-weight', 'opacity'];

/** A copy of an SVG element with the colours its stylesheet gives it written as attributes (a file has no CSS). */
function standaloneSvg(svgElement, background) {
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
  const [, , width, height] = (svgElement.getAttribute('viewBox') ?? '0 0 480 200').split(/\s+/).map(Number);
  copy.setAttribute('xmlns', SVG_NS);
  copy.setAttribute('width', width);
  copy.setAttribute('height', height);
  const backdrop = document.createElementNS(SVG_NS, 'rect');
  Object.entries({ width, height, fill: background }).forEach(([k, v]) => backdrop.setAttribute(k, v));
  copy.prepend(backdrop);
  return { text: new XMLSerializer().serializeToString(copy), width, height };
}

/** The export of an SVG bar chart; `getDrawn()` gives the last draw() argument ({ categories, series }). */
export function barChartExport({ label, root, getDrawn, background }) {
  return {
    label,
    csv() {
      const { categories = [], series = [] } = getDrawn() ?? {};
      return csvText([['', ...series.map((s) => s.label)], ...categories.map((c, i) => [c, ...series.map((s) => s.values[i])])]);
    },
    svg: () => standaloneSvg(root, background()).text,
    /** The SVG rendered at twice its size (an image from a data: URL, which the page's img-src allows). */
    async png() {
      const { text, width, height } = standaloneSvg(root, background());
      const image = new Image();
      image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
      await image.decode();
      const canvas = Object.assign(document.createElement('canvas'), { width: width * 2, height: height * 2 });
      canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
      return canvasBlob(canvas);
    },
  };
}
