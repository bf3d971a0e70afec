// The words the English chapter (../chapter.md) uses around every widget, which tests/js/content.test.mjs holds
// it to: the line before a widget starts with `tryIt`, the widget's fallback sentence with `figure`.
export default {
  tryIt: 'Try it',
  figure: 'Interactive figure: ',
};
