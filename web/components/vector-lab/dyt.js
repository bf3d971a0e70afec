// DyT in <rl-vector-lab>: the checkbox that shows it, its alpha field, and the sentence under the scale slider
// that compares every output at the current scale with the output at x1, from the numbers the kernels returned.
import { h } from '../shared/dom.js';
import { textField } from '../shared/fields.js';
import { formatFactor, formatScientific, powerOfTen } from '../shared/format.js';
import { parseNumber } from '../shared/parse-number.js';

// A real change, well above float32 rounding of outputs near 1 (a few times 1e-7), and small enough to catch
// eps at work: at x0.1 the worked example's RMSNorm moves by 2.4e-4.
const CHANGE_EXPONENT = -5;
const CHANGE = 10 ** CHANGE_EXPONENT;
const formatChange = (value) => (value < CHANGE ? `< ${powerOfTen(CHANGE_EXPONENT)}` : formatScientific(value, 2).text);
// |tanh| above this is "saturated": the output is within 1% of |gamma| of +-gamma + beta.
const SATURATED = 0.99;

/**
 * The controls: a checkbox (`onToggle(checked)`) and the alpha field (`onInput()`), shown only with DyT.
 * `readAlpha()` returns alpha or throws a coded Error for the field's message.
 */
export function dytControls({ strings, range, shown, alpha, onToggle, onInput }) {
  const checkbox = h('input', {
    type: 'checkbox',
    id: 'field-dyt',
    name: 'dyt',
    'aria-describedby': 'field-dyt-hint',
    onchange: () => onToggle(checkbox.checked),
  });
  checkbox.checked = shown;
  const alphaField = textField({
    name: 'alpha',
    label: strings.alpha,
    hint: strings.alphaHint,
    value: String(alpha),
    onInput,
  });
  alphaField.root.hidden = !shown;
  const root = h(
    'div',
    { class: 'dyt-controls' },
    h(
      'div',
      { class: 'field field-checkbox' },
      h('label', { class: 'checkbox', for: 'field-dyt' }, checkbox, strings.showDyt),
      h('p', { class: 'hint', id: 'field-dyt-hint' }, strings.showDytHint),
    ),
    alphaField.root,
  );
  return {
    root,
    alphaField,
    readAlpha: () => parseNumber(alphaField.input.value, range),
    setShown(value) {
      alphaField.root.hidden = !value;
    },
  };
}

/** The largest |a_i - b_i|. */
export function maxChange(a, b) {
  let largest = 0;
  for (let i = 0; i < a.length; i++) largest = Math.max(largest, Math.abs(a[i] - b[i]));
  return largest;
}

/**
 * The sentence under the slider. `now` and `atOne` hold the three outputs ({ rms, ln, dyt }) at the current
 * scale and at x1; `tanh` and `x` are DyT's tanh(alpha x) and the input at the current scale.
 */
export function scaleComparison({ strings, scale, now, atOne, tanh, x }) {
  if (scale === 1) return strings.scaleAtOne;
  const change = {
    rms: maxChange(now.rms, atOne.rms),
    ln: maxChange(now.ln, atOne.ln),
    dyt: maxChange(now.dyt, atOne.dyt),
  };
  const dytMoved = change.dyt >= CHANGE;
  const normsMoved = change.rms >= CHANGE || change.ln >= CHANGE;
  const verdict = !dytMoved ? 'none' : normsMoved ? 'all' : 'dytOnly';
  const saturated =
    Array.from(x).some((v) => v !== 0) && Array.from(tanh).every((t, i) => x[i] === 0 || Math.abs(t) > SATURATED);
  const parts = [
    strings.scaleCompared(
      formatFactor(scale),
      formatChange(change.rms),
      formatChange(change.ln),
      formatChange(change.dyt),
    ),
    strings.scaleVerdict[verdict],
    saturated ? strings.saturated : null,
  ];
  return parts.filter(Boolean).join(strings.sentenceGap);
}
