// The step-through view of <rl-vector-lab>: RMSNorm's five steps, then LayerNorm's six, then (when the reader
// shows DyT) DyT's three, each a formula whose value appears once the reader has stepped to it; the current step
// is highlighted and announced.
// Keys: ArrowRight / ArrowDown next, ArrowLeft / ArrowUp previous, Home first, End last.
import { h } from '../shared/dom.js';
import { formatTrimmed } from '../shared/format.js';
import { formula } from '../shared/formula.js';

export const STEPS = [
  ...['rmsSquares', 'rmsMeanSquare', 'rmsRms', 'rmsNormalized', 'rmsOutput'].map((key) => ({ key, method: 'rms' })),
  ...['lnMean', 'lnCentered', 'lnVariance', 'lnStd', 'lnNormalized', 'lnOutput'].map((key) => ({ key, method: 'ln' })),
  ...['dytScaled', 'dytTanh', 'dytOutput'].map((key) => ({ key, method: 'dyt' })),
];
/** How many of STEPS there are to walk: DyT's come last, so without DyT the walk stops before them. */
export const stepCount = (withDyt) => (withDyt ? STEPS.length : STEPS.filter((step) => step.method !== 'dyt').length);
const METHOD_NAME = { rms: 'methodRms', ln: 'methodLn', dyt: 'methodDyt' };

/** `onStep(index)` asks for a new step index (0 = nothing computed yet, the step count = all). */
export function createStepper({ strings, onStep }) {
  let current = 0;
  let total = stepCount(false);
  const go = (index) => onStep(Math.max(0, Math.min(total, index)));
  const previous = h(
    'button',
    { type: 'button', class: 'step-button', onclick: () => go(current - 1) },
    '◀ ',
    strings.previous,
  );
  const next = h(
    'button',
    { type: 'button', class: 'step-button', onclick: () => go(current + 1) },
    strings.next,
    ' ▶',
  );
  const now = h('p', { class: 'step-now', 'aria-live': 'polite', id: 'step-now' });

  const items = STEPS.map((step) => {
    const value = h('span', { class: 'step-value' });
    const item = h(
      'li',
      { class: 'step' },
      h('span', { class: 'step-name' }, strings.stepNames[step.key]),
      formula(step.key),
      h('span', { class: 'step-equals' }, ' = '),
      value,
    );
    return { ...step, item, value };
  });
  const column = (method, title, full) =>
    h(
      'div',
      { class: `step-column step-${method}` },
      h('h4', {}, title),
      formula(full, { display: true }),
      h(
        'ol',
        {},
        items.filter((s) => s.method === method).map((s) => s.item),
      ),
    );
  const dytColumn = column('dyt', strings.methodDyt, 'dytFull');
  const methodColumns = [
    column('rms', strings.methodRms, 'rmsFull'),
    column('ln', strings.methodLn, 'lnFull'),
    dytColumn,
  ];
  const columns = h('div', { class: 'step-columns' }, methodColumns);

  const root = h(
    'div',
    {
      class: 'stepper',
      role: 'group',
      tabindex: '0',
      'aria-labelledby': 'steps-title',
      'aria-describedby': 'steps-hint step-now',
      onkeydown: (event) => {
        const moves = {
          ArrowRight: current + 1,
          ArrowDown: current + 1,
          ArrowLeft: current - 1,
          ArrowUp: current - 1,
          Home: 0,
          End: total,
        };
        if (!(event.key in moves) || event.altKey || event.ctrlKey || event.metaKey) return;
        event.preventDefault();
        go(moves[event.key]);
      },
    },
    h('h3', { id: 'steps-title' }, strings.steps),
    h('p', { class: 'hint', id: 'steps-hint' }, strings.stepsHint),
    h('div', { class: 'step-controls' }, previous, next),
    now,
    columns,
  );

  /**
   * Shows step `index` (clamped to the walk) with `values` (key -> formatted text); `withDyt` adds DyT's column
   * and steps to the walk.
   */
  function show(index, values, withDyt = false) {
    total = stepCount(withDyt);
    index = Math.min(index, total);
    current = index;
    dytColumn.hidden = !withDyt;
    columns.classList.toggle('with-dyt', withDyt);
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
    next.setAttribute('aria-disabled', String(index === total));
    if (index === 0) {
      now.textContent = strings.stepNone;
    } else {
      const step = STEPS[index - 1];
      now.textContent = strings.stepNow(
        index,
        total,
        strings[METHOD_NAME[step.method]],
        strings.stepNames[step.key],
        values[step.key],
      );
    }
  }

  return { root, columns: methodColumns, show };
}

/**
 * Each step's text from what the kernels computed: `rms`, `ln` and `dyt` hold their steps (a refused method only
 * those before the step it refused, error.partial; dyt null while DyT is hidden); a step not computed is a dash.
 * `vectorText(values)` shows a vector.
 */
export function stepValues({ rms, ln, dyt }, vectorText) {
  const vector = (values) => (values ? vectorText(values) : '–');
  const scalar = (value) => (value === undefined ? '–' : formatTrimmed(value));
  return {
    rmsSquares: vector(rms.squares),
    rmsMeanSquare: scalar(rms.meanSquare),
    rmsRms: scalar(rms.rms),
    rmsNormalized: vector(rms.normalized),
    rmsOutput: vector(rms.output),
    lnMean: scalar(ln.mean),
    lnCentered: vector(ln.centered),
    lnVariance: scalar(ln.variance),
    lnStd: scalar(ln.std),
    lnNormalized: vector(ln.normalized),
    lnOutput: vector(ln.output),
    ...(dyt && { dytScaled: vector(dyt.scaled), dytTanh: vector(dyt.tanh), dytOutput: vector(dyt.output) }),
  };
}
