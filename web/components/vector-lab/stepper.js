// The step-through view of <rl-vector-lab>: RMSNorm's five steps, then LayerNorm's six, each a formula whose
// value appears once the reader has stepped to it; the current step is highlighted and announced.
// Keys: ArrowRight / ArrowDown next, ArrowLeft / ArrowUp previous, Home first, End last.
import { h } from '../shared/dom.js';
import { formula } from '../shared/formula.js';

export const STEPS = [
  ...['rmsSquares', 'rmsMeanSquare', 'rmsRms', 'rmsNormalized', 'rmsOutput'].map((key) => ({ key, method: 'rms' })),
  ...['lnMean', 'lnCentered', 'lnVariance', 'lnStd', 'lnNormalized', 'lnOutput'].map((key) => ({ key, method: 'ln' })),
];

/** `onStep(index)` asks for a new step index (0 = nothing computed yet, STEPS.length = all). */
export function createStepper({ strings, onStep }) {
  let current = 0;
  const go = (index) => onStep(Math.max(0, Math.min(STEPS.length, index)));
  const previous = h('button', { type: 'button', class: 'step-button', onclick: () => go(current - 1) }, '◀ ', strings.previous);
  const next = h('button', { type: 'button', class: 'step-button', onclick: () => go(current + 1) }, strings.next, ' ▶');
  const now = h('p', { class: 'step-now', 'aria-live': 'polite', id: 'step-now' });

  const items = STEPS.map((step) => {
    const value = h('span', { class: 'step-value' });
    const item = h('li', { class: 'step' }, h('span', { class: 'step-name' }, strings.stepNames[step.key]), formula(step.key), h('span', { class: 'step-equals' }, ' = '), value);
    return { ...step, item, value };
  });
  const column = (method, title, full) => h('div', { class: `step-column step-${method}` },
    h('h4', {}, title), formula(full, { display: true }),
    h('ol', {}, items.filter((s) => s.method === method).map((s) => s.item)));

  const root = h('div', {
    class: 'stepper', role: 'group', tabindex: '0', 'aria-labelledby': 'steps-title', 'aria-describedby': 'steps-hint step-now',
    onkeydown: (event) => {
      const moves = { ArrowRight: current + 1, ArrowDown: current + 1, ArrowLeft: current - 1, ArrowUp: current - 1, Home: 0, End: STEPS.length };
      if (!(event.key in moves) || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      go(moves[event.key]);
    },
  },
  h('h3', { id: 'steps-title' }, strings.steps),
  h('p', { class: 'hint', id: 'steps-hint' }, strings.stepsHint),
  h('div', { class: 'step-controls' }, previous, next),
  now,
  h('div', { class: 'step-columns' }, column('rms', strings.methodRms, 'rmsFull'), column('ln', strings.methodLn, 'lnFull')));

  /** Shows step `index` with `values` (key -> formatted text). */
  function show(index, values) {
    current = index;
    items.forEach((step, i) => {
      const reached = i < index;
      step.value.textContent = reached ? values[step.key] : strings.notYet;
      step.item.classList.toggle('reached', reached);
      step.item.classList.toggle('current', i === index - 1);
      if (i === index - 1) step.item.setAttribute('aria-current', 'step');
      else step.item.removeAttribute('aria-current');
    });
    // aria-disabled, not disabled: a disabled button drops keyboard focus at the ends of the walk.
    previous.setAttribute('aria-disabled', String(index === 0));
    next.setAttribute('aria-disabled', String(index === STEPS.length));
    if (index === 0) {
      now.textContent = strings.stepNone;
    } else {
      const step = STEPS[index - 1];
      const method = step.method === 'rms' ? strings.methodRms : strings.methodLn;
      now.textContent = strings.stepNow(index, STEPS.length, method, strings.stepNames[step.key], values[step.key]);
    }
  }

  return { root, show };
}
