// What each decoder-engine widget will show, per page language, shown until its real widget arrives (none left:
// all six have their own files).
export const PLACEHOLDER_STRINGS = {
  en: {
    badge: 'Coming with the decoder engine',
    arrives: 'This live experiment arrives with the decoder engine (a later issue). It will compute, in your browser:',
    widgets: {
    },
  },
  zh: {
    badge: '随解码器引擎推出',
    arrives: '这个实时实验将随解码器引擎一起推出（后续的 issue）。届时它会在你的浏览器里现场计算：',
    widgets: {
    },
  },
};
