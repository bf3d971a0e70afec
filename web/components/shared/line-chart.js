// Line charts through uPlot (the vendor copy, dist/vendor/uplot, found relative to this file).
// Why uPlot: curves with hundreds of points, linear or log axes, tick labels, a legend and a hover readout are
// what a chart library is for, and uPlot does them in ~50 KB without style attributes in markup (it sizes its
// elements from script, which the CSP allows). Bars stay plain SVG (bar-chart.js).
// Canvas colours cannot follow CSS variables by themselves, so the chart is rebuilt when the theme changes.
import uPlot from '../../vendor/uplot/uPlot.esm.js';
import { h } from './dom.js';

const systemDark = matchMedia('(prefers-color-scheme: dark)');

/**
 * `host` is the widget (a LabElement); `build(color)` returns uPlot options without width and height;
 * `color('blue')` reads the widget's --blue.
 * Returns { root, setData(data) }: data is uPlot's [xs, ys1, ys2, ...].
 */
export function lineChart({ host, label, height = 240, build }) {
  const root = h('div', { class: 'line-chart', role: 'img', 'aria-label': label });
  let plot = null;
  let data = null;  // null until the first setData: the chart is then drawn empty (axes, legend)

  // One style read per drawing (each getComputedStyle() after a change is a style pass of the page).
  let style = null;
  const color = (name) => (style ??= getComputedStyle(host)).getPropertyValue(`--${name}`).trim() || '#777';
  const width = () => Math.max(240, Math.floor(root.clientWidth || 480));

  // Drawn at once, empty, so the chart takes its final size before the first result arrives: the page does not
  // jump when a widget's results come in.
  function create() {
    plot?.destroy();
    style = null;
    const options = build(color);
    plot = new uPlot({ ...options, width: width(), height }, data ?? options.series.map(() => []), root);
  }

  // While the widget is in the document: the plot (uPlot listens on window), its resize observer and the theme
  // listeners. A re-inserted widget draws again from the kept data, in the theme of that moment.
  host.whileConnected(() => {
    // Drawn once the widget's build() has placed the chart in the page (a microtask later), where it can take
    // its real width; the first data then only fills it in.
    if (root.isConnected) create();
    else queueMicrotask(() => { if (!plot && host.isConnected) create(); });
    const resizes = new ResizeObserver(() => {
      if (plot && Math.abs(plot.width - width()) > 1) plot.setSize({ width: width(), height });
    });
    resizes.observe(root);
    let frame = 0;
    const onTheme = () => { cancelAnimationFrame(frame); frame = requestAnimationFrame(create); };
    document.addEventListener('residual-lab:themechange', onTheme);
    systemDark.addEventListener('change', create);
    return () => {
      resizes.disconnect();
      cancelAnimationFrame(frame);
      document.removeEventListener('residual-lab:themechange', onTheme);
      systemDark.removeEventListener('change', create);
      plot?.destroy();
      plot = null;
    };
  });

  return {
    root,
    setData(next) {
      const sameShape = plot && next.length === plot.series.length;  // the empty first drawing included
      data = next;
      if (!plot) return;  // drawn when the widget is inserted
      if (sameShape) plot.setData(data);
      else create();
    },
  };
}

/** Axis options in the widget's colours. */
export function axis(color, extra = {}) {
  return {
    stroke: color('muted'),
    grid: { stroke: color('border'), width: 1 },
    ticks: { stroke: color('border'), width: 1 },
    font: '12px system-ui, sans-serif',
    labelFont: '12px system-ui, sans-serif',
    ...extra,
  };
}
