// The chapter's links that set widgets' settings, opened in place (shell/page.js sets this up): the settings join
// the address and the widgets take them, without a reload that would drop what the reader changed elsewhere.
import { READER_MOVES } from '../components/shared/keep-in-view.js';
import { WIDGET_TAGS } from '../components/registry.js';

/** The widgets on the page that have drawn (their settings and address prefix known). */
const drawnWidgets = () =>
  [...document.querySelectorAll(WIDGET_TAGS.join(','))].filter((el) => typeof el.followLink === 'function' && el.state);

/**
 * A link of this page whose query only sets widgets' settings (`?probe.experiment=epsMargin#rl-probe`: every key
 * under the prefix of a widget here) opens in place: a reload would drop what the reader changed in the other
 * widgets. Its settings join the address as a new history entry, so Back returns to where the reader clicked
 * (the browser restores that entry's scroll position), and each widget they name takes them (followLink); the
 * one the fragment names (its anchor) brings what they show into view. After Back or Forward each widget writes
 * its own settings into that entry again: the widgets keep what they show, and the address says it. A link with
 * any other key, to another page, with a modifier key or a target, is left to the browser.
 */
export function openWidgetLinksInPlace() {
  addEventListener('click', (event) => {
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    const link = event.composedPath().find((node) => node instanceof HTMLAnchorElement && node.hasAttribute('href'));
    if (!link || link.target || link.hasAttribute('download')) return;
    // a link with no query of its own (`#section`) inherits the page's: it sets nothing
    if (!link.getAttribute('href').split('#')[0].includes('?')) return;
    const to = new URL(link.href);
    if (to.origin !== location.origin || to.pathname !== location.pathname || !to.search) return;
    const widgets = drawnWidgets();
    const named = widgets.filter(
      (w) => w.stateKey && [...to.searchParams.keys()].some((k) => k.startsWith(`${w.stateKey}.`)),
    );
    const claimed = (key) => named.some((w) => key.startsWith(`${w.stateKey}.`));
    if (!named.length || ![...to.searchParams.keys()].every(claimed)) return;
    const address = new URL(location.href);
    for (const [key, value] of to.searchParams) address.searchParams.set(key, value);
    address.hash = to.hash;
    try {
      // this entry's scroll is restored by returnTo (the browser's own would restore its old offset), the new one's by the browser
      history.replaceState({ ...history.state, linkPlace: placeOf(link) }, '');
      history.scrollRestoration = 'manual';
      history.pushState(null, '', address);
      history.scrollRestoration = 'auto';
    } catch {
      return; // an address the page may not take (a file:// page in some browsers): the link loads it
    }
    event.preventDefault();
    for (const widget of named) widget.followLink(to.searchParams, { reveal: to.hash === `#${widget.anchor}` });
  });
  addEventListener('popstate', (event) => {
    if (event.state?.linkPlace) returnTo(event.state.linkPlace);
    for (const widget of drawnWidgets()) widget.scheduleUrlWrite();
  });
}

/** Where a clicked link is: its index among the page's links, and its top in the window (and the scroll, for one in a widget). */
function placeOf(link) {
  return {
    index: [...document.querySelectorAll('a[href]')].indexOf(link),
    top: link.getBoundingClientRect().top,
    y: scrollY,
  };
}

/**
 * Scrolls the link of placeOf back to where it was in the window, at once (the page above it may have grown since, a
 * widget's results, so its old scroll offset would land elsewhere), and holds it there while the page settles, until
 * the reader moves or RETURN_HOLD_MS have passed.
 */
const RETURN_HOLD_MS = 3000;

function returnTo({ index, top, y }) {
  const link = index >= 0 ? document.querySelectorAll('a[href]')[index] : null;
  const put = () =>
    link
      ? scrollBy({ top: link.getBoundingClientRect().top - top, behavior: 'instant' })
      : scrollTo({ top: y, behavior: 'instant' });
  put();
  const resizes = new ResizeObserver(put);
  resizes.observe(document.body);
  const release = () => {
    resizes.disconnect();
    clearTimeout(timer);
    for (const type of READER_MOVES) removeEventListener(type, release, true);
  };
  for (const type of READER_MOVES) addEventListener(type, release, { capture: true, passive: true });
  const timer = setTimeout(release, RETURN_HOLD_MS);
}
