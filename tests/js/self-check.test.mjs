// The self-check exercises: every answer is computed through the API (and equals the chapter's worked numbers,
// recomputed here in float64), and judge() accepts the right answer, refuses wrong, empty and absurd ones.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { EXERCISES, EXERCISE_SECTIONS } from '../../web/components/self-check/exercises.js';
import { allowedError, judge } from '../../web/components/self-check/judge.js';
import { LANGUAGES } from '../../web/languages.js';
import { SECTION_IDS } from './chapter-sections.mjs';

let lab;
before(async () => {
  lab = await load();
});

// Independent float64 values of the numeric answers (the chapter's numbers).
const x = [2, -1, 3, 0];
const rms = Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length);
const mean = x.reduce((s, v) => s + v, 0) / x.length;
const std = Math.sqrt(x.reduce((s, v) => s + (v - mean) ** 2, 0) / x.length);
const EXPECTED_NUMBERS = {
  'gradient-decay': 0.8 ** 32,
  'rmsnorm-by-hand': x[0] / rms,
  'layernorm-by-hand': (x[1] - mean) / std,
  'gemma-port': 0,
  'softcap-50': 50 * Math.tanh(100 / 50),
  'softcap-small': 30 * Math.tanh(10 / 30),
  'llama-norm-params': (32 * 2 + 1) * 4096,
  'gpt2-scaling': 1 / Math.sqrt(24),
};
const EXPECTED_CHOICES = {
  'trunk-add': 'add',
  'residual-jacobian': 'identity-plus',
  'scale-invariance': 'same',
  'trunk-normalized': 'pre',
  'llama-name': 'mlp-input',
  'qk-bound': 'sqrt-d',
  'gpt2-which': 'attn.o and mlp.down',
  'gemma-name': 'attn-output',
};

test('every exercise has text in every language, and sits in a chapter section (one to three per section)', () => {
  for (const exercise of EXERCISES) {
    for (const { code, strings } of LANGUAGES) {
      const t = strings.exercises[exercise.id];
      assert.ok(t.question && t.hint && typeof t.solution === 'function', `${exercise.id} ${code}`);
      if (exercise.kind === 'choice')
        for (const c of exercise.choices) assert.ok(t.choices[c.value], `${exercise.id} ${code}: ${c.value}`);
    }
  }
  for (const { code, strings } of LANGUAGES)
    assert.deepEqual(
      Object.keys(strings.exercises).sort(),
      EXERCISES.map((e) => e.id).sort(),
      `${code}: the text of exactly the exercises`,
    );
  for (const section of EXERCISE_SECTIONS) {
    assert.ok(SECTION_IDS.includes(section), section);
    const n = EXERCISES.filter((e) => e.section === section).length;
    assert.ok(n >= 1 && n <= 3, `${section}: ${n}`);
  }
  assert.deepEqual(
    EXERCISE_SECTIONS,
    SECTION_IDS.filter((id) => id !== 'references'),
  );
});

test("the computed answers are the chapter's numbers and the right choices", () => {
  for (const exercise of EXERCISES) {
    const answer = exercise.answer(lab);
    if (exercise.kind === 'number') {
      const expected = EXPECTED_NUMBERS[exercise.id];
      assert.ok(
        Math.abs(answer - expected) <= 1e-6 * Math.max(1, Math.abs(expected)),
        `${exercise.id}: ${answer} vs ${expected}`,
      );
    } else {
      assert.equal(answer, EXPECTED_CHOICES[exercise.id], exercise.id);
      assert.ok(
        exercise.choices.some((c) => c.value === answer),
        `${exercise.id}: the answer is one of the choices`,
      );
    }
  }
});

test('judge: right within the tolerance, wrong beyond it, empty and absurd answers get a verdict', () => {
  for (const exercise of EXERCISES) {
    const expected = exercise.answer(lab);
    if (exercise.kind === 'choice') {
      assert.equal(judge(exercise, expected, lab).verdict, 'right');
      const other = exercise.choices.find((c) => c.value !== expected).value;
      assert.equal(judge(exercise, other, lab).verdict, 'wrong');
      assert.equal(judge(exercise, null, lab).verdict, 'empty');
      continue;
    }
    const tol = allowedError(exercise, expected);
    assert.equal(judge(exercise, String(expected), lab).verdict, 'right', exercise.id);
    assert.equal(judge(exercise, String(expected + 0.9 * tol), lab).verdict, 'right', `${exercise.id} inside`);
    assert.equal(judge(exercise, String(expected + 2 * tol + 1), lab).verdict, 'wrong', `${exercise.id} outside`);
    assert.equal(judge(exercise, '', lab).verdict, 'empty');
    assert.equal(judge(exercise, '   ', lab).verdict, 'empty');
    for (const absurd of ['abc', '1e999', '1..2', 'NaN']) {
      const result = judge(exercise, absurd, lab);
      assert.equal(result.verdict, 'invalid', `${exercise.id}: ${absurd}`);
      assert.ok(['not_a_number', 'not_in_range'].includes(result.error.code), absurd);
    }
  }
});

test('judge: the typed forms the chapter suggests are read', () => {
  const decay = EXERCISES.find((e) => e.id === 'gradient-decay');
  for (const typed of ['7.9e-4', '0.00079', '7.92E-4', ' 0.000792 '])
    assert.equal(judge(decay, typed, lab).verdict, 'right', typed);
  assert.equal(judge(decay, '0.0007', lab).verdict, 'wrong');
  const rms = EXERCISES.find((e) => e.id === 'rmsnorm-by-hand');
  assert.equal(judge(rms, '1.069', lab).verdict, 'right');
  assert.equal(judge(rms, '1.07', lab).verdict, 'right');
  assert.equal(judge(rms, '1.08', lab).verdict, 'wrong');
});
