// Line charts through uPlot (the vendor copy, dist/vendor/uplot, found relative to this file).
// Why uPlot: curves with hundreds of points, linear or log axes, tick labels, a legend and a hover readout are
// what a chart library is for, and uPlot does them in ~50 KB without style attributes in markup (it sizes its
// elements from script, which the CSP allows). Bars stay plain SVG (bar-chart.js).
// Canvas colours cannot follow CSS variables by themselves, so the chart is rebuilt when the theme changes.
// uPlot (145 KB of the widgets' code) is a chunk of its own, fetched and evaluated when the first chart is made,
// not with the widgets' bundle while the page loads; a chart is drawn once it has arrived.
import { h } from './dom.js';
import { common } from './i18n.js';
import { lineChartExport } from './chart-export.js';
import { axisValues } from './format.js';

const systemDark = matchMedia('(prefers-color-scheme: dark)');
const printing = matchMedia('print');

let uPlot = null;
let uPlotLoading = null;
const loadUPlot = () =>
  (uPlotLoading ??= import('../../vendor/uplot/uPlot.esm.js').then((module) => {
    uPlot = module.default;
  }));

// The colours charts use, read for a widget in one style pass before it builds (resolveChartColours): the first
// drawing then reads no style, which in the middle of a widget's build is a style pass of the whole page.
const CHART_COLOURS = ['fg', 'muted', 'border', 'bg', 'blue', 'orange', 'vermillion', 'green', 'grey', 'purple'];
const palettes = new WeakMap(); // host -> { scheme, colours: Map }
const schemeNow = () => `${document.documentElement.dataset.theme ?? ''}|${systemDark.matches}|${printing.matches}`;

/** Reads the chart colours of `host` (its shadow root holds the widget's stylesheets) at once, for its charts. */
export function resolveChartColours(host) {
  const probes = CHART_COLOURS.map((name) => {
    const probe = h('span', { class: 'color-probe', hidden: true });
    probe.style.color = `var(--${name}, #777)`;
    return probe;
  });
  host.shadowRoot.append(...probes);
  const colours = new Map(CHART_COLOURS.map((name, i) => [name, getComputedStyle(probes[i]).color]));
  for (const probe of probes) probe.remove();
  palettes.set(host, { scheme: schemeNow(), colours });
  loadUPlot().catch(() => {}); // fetched while the lab loads
}

/**
 * `host` is the widget (a LabElement); `build(color)` returns uPlot options without width and height;
 * `color('blue')` reads the widget's --blue.
 * Returns { root, setData(data) }: data is uPlot's [xs, ys1, ys2, ...].
 * For the share menu's exports: `log10` says the y values are log10 of the quantity (log-axis.js),
 * `quantity` names the quantity (and its unit) for the CSV's headers.
 */
const probes = new WeakMap();
function colorProbe(host) {
  let probe = probes.get(host);
  if (!probe) host.shadowRoot.append((probe = h('span', { class: 'color-probe', hidden: true })));
  probes.set(host, probe);
  return probe;
}

/**
 * Calls `redraw` whenever the colours may change: the page's theme (in the next frame), the system's scheme, and
 * printing, which switches the page to its print palette (page.css) and back after. Returns the unsubscribe.
 */
function redrawOnPaletteChange(redraw) {
  let frame = 0;
  const onTheme = () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(redraw);
  };
  document.addEventListener('residual-lab:themechange', onTheme);
  systemDark.addEventListener('change', redraw);
  printing.addEventListener('change', redraw);
  addEventListener('beforeprint', redraw);
  addEventListener('afterprint', redraw);
  return () => {
    cancelAnimationFrame(frame);
    document.removeEventListener('residual-lab:themechange', onTheme);
    systemDark.removeEventListener('change', redraw);
    printing.removeEventListener('change', redraw);
    removeEventListener('beforeprint', redraw);
    removeEventListener('afterprint', redraw);
  };
}

