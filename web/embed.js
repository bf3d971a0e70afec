// embed.html: one widget alone, for an iframe. The address chooses it and sets it up:
//   embed.html?widget=vector-lab&x=3,4&eps=0.001&lang=zh&theme=dark
// `widget` is the tag without "rl-"; every other key is one of the widget's settings, named as its attribute
// (`max-gain`) or its state row (`maxGain`), without a prefix: the widget gets state-key="" and reads and writes
// the page's own query, and names any other key in its notice. `lang` is a language code of languages.js (default
// its fallback language), `theme` light or dark (default: the reader's system setting).
// The page tells its parent how tall it is ({ type: 'residual-lab:height', height, widget }) whenever that
// changes, for embed-resize.js on the host page to size the frame.
import { WIDGET_TAGS } from './components/index.js';
import { h } from './components/shared/dom.js';
import { FALLBACK_LANGUAGE, languageCode, languageRow, loadLanguage, stringsOf } from './languages.js';

const RESERVED_KEYS = ['widget', 'lang', 'theme'];
const params = new URLSearchParams(location.search);
const language = languageCode(params.get('lang'));
await loadLanguage(language);
const strings = stringsOf(language, 'embed');
document.documentElement.lang = languageRow(language).htmlLang;
const theme = params.get('theme');
if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;

const main = document.getElementById('embedded');
const name = (params.get('widget') ?? '').replace(/^rl-/, '');
const tag = `rl-${name}`;

if (WIDGET_TAGS.includes(tag)) {
  document.title = strings.title(name);
  const widget = h(tag, { 'state-key': '' });
  widget.reservedKeys = RESERVED_KEYS; // any other key that names none of its settings gets a notice
  main.append(widget);
} else {
  const link = (widget) => {
    const query = new URLSearchParams({ widget: widget.replace(/^rl-/, '') });
    if (language !== FALLBACK_LANGUAGE) query.set('lang', language);
    return h('li', {}, h('a', { href: `?${query}` }, h('code', {}, widget.replace(/^rl-/, ''))));
  };
  main.append(
    h(
      'div',
      { class: 'unknown-widget', role: 'alert' },
      h('p', {}, strings.unknown(name)),
      h('p', {}, strings.choose),
      h('ul', {}, WIDGET_TAGS.map(link)),
    ),
  );
}

if (window.parent !== window) {
  let reported = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === reported) return;
    reported = height;
    window.parent.postMessage({ type: 'residual-lab:height', height, widget: name }, '*');
  }).observe(document.body);
}
