// A small element builder over the DOM API. Text goes in as text nodes (never parsed as HTML), and there is
// no way to set a style attribute here: the CSP (style-src 'self') would block it, so layout lives in CSS.

/**
 * h('button', { type: 'button', class: 'step', onclick: fn, 'aria-label': '…' }, 'text', childNode, [more])
 * Attributes: `class`, `on<event>` (listener), `hidden`/boolean true -> empty attribute, false/null -> omitted.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'style') throw new Error('no style attributes: the page CSP blocks them; use a class');
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces the children of `element`. */
export function replaceChildren(element, ...children) {
  element.replaceChildren();
  append(element, children);
}
