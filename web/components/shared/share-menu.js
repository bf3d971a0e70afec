// "Share and export", at the foot of every widget (LabElement adds it): copy a link to the page with this widget's
// settings, an iframe snippet (the lab's embed.html) or a tag snippet with those settings; save each chart as
// PNG, SVG and CSV and each table as CSV. A <details> element, so it opens from the keyboard with no script of its
// own. Under the page CSP: downloads are Blob URLs on an <a download>; the clipboard is navigator.clipboard, and
// where the browser refuses it the text is shown selected in a field, for the reader to copy.
import { exportableTables, tableCsv } from './chart-export.js';
import { widgetOf } from '../registry.js';
import { h } from './dom.js';
import { LINK_LIMIT, writeState } from './state.js';
import { FALLBACK_LANGUAGE, languageRow } from '../../languages.js';

const embedPage = () => new URL('../../embed.html', import.meta.url);

const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const escapeAttribute = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The widget's settings that differ from the rows' defaults, as written to a URL (state.js's writeState), unprefixed. */
function settings(host) {
  return [...writeState(host.stateTable, host.state, new URLSearchParams(), '')];
}

/**
 * The current page's address with this widget's settings in it (what the widget writes to the address bar) and
 * its anchor. Resolves to { href, tooLong }: tooLong is the length when no link can carry the settings.
 */
export async function pageLink(host) {
  const { href, dropped } = await host.shareableAddress();
  const length = href.length + dropped.reduce((sum, { length: n }) => sum + n, 0);
  return { href, tooLong: dropped.length || length > LINK_LIMIT ? length : 0 };
}

/** embed.html?widget=<tag without rl->&<setting>=<value>...&lang=<code> */
export function embedUrl(host) {
  const url = embedPage();
  url.search = new URLSearchParams([
    ['widget', host.localName.replace(/^rl-/, '')],
    ...settings(host),
    ['lang', host.language],
  ]).toString();
  return url.href;
}

/** The iframe of embed.html with these settings, as tall as the widget's frame height (registry.js). */
export function iframeSnippet(host) {
  const title = host.shadowRoot.querySelector('h3')?.textContent ?? host.localName;
  const { frameHeight } = widgetOf(host.constructor.tag);
  return `<iframe src="${escapeAttribute(embedUrl(host))}" title="${escapeAttribute(title)}" width="100%" height="${frameHeight}" loading="lazy"></iframe>`;
}

/**
 * <rl-vector-lab x="3, 4"></rl-vector-lab>: attributes are the settings' names in kebab-case, defaults left out,
 * and lang unless the widget shows the fallback language (which a tag without lang gets).
 */
export function tagSnippet(host) {
  const attributes = settings(host)
    .map(([name, value]) => ` ${kebab(name)}="${escapeAttribute(value)}"`)
    .join('');
  const lang = host.language === FALLBACK_LANGUAGE ? '' : ` lang="${host.language}"`;
  return `<${host.localName}${lang}${attributes}></${host.localName}>`;
}

function download(parent, blob, fileName) {
  const href = URL.createObjectURL(blob);
  const link = h('a', { href, download: fileName, hidden: true });
  parent.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** A list item per exportable chart (PNG, SVG, CSV) and table (CSV) of `host`; `save(make, type, fileName)`. */
function exportItems(host, t, save) {
  const base = host.localName;
  const items = [];
  const charts = [...host.shadowRoot.querySelectorAll('.line-chart, .bar-chart')].filter((el) => el.chartExport);
  charts.forEach((root, i) => {
    const label = root.getAttribute('aria-label') || root.chartExport.label;
    const name = `${base}-chart-${i + 1}`;
    const button = (format, make, type) =>
      h(
        'button',
        {
          type: 'button',
          'aria-label': t.saveAs(format, label),
          onclick: () => save(make, type, `${name}.${format.toLowerCase()}`),
        },
        format,
      );
    items.push(
      h(
        'li',
        { class: 'share-item' },
        h('span', { class: 'share-label' }, label),
        ' ',
        button('PNG', () => root.chartExport.png(), 'image/png'),
        button('SVG', () => root.chartExport.svg(), 'image/svg+xml'),
        button('CSV', () => root.chartExport.csv(), 'text/csv'),
      ),
    );
  });
  const tables = exportableTables(host.shadowRoot);
  tables.forEach((table, i) => {
    const labelledBy = table.getAttribute('aria-labelledby');
    const heading = labelledBy ? host.shadowRoot.getElementById(labelledBy)?.textContent.trim() : '';
    const label = t.table(i + 1, heading);
    items.push(
      h(
        'li',
        { class: 'share-item' },
        h('span', { class: 'share-label' }, label),
        ' ',
        h(
          'button',
          {
            type: 'button',
            'aria-label': t.saveAs('CSV', label),
            onclick: () => save(() => tableCsv(table), 'text/csv', `${base}-table-${i + 1}.csv`),
          },
          'CSV',
        ),
      ),
    );
  });
  return items;
}

export function shareMenu(host) {
  const t = host.common.share;
  const status = h('p', { class: 'share-status', role: 'status', 'aria-live': 'polite' });
  const fallback = h('textarea', {
    class: 'share-fallback',
    readonly: true,
    rows: 3,
    'aria-label': t.fallbackLabel,
    hidden: true,
  });
  const exports = h('div', { class: 'share-exports' });

  async function copy(text, done) {
    fallback.hidden = true;
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      status.textContent = done;
    } catch {
      fallback.value = text;
      fallback.hidden = false;
      fallback.focus();
      fallback.select();
      status.textContent = t.copyRefused;
    }
  }

  async function copyLink() {
    const { href, tooLong } = await pageLink(host);
    if (!tooLong) return copy(href, t.copiedLink);
    fallback.hidden = true;
    status.textContent = t.linkTooLong(
      tooLong.toLocaleString(languageRow(host.language).numberLocale),
      LINK_LIMIT.toLocaleString(languageRow(host.language).numberLocale),
    );
    return undefined;
  }

  async function save(make, type, fileName) {
    try {
      const made = await make();
      download(menu, made instanceof Blob ? made : new Blob([made], { type }), fileName);
      status.textContent = t.saved(fileName);
    } catch (error) {
      status.textContent = t.saveFailed(error?.message ?? String(error));
    }
  }

  // The charts and tables are listed when the menu opens: a widget may add or drop some as settings change.
  function listExports() {
    const items = exportItems(host, t, save);
    exports.replaceChildren(...(items.length ? [h('ul', { class: 'share-list' }, items)] : []));
  }

  const menu = h(
    'details',
    {
      class: 'share-menu',
      ontoggle: () => {
        if (menu.open) listExports();
      },
    },
    h('summary', {}, t.title),
    h(
      'div',
      { class: 'share-actions' },
      h('button', { type: 'button', onclick: copyLink }, t.copyLink),
      // The single-file chapter (scripts/offline.mjs) has no embed page beside it to frame.
      globalThis.residualLabOffline
        ? null
        : h('button', { type: 'button', onclick: () => copy(iframeSnippet(host), t.copiedIframe) }, t.copyIframe),
      h('button', { type: 'button', onclick: () => copy(tagSnippet(host), t.copiedTag) }, t.copyTag),
    ),
    exports,
    fallback,
    status,
  );
  return menu;
}
