// Text of <rl-self-check> (the exercises' own text is in self-check/exercises.js) in Chinese.
export default {
  title: '自我检测',
  hint: '作答后点“检查”或按回车。答错一次会给提示，答错两次会给出完整解答。',
  exerciseLabel: (n, total) => `第 ${n} 题（共 ${total} 题）`,
  yourAnswer: '你的答案',
  check: '检查',
  right: '答对了。',
  wrong: '不太对。',
  wrongAgain: '还是不对，下面是完整解答。',
  emptyNumber: '请先输入答案：一个数，例如 1.069 或 7.9e-4。',
  emptyChoice: '请先选一个答案（方向键可以切换）。',
  invalid: (problem) => `无法读取这个答案：${problem}。请输入一个数，例如 1.069 或 7.9e-4。`,
  tooLarge: '这个数超出了 64 位浮点数能表示的范围',
  hintLabel: '提示：',
  solutionLabel: '解答：',
};
