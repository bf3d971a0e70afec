// Shadow-root styling under the page CSP (style-src 'self'): <style> elements and style="" attributes are
// blocked, constructable stylesheets are not. Each CSS file is fetched once, parsed into a CSSStyleSheet and
// shared by every widget that adopts it. Where fetch is impossible (a page opened from file://) or
// constructable sheets are missing, a <link rel=stylesheet> in the shadow root does the same job.
const sheets = new Map();

/**
 * The stylesheets every widget adopts before its own, in this order: the parts every widget has (colours, fonts,
 * fields, tables), its charts and formulas, then paper, phones and touch screens, which override both.
 */
export const WIDGET_CSS = [
  new URL('./widget.css', import.meta.url),
  new URL('./charts.css', import.meta.url),
  new URL('./widget-media.css', import.meta.url),
];
/** The block diagrams' stylesheet (block-diagram.js), for the widgets that draw one. */
export const BLOCK_DIAGRAM_CSS = new URL('./block-diagram.css', import.meta.url);
export const uplotCssUrl = () => new URL('../../vendor/uplot/uPlot.min.css', import.meta.url);

function sheetFor(url) {
  const key = url.href;
  if (!sheets.has(key)) {
    const pending = fetch(url)
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.text();
      })
      .then((text) => new CSSStyleSheet().replace(text));
    sheets.set(key, pending);
  }
  return sheets.get(key);
}

/** Styles `root` (a ShadowRoot) with the given stylesheet URLs, in order. Never rejects. */
export async function adoptStyles(root, urls) {
  try {
    if (typeof CSSStyleSheet !== 'function' || !('adoptedStyleSheets' in root))
      throw new Error('no constructable stylesheets');
    root.adoptedStyleSheets = await Promise.all(urls.map(sheetFor));
  } catch {
    const links = urls.map((url) =>
      Object.assign(document.createElement('link'), { rel: 'stylesheet', href: url.href }),
    );
    root.prepend(...links);
  }
}
