// Placeholders for decoder-engine widgets that are not written yet: one class for every tag listed in
// strings/decoder-placeholders.js, saying in the page language that the experiment is coming and what it will
// show. All six chapter widgets now have their own files (rl-gradient-flow.js ... rl-warmup-race.js), so the list
// is empty; a new decoder widget can start here before its real file lands.
import { h } from './shared/dom.js';
import { languageOf } from './shared/i18n.js';
import { adoptStyles, stylesUrl } from './shared/styles.js';
import { PLACEHOLDER_STRINGS } from './strings/decoder-placeholders.js';

export const PLACEHOLDER_TAGS = Object.keys(PLACEHOLDER_STRINGS.en.widgets);

class DecoderPlaceholder extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const strings = PLACEHOLDER_STRINGS[languageOf(this)];
    const [title, description] = strings.widgets[this.localName];
    const root = this.attachShadow({ mode: 'open' });
    root.append(h('div', { class: 'placeholder', role: 'note', 'aria-label': title },
      h('p', { class: 'badge' }, strings.badge),
      h('h3', {}, title),
      h('p', {}, strings.arrives, ' ', description),
      h('slot', {})));
    adoptStyles(root, [stylesUrl('widget.css'), stylesUrl('placeholder.css')]);
  }
}

/** One subclass per tag: customElements.define needs a distinct constructor for every name. */
export const PLACEHOLDER_ELEMENTS = PLACEHOLDER_TAGS.map((tag) => ({ tag, element: class extends DecoderPlaceholder {} }));
