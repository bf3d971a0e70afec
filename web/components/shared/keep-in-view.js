// Keeping one element in view while the page above it still grows (widgets drawing their first results, the
// chapter's sections laid out in turns): where a shared link opens, and where the model table hands a block to
// the placement lab. One element is held at a time, and the page's hold on a linked section (web/shell/page.js)
// ends when one starts.

/** Sent on window when an element is to be kept in view: every earlier hold ends. */
export const KEEP_IN_VIEW_EVENT = 'residual-lab:keep-in-view';

const KEEP_IN_VIEW_MS = 10_000;

/** What the reader does to move on: any of these ends a hold. A click counts without a pointer (a screen reader's
 * default action, a script's element.click()), and so does the browser's Back or Forward (popstate). */
export const READER_MOVES = ['wheel', 'keydown', 'pointerdown', 'touchstart', 'click', 'popstate'];

/**
 * Scrolls to `host`, and again whenever the page or `host` changes size, until the reader scrolls, types, touches
 * or clicks, another element is kept in view, or KEEP_IN_VIEW_MS have passed after `until` (a promise: what
 * `host` is about to do, such as a run whose results change the layout) settles.
 */
export function keepInView(host, { until = Promise.resolve() } = {}) {
  dispatchEvent(new Event(KEEP_IN_VIEW_EVENT));
  const scroll = () => host.scrollIntoView({ block: 'start' });
  scroll();
  const resizes = new ResizeObserver(scroll);
  const ends = [...READER_MOVES, KEEP_IN_VIEW_EVENT];
  let timer = 0;
  let stopped = false;
  const stop = () => {
    stopped = true;
    resizes.disconnect();
    clearTimeout(timer);
    for (const type of ends) removeEventListener(type, stop, true);
  };
  resizes.observe(document.documentElement);
  resizes.observe(host);
  for (const type of ends) addEventListener(type, stop, { capture: true, passive: true });
  const startTimer = () => {
    if (!stopped) timer = setTimeout(stop, KEEP_IN_VIEW_MS);
  };
  until.then(startTimer, startTimer);
}
