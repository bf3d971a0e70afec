// <rl-self-check set="normalization">: the exercises of one chapter section (self-check/exercises.js). Each is
// answered by keyboard or pointer and checked at once against an answer computed through the API; feedback is
// announced (aria-live), a hint follows the first wrong answer and the worked solution the second.
import { stringsOf } from '../../languages.js';
import { h } from '../shared/dom.js';
import { formatCount, formatScientific, formatTrimmed } from '../shared/format.js';
import { describeError } from '../shared/i18n.js';
import { LabElement } from '../shared/lab-element.js';
import { EXERCISE_SECTIONS, exercisesOf } from './exercises.js';
import { judge } from './judge.js';

const WRONG_BEFORE_SOLUTION = 2;

/** A computed answer as the solution shows it. */
export function formatAnswer(exercise, value) {
  if (exercise.scientific) return formatScientific(value, 3).text;
  if (exercise.digits === 0) return formatCount(value);
  return formatTrimmed(value, exercise.digits ?? 3);
}

export class RlSelfCheck extends LabElement {
  static tag = 'rl-self-check';
  // The section whose exercises it holds: the `set` attribute (or embed.html's ?set=), checked like any setting.
  static stateRows = [{ name: 'set', type: 'choice', choices: EXERCISE_SECTIONS, default: EXERCISE_SECTIONS[0] }];
  static styles = [new URL('./self-check.css', import.meta.url)];

  build() {
    const s = this.strings;
    const exercises = exercisesOf(this.state.set);
    this.body.append(h('header', { class: 'widget-header' }, h('h3', {}, s.title), h('p', { class: 'hint' }, s.hint)));
    this.items = exercises.map((exercise, i) => this.buildExercise(exercise, i + 1, exercises.length));
    this.body.append(
      h(
        'ol',
        { class: 'sc-list' },
        this.items.map((item) => item.root),
      ),
    );
  }

  buildExercise(exercise, n, total) {
    const s = this.strings;
    const text = this.exerciseText(exercise);
    const id = `sc-${exercise.id}`;
    const feedback = h('p', { class: 'sc-feedback', id: `${id}-feedback`, role: 'status', 'aria-live': 'polite' });
    const hint = h('p', { class: 'sc-hint', hidden: true }, h('strong', {}, s.hintLabel), ' ', text.hint);
    const solution = h('p', { class: 'sc-solution', hidden: true });
    const item = { exercise, wrong: 0, feedback, hint, solution };
    const onEnter = (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        this.check(item);
      }
    };
    let control;
    if (exercise.kind === 'number') {
      const input = h('input', {
        id: `${id}-input`,
        type: 'text',
        spellcheck: 'false',
        autocomplete: 'off',
        'aria-describedby': `${id}-feedback`,
        'aria-invalid': 'false',
        onkeydown: onEnter,
      });
      item.read = () => input.value;
      item.input = input;
      control = h(
        'div',
        { class: 'sc-number' },
        h('p', { class: 'sc-question', id: `${id}-question` }, text.question),
        h(
          'div',
          { class: 'sc-answer-row' },
          h('div', { class: 'field' }, h('label', { for: input.id }, s.yourAnswer), input),
        ),
      );
    } else {
      const radios = exercise.choices.map((choice) => {
        const input = h('input', {
          type: 'radio',
          name: id,
          value: choice.value,
          id: `${id}-${choice.value.replace(/[^a-z0-9]+/gi, '-')}`,
          onkeydown: onEnter,
        });
        return h('label', { class: 'radio', for: input.id }, input, text.choices[choice.value]);
      });
      item.read = () =>
        radios.map((label) => label.querySelector('input')).find((input) => input.checked)?.value ?? null;
      control = h(
        'fieldset',
        { class: 'field radio-group sc-choice', 'aria-describedby': `${id}-feedback` },
        h('legend', { class: 'sc-question' }, text.question),
        radios,
      );
    }
    const button = h(
      'button',
      { type: 'button', class: 'sc-check', onclick: () => this.check(item), 'aria-describedby': `${id}-question` },
      s.check,
    );
    // A number's Check button sits beside its field; a choice's below the choices.
    if (exercise.kind === 'number') control.querySelector('.sc-answer-row').append(button);
    item.root = h(
      'li',
      { class: 'sc-exercise', 'data-exercise': exercise.id, 'aria-label': s.exerciseLabel(n, total) },
      control,
      exercise.kind === 'number' ? null : h('div', { class: 'sc-actions' }, button),
      feedback,
      hint,
      solution,
    );
    return item;
  }

  update() {}

  check(item) {
    const s = this.strings;
    const { exercise } = item;
    item.expected ??= exercise.answer(this.lab); // computed on the first check, through the API
    const result = judge(exercise, item.read(), this.lab, item.expected);
    item.input?.setAttribute('aria-invalid', String(result.verdict === 'invalid'));
    item.root.setAttribute('data-verdict', result.verdict);
    switch (result.verdict) {
      case 'empty':
        item.feedback.textContent = exercise.kind === 'number' ? s.emptyNumber : s.emptyChoice;
        return;
      case 'invalid':
        // With no bounds given, parseNumber's only range error is a number beyond float64 ("1e999").
        item.feedback.textContent = s.invalid(
          result.error.code === 'not_in_range' ? s.tooLarge : describeError(result.error, this.language),
        );
        return;
      case 'right':
        item.feedback.textContent = s.right;
        this.showSolution(item, result.expected);
        return;
      default:
        item.wrong += 1;
        item.hint.hidden = false;
        item.feedback.textContent = item.wrong >= WRONG_BEFORE_SOLUTION ? s.wrongAgain : s.wrong;
        if (item.wrong >= WRONG_BEFORE_SOLUTION) this.showSolution(item, result.expected);
    }
  }

  /** An exercise's question, hint, solution and choice labels in the page language (content/<lang>/strings/exercises.js). */
  exerciseText(exercise) {
    return stringsOf(this.language, 'exercises')[exercise.id];
  }

  showSolution(item, expected) {
    const { exercise } = item;
    const answer = exercise.kind === 'number' ? formatAnswer(exercise, expected) : expected;
    item.solution.replaceChildren(
      h('strong', {}, this.strings.solutionLabel),
      ' ',
      this.exerciseText(exercise).solution(answer),
    );
    item.solution.hidden = false;
  }
}