export function lineChart({ host, label, height = 240, build, log10 = false, quantity = '' }) {
  // Until the first data the chart is an empty frame; on paper a short note stands in for it (charts.css).
  const root = h(
    'div',
    { class: 'line-chart', role: 'img', 'aria-label': label, 'data-empty': '' },
    h('p', { class: 'chart-empty-note' }, common(host.language).chartNotComputed),
  );
  let plot = null;
  let data = null; // null until the first setData: the chart is then drawn empty (axes, legend)

  // The widget's colours are light-dark() pairs (widget.css): a hidden probe in its shadow root resolves one to
  // the rgb() of the current scheme, which a canvas understands.
  // One style read per colour and drawing (each getComputedStyle() after a change is a style pass of the page).
  let colours = null;
  const color = (name) => {
    const palette = palettes.get(host);
    if (palette?.scheme === schemeNow() && palette.colours.has(name)) return palette.colours.get(name);
    colours ??= new Map();
    if (!colours.has(name)) {
      const probe = colorProbe(host);
      probe.style.color = `var(--${name}, #777)`;
      colours.set(name, getComputedStyle(probe).color);
    }
    return colours.get(name);
  };
  // The width the chart's ResizeObserver last reported (after a layout): reading root.clientWidth instead would
  // lay out the page there and then, with whatever other work is waiting for the next frame.
  let reportedWidth = 0;
  const width = () => Math.max(240, Math.floor(reportedWidth || 480));

  // Drawn at once, empty, so the chart takes its final size before the first result arrives: the page does not
  // jump when a widget's results come in.
  function create() {
    if (!uPlot) return; // drawn once uPlot has loaded (whileConnected, below)
    plot?.destroy();
    colours = null;
    const options = build(color);
    const legend = {
      ...options.legend,
      markers: { width: markerBorder, fill: legendSwatch, ...options.legend?.markers },
    };
    // Points-only series (width 0) keep a round marker in the legend (charts.css), lines get a line.
    const series = options.series.map((one, i) =>
      i > 0 && one.width === 0 ? { ...one, class: one.class ?? 'points-series' } : one,
    );
    plot = new uPlot(
      { ...options, series, legend, cursor: followTransforms(options.cursor), width: width(), height },
      data ?? options.series.map(() => []),
      root,
    );
    listDrawnSeries();
  }

  // The legend lists only the curves drawn: a series whose values are all missing (a curve switched off) has none.
  function listDrawnSeries() {
    const rows = plot?.root.querySelectorAll('.u-legend .u-series') ?? [];
    rows.forEach((row, i) => {
      const values = data?.[i];
      row.style.display = i > 0 && values && !Array.prototype.some.call(values, (v) => v != null) ? 'none' : '';
    });
  }

  // While the widget is in the document: the plot (uPlot listens on window), its resize observer and the theme
  // listeners. A re-inserted widget draws again from the kept data, in the theme of that moment.
  // PNG, SVG and CSV for the share menu
  root.chartExport = lineChartExport({
    label,
    getLabel: () => root.getAttribute('aria-label') || label,
    getPlot: () => plot,
    getData: () => data,
    background: () => color('bg'),
    foreground: () => color('fg'),
    log10,
    quantity,
    seriesHeader: (series, named) => common(host.language).seriesQuantity(series, named),
  });

  host.whileConnected(() => {
    // Drawn once the widget's build() has placed the chart in the page, where it can take its real width (the
    // first data then only fills it in): in the widget's first drawing a frame of its own (inLaterFrame), so that a
    // widget's charts are not all drawn and laid out in its build's frame; later (a rebuild, a re-insertion) at once.
    host.inLaterFrame(() =>
      loadUPlot().then(
        () => {
          if (!plot && host.isConnected) create();
        },
        () => {},
      ),
    );
    const resizes = new ResizeObserver(([entry]) => {
      reportedWidth = entry.contentRect.width;
      if (plot && Math.abs(plot.width - width()) > 1) plot.setSize({ width: width(), height });
    });
    resizes.observe(root);
    const stopRedrawing = redrawOnPaletteChange(create);
    return () => {
      resizes.disconnect();
      stopRedrawing();
      plot?.destroy();
      plot = null;
    };
  });

  return {
    root,
    setData(next) {
      const sameShape = plot && next.length === plot.series.length; // the empty first drawing included
      data = next;
      root.removeAttribute('data-empty');
      if (!plot) return; // drawn when the widget is inserted
      if (sameShape) {
        plot.setData(data);
        listDrawnSeries();
      } else create();
    },
  };
}

/**
 * A legend swatch that looks like the line: the series' colour in its dash pattern (a CSS background on uPlot's
 * marker, shaped as a short thick line by the widget stylesheet), so dashed and solid series differ in the legend
 * as they do on the chart, not by colour alone.
 */
function legendSwatch(u, seriesIndex) {
  const series = u.series[seriesIndex];
  if (series.width === 0) return series.points?.fill?.(u, seriesIndex) ?? 'transparent';
  const colour = typeof series.stroke === 'function' ? series.stroke(u, seriesIndex) : series.stroke;
  if (!colour) return 'transparent';
  const dash = series.dash ?? [];
  if (dash.length < 2) return colour;
  let at = 0;
  const stops = [];
  const pattern = dash.length % 2 ? [...dash, ...dash] : dash;
  pattern.forEach((length, i) => {
    const paint = i % 2 === 0 ? colour : 'transparent';
    stops.push(`${paint} ${at}px ${at + length}px`);
    at += length;
  });
  return `repeating-linear-gradient(90deg, ${stops.join(', ')})`;
}

/** The legend marker's border: none for a line's swatch, the point's outline for a points-only series. */
function markerBorder(u, seriesIndex) {
  return u.series[seriesIndex].width === 0 ? 2 : 0;
}

/** A colour (#rgb, #rrggbb or rgb(r, g, b), as the stylesheets and the colour probe give them) made translucent. */
export function faint(colour, alpha = 0.3) {
  const text = colour.trim();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(text);
  const rgb = /^rgba?\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)/i.exec(text);
  if (!hex && !rgb) return colour;
  const [r, g, b] = hex
    ? (hex[1].length === 3 ? [...hex[1]].map((d) => d + d) : hex[1].match(/../g)).map((d) => parseInt(d, 16))
    : rgb.slice(1, 4).map(Number);
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

// uPlot reads the pointer as clientX minus the plot's getBoundingClientRect(): screen pixels. Inside a CSS transform
// (a slide that reveal.js scales to the window) the chart's own pixels differ from those by the scale, so the
// hover readout would show another point than the one under the pointer: divide by the scale. A negative position
// is no pointer at all (uPlot's resting cursor, as every drawing starts): nothing to divide, and no layout to read.
function followTransforms(cursor = {}) {
  const { move } = cursor;
  return {
    ...cursor,
    move(self, left, top) {
      if (left < 0) return move ? move(self, left, top) : [left, top];
      const scale = self.over.getBoundingClientRect().width / (self.over.offsetWidth || 1);
      const position = scale > 0 && Math.abs(scale - 1) > 1e-3 ? [left / scale, top / scale] : [left, top];
      return move ? move(self, ...position) : position;
    },
  };
}

/** Axis options in the widget's colours, with the lab's tick labels unless `extra` brings its own `values`. */
export function axis(color, extra = {}) {
  return {
    values: axisValues,
    stroke: color('muted'),
    grid: { stroke: color('border'), width: 1 },
    ticks: { stroke: color('border'), width: 1 },
    font: '12px system-ui, sans-serif',
    labelFont: '12px system-ui, sans-serif',
    ...extra,
  };
}
