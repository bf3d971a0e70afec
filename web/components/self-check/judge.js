// Checking one self-check answer, free of the DOM (tests/js/self-check.test.mjs runs it in node).
// A numeric answer is parsed by the lab's number parser (shared/parse-number.js); text that is not a number,
// or a number beyond float64 ("1e999"), is `invalid` with the parser's error, never silently wrong.
import { parseNumber } from '../shared/parse-number.js';

/** How close a numeric answer must be: `tolerance` (absolute) or `relative` times the right value. */
export function allowedError(exercise, expected) {
  return exercise.tolerance ?? exercise.relative * Math.abs(expected);
}

/**
 * { verdict: 'right' | 'wrong' | 'invalid' | 'empty', expected, error? } for the reader's `given` answer
 * (typed text for a number, a choice's value for a choice). `expected` is the exercise's computed answer (a
 * widget computes it once and passes it back).
 */
export function judge(exercise, given, lab, expected = exercise.answer(lab)) {
  if (given === null || given === undefined || String(given).trim() === '') return { verdict: 'empty', expected };
  if (exercise.kind === 'choice') return { verdict: given === expected ? 'right' : 'wrong', expected };
  let value;
  try {
    value = parseNumber(String(given));
  } catch (error) {
    return { verdict: 'invalid', expected, error };
  }
  return {
    verdict: Math.abs(value - expected) <= allowedError(exercise, expected) ? 'right' : 'wrong',
    expected,
    value,
  };
}
