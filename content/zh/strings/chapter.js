// The words the Chinese chapter (../chapter.md) uses around every widget, which tests/js/content.test.mjs holds
// it to: the line before a widget starts with `tryIt`, the widget's fallback sentence with `figure`.
export default {
  tryIt: '动手试试',
  figure: '交互图：',
};
