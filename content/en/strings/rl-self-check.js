// Text of <rl-self-check> (the exercises' own text is in self-check/exercises.js) in English.
export default {
  title: 'Check yourself',
  hint: 'Answer, then press Check or Enter. A hint comes after a wrong answer, the worked solution after two.',
  exerciseLabel: (n, total) => `Question ${n} of ${total}`,
  yourAnswer: 'Your answer',
  check: 'Check',
  right: 'Right.',
  wrong: 'Not quite.',
  wrongAgain: 'Not quite. Here is the worked solution.',
  emptyNumber: 'Type an answer first: a number such as 1.069 or 7.9e-4.',
  emptyChoice: 'Pick an answer first (arrow keys move between them).',
  invalid: (problem) => `That answer cannot be read: ${problem}. Type a number such as 1.069 or 7.9e-4.`,
  tooLarge: 'the number is beyond what a 64-bit float can hold',
  hintLabel: 'Hint:',
  solutionLabel: 'Solution:',
};
