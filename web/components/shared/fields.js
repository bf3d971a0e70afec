// Labelled form controls with an inline error slot. Each control's accessible name is its <label> (so a screen
// reader and a test's getByLabel find it); the error is tied to it by aria-describedby and announced politely.
import { h } from './dom.js';
import { parseNumber } from './parse-number.js';

/** A text field (or textarea) for a vector or a number. `setError(message | null)` shows or clears the problem. */
export function textField({ name, label, hint, value = '', placeholder, multiline = false, onInput }) {
  const id = `field-${name}`;
  const errorId = `${id}-error`;
  const hintId = hint ? `${id}-hint` : null;
  const input = h(multiline ? 'textarea' : 'input', {
    id,
    name,
    type: multiline ? null : 'text',
    rows: multiline ? 3 : null,
    spellcheck: 'false',
    autocomplete: 'off',
    placeholder,
    'aria-describedby': [hintId, errorId].filter(Boolean).join(' '),
    'aria-invalid': 'false',
    oninput: () => onInput?.(input.value),
  });
  input.value = value;
  const error = h('p', { id: errorId, class: 'field-error', 'aria-live': 'polite' });
  const root = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint ? h('p', { id: hintId, class: 'hint' }, hint) : null,
    error,
  );
  return {
    root,
    input,
    setError(message) {
      error.textContent = message ?? '';
      input.setAttribute('aria-invalid', message ? 'true' : 'false');
      root.classList.toggle('has-error', Boolean(message));
    },
  };
}

/**
 * A real <input type=range> (keyboard, input/change events and ARIA come for free) with its value shown beside
 * it. `valueText(value)` gives the text shown and announced (aria-valuetext), e.g. "×10" for a log slider.
 */
export function rangeField({ name, label, min, max, step, value, valueText = String, onInput, onChange }) {
  const id = `field-${name}`;
  const output = h('output', { for: id, class: 'range-value' });
  const input = h('input', {
    id,
    name,
    type: 'range',
    min,
    max,
    step,
    oninput: () => {
      show();
      onInput?.(Number(input.value));
    },
    onchange: () => onChange?.(Number(input.value)),
  });
  function show() {
    const text = valueText(Number(input.value));
    output.textContent = text;
    input.setAttribute('aria-valuetext', text);
  }
  input.value = String(value);
  show();
  const root = h(
    'div',
    { class: 'field field-range' },
    h('label', { for: id }, label),
    h('div', { class: 'range-row' }, input, output),
  );
  return {
    root,
    input,
    set(newValue) {
      input.value = String(newValue);
      show();
    },
  };
}

/**
 * A group of radio buttons with a legend, one under another or (`across`) side by side; `onChange(value)` fires
 * on selection.
 */
export function radioGroup({ name, legend, options, value, across = false, onChange }) {
  const inputs = options.map(({ value: optionValue, label }) => {
    const input = h('input', {
      type: 'radio',
      name,
      value: optionValue,
      id: `field-${name}-${optionValue}`,
      onchange: () => onChange?.(optionValue),
    });
    input.checked = optionValue === value;
    return h('label', { class: 'radio', for: input.id }, input, label);
  });
  return {
    root: h(
      'fieldset',
      { class: across ? 'field radio-group across' : 'field radio-group' },
      h('legend', {}, legend),
      inputs,
    ),
  };
}

/**
 * A field for `widget.state.seed` (an integer, 0 to `max`) and a button that steps to the next seed: a reader can
 * check that a result holds beyond one random draw. `onChange(seed)` gets every valid seed; a typo shows its
 * problem under the field (widget.attempt) and changes nothing.
 */
export function seedControl(widget, { label, anotherLabel, max, onChange }) {
  const field = textField({
    name: 'seed',
    label,
    value: String(widget.state.seed),
    onInput: (text) => {
      const seed = widget.attempt(field, () => parseNumber(text, { min: 0, max, integer: true }), text);
      if (seed !== undefined) onChange(seed);
    },
  });
  const another = () => {
    const seed = (widget.state.seed + 1) % (max + 1);
    field.input.value = String(seed);
    widget.clearError(field);
    onChange(seed);
  };
  return h(
    'div',
    { class: 'seed-row' },
    field.root,
    h('button', { type: 'button', class: 'reroll', onclick: another }, anotherLabel),
  );
}

/** A labelled <select> of numbers; onChange gets the number. */
export function numberSelect({ name, label, options, value, format = String, onChange }) {
  const id = `field-${name}`;
  // A value set by a link or an attribute may lie between the offered choices: it joins them, in order.
  const shown = options.includes(value) ? options : [...options, value].sort((a, b) => a - b);
  const select = h(
    'select',
    { id, name, onchange: () => onChange(Number(select.value)) },
    shown.map((option) => h('option', { value: String(option) }, format(option))),
  );
  select.value = String(value);
  return { root: h('div', { class: 'field' }, h('label', { for: id }, label), select), select };
}

/** A labelled checkbox; onChange gets the boolean. */
export function checkbox({ name, label, checked, onChange }) {
  const id = `field-${name}`;
  const input = h('input', { id, name, type: 'checkbox', onchange: () => onChange(input.checked) });
  input.checked = checked;
  return { root: h('label', { class: 'check', for: id }, input, label), input };
}

// The words each field takes for a state row's label, value and change (LabElement.control), where they are not
// those: a checkbox's value is `checked`, a radio group's label its `legend`, and a slider's setting follows
// every `input` of it.
const ROW_WORDS = new Map([
  [checkbox, ({ value, ...spec }) => ({ checked: value, ...spec })],
  [radioGroup, ({ label, ...spec }) => ({ legend: label, ...spec })],
  [rangeField, ({ onChange, ...spec }) => ({ onInput: onChange, ...spec })],
]);

/** `field` (a function of this module) made from a state row's { name, label, value, onChange } and its own options. */
export function fieldOfRow(field, spec) {
  const words = ROW_WORDS.get(field);
  return field(words ? words(spec) : spec);
}
