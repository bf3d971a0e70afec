// Defines the Residual Lab elements. A page needs only
//   <script type="module" src=".../components/index.js"></script>
// and the tags; each element finds the lab (../lib/residual-lab.js) and its CSS (../styles/) relative to
// this folder, so the widgets work in any page that serves the built dist/ tree.
//
// Which widgets there are is registry.js, whose rows load their modules. A widget's module is loaded when its
// tag first appears in the document (as the page is parsed, or added later by a script), and the widgets are
// defined one per task, in the order their tags appear: a page loads only the widgets it shows, and no task of
// its loading builds them all. An element a script creates is upgraded once it is in the document
// (`customElements.whenDefined(tag)` resolves then); `defineWidgets()` defines widgets that never are (in a
// shadow root of the host page's own, say).
import { WIDGETS, widgetOf } from './registry.js';

/** The class a widget's module exports (the one whose static tag is the row's). */
function classOf(module, tag) {
  const element = Object.values(module).find((value) => value?.tag === tag);
  if (!element) throw new Error(`components/${tag}.js exports no element class whose tag is ${tag}`);
  return element;
}

/** The element classes, in the registry's order (the attribute reference reads their state tables). */
export const widgetElements = () =>
  Promise.all(WIDGETS.map(async (widget) => classOf(await widget.load(), widget.tag)));

/** The tags this file defines, in the registry's order (embed.html lists them). */
export { WIDGET_TAGS } from './registry.js';

// A task boundary: the next widget is built in a task of its own, so that input and drawing go between.
const nextTask = () =>
  globalThis.scheduler?.yield
    ? globalThis.scheduler.yield()
    : new Promise((resolve) => {
        const channel = new MessageChannel(); // not throttled as timers are in background tabs and frames
        channel.port1.onmessage = () => resolve();
        channel.port2.postMessage(null);
      });

const requested = new Map(); // tag -> promise of its definition
let queue = Promise.resolve();

/** Loads the widget's module now and defines its element after those asked for before, in a task of its own. */
function request(widget) {
  if (requested.has(widget.tag)) return requested.get(widget.tag);
  const loading = widget.load();
  const defined = (queue = queue.then(async () => {
    const element = classOf(await loading, widget.tag);
    await nextTask();
    if (!customElements.get(widget.tag)) customElements.define(widget.tag, element);
  }));
  requested.set(widget.tag, defined);
  queue = defined.catch((error) => {
    requested.delete(widget.tag); // the next element of this tag tries again
    console.error(`Residual Lab: <${widget.tag}> could not be loaded`, error);
  });
  return defined;
}

/** Defines the widgets of `tags` (default every one); resolves once they are. */
export const defineWidgets = (tags = WIDGETS.map((widget) => widget.tag)) =>
  Promise.all(
    tags.map((tag) => {
      const widget = widgetOf(tag);
      if (!widget) throw new Error(`<${tag}> is no widget of Residual Lab`);
      return request(widget);
    }),
  );

const SELECTOR = WIDGETS.map((widget) => widget.tag).join(', ');

/** Requests every widget of `node` and below it, in document order. */
function requestWithin(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return;
  if (node.matches(SELECTOR)) request(widgetOf(node.localName));
  for (const element of node.querySelectorAll(SELECTOR)) request(widgetOf(element.localName));
}

if (typeof document !== 'undefined') {
  requestWithin(document.documentElement);
  const watch = new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) requestWithin(node);
    if (requested.size === WIDGETS.length) watch.disconnect();
  });
  if (requested.size < WIDGETS.length) watch.observe(document, { childList: true, subtree: true });
}
