// Defines every Residual Lab element. A page needs only
//   <script type="module" src=".../components/index.js"></script>
// and the tags; each element finds the lab (../lib/residual-lab.js) and its CSS (../styles/) relative to
// this folder, so the widgets work in any page that serves the built dist/ tree.
// Which widgets there are is registry.js; widget-modules.js, which the site build writes from it, imports their
// modules (statically: one bundle, which the page fetches with this file and the offline file inlines).
import { WIDGETS } from './registry.js';
import { WIDGET_MODULES } from './widget-modules.js';
import { nextTask } from '../lib/next-task.js';
import { loadLanguage } from '../languages.js';
import { languageOf } from './shared/i18n.js';

/** The element classes, in the registry's order (the attribute reference reads their state tables). */
export const WIDGET_ELEMENTS = WIDGETS.map(({ tag }, i) => {
  const element = Object.values(WIDGET_MODULES[i]).find((value) => value?.tag === tag);
  if (!element) throw new Error(`components/${tag}.js exports no element class whose tag is ${tag}`);
  return element;
});

/** The tags this file defines, in the registry's order (embed.html lists them). */
export { WIDGET_TAGS } from './registry.js';

// Defining a tag builds its elements in the document then and there. A tag the document holds is defined in a
// task of its own, in the order the tags appear (the first screen's widgets first), so that no task of the
// page's loading builds them all, once the texts of the page's language have arrived (each widget waits for its
// language's anyway: this fetches the page's while the widgets' modules are evaluated); a tag it does not hold is
// defined at once, for a script to create.
const define = (element) => customElements.get(element.tag) || customElements.define(element.tag, element);
const present = typeof document === 'undefined' ? [] : document.querySelectorAll(WIDGETS.map((w) => w.tag).join(','));
const inDocument = [...new Set([...present].map((node) => node.localName))];
for (const element of WIDGET_ELEMENTS) if (!inDocument.includes(element.tag)) define(element);
(async () => {
  if (inDocument.length) await loadLanguage(languageOf(document.documentElement)).catch(() => {}); // each widget shows a failure
  for (const tag of inDocument) {
    await nextTask();
    define(WIDGET_ELEMENTS.find((element) => element.tag === tag));
  }
})();
