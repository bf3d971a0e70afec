// embed.html: one widget alone, for an iframe. The address chooses it and sets it up:
//   embed.html?widget=vector-lab&x=3,4&eps=0.001&lang=zh&theme=dark
// `widget` is the tag without "rl-"; every other key is one of the widget's settings, named as its attribute
// (`max-gain`) or its state row (`maxGain`), without a prefix: the widget gets state-key="" and reads and writes
// the page's own query, and names any other key in its notice. `lang` is en or zh (default en), `theme` light or dark (default: the reader's system setting).
// The page tells its parent how tall it is ({ type: 'residual-lab:height', height, widget }) whenever that
// changes, for embed-resize.js on the host page to size the frame.
import { WIDGET_TAGS } from './components/index.js';
import { h } from './components/shared/dom.js';

const STRINGS = {
  en: {
    title: (name) => `Residual Lab: ${name}`,
    unknown: (name) => (name ? `There is no widget called "${name.slice(0, 40)}".` : 'This page shows one widget: say which with ?widget=NAME.'),
    choose: 'The widgets:',
  },
  zh: {
    title: (name) => `Residual Lab：${name}`,
    unknown: (name) => (name ? `没有名为“${name.slice(0, 40)}”的组件。` : '这个页面显示一个组件：请用 ?widget=名称 指定。'),
    choose: '可用的组件：',
  },
};

const RESERVED_KEYS = ['widget', 'lang', 'theme'];
const params = new URLSearchParams(location.search);
const language = /^zh/i.test(params.get('lang') ?? '') ? 'zh' : 'en';
const strings = STRINGS[language];
document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';
const theme = params.get('theme');
if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;

const main = document.getElementById('embedded');
const name = (params.get('widget') ?? '').replace(/^rl-/, '');
const tag = `rl-${name}`;

if (WIDGET_TAGS.includes(tag)) {
  document.title = strings.title(name);
  const widget = h(tag, { 'state-key': '' });
  widget.reservedKeys = RESERVED_KEYS;  // any other key that names none of its settings gets a notice
  main.append(widget);
} else {
  const link = (widget) => {
    const query = new URLSearchParams({ widget: widget.replace(/^rl-/, '') });
    if (language === 'zh') query.set('lang', 'zh');
    return h('li', {}, h('a', { href: `?${query}` }, h('code', {}, widget.replace(/^rl-/, ''))));
  };
  main.append(h('div', { class: 'unknown-widget', role: 'alert' },
    h('p', {}, strings.unknown(name)), h('p', {}, strings.choose), h('ul', {}, WIDGET_TAGS.map(link))));
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
