// Text of the page around the chapter (scripts/pages.mjs writes it, web/shell/page.js labels with it), in Chinese.
export default {
  skip: '跳到正文',
  contents: '目录',
  contentsLabel: '本章目录',
  theme: '深色主题',
  languages: '语言',
  languageMenu: (name) => `语言：${name}`,
  fileNote: (offline) =>
    `这个页面是直接从文件打开的，浏览器不会这样运行其中的交互组件。请打开单文件版 <a href="${offline}">${offline}</a>（从磁盘打开也能用），或用 npm run serve 启动本地服务器。`,
  footer: '代码以 MIT 许可发布，正文以 CC BY 4.0 许可发布。每个交互组件都在你的浏览器里用 WebAssembly 现场计算。',
  // names of the blocks that scroll sideways on a narrow screen: as the build writes them, and once the shell
  // has measured that they do scroll
  formula: '公式',
  table: '表格',
  code: '代码',
  formulaScrolls: '公式（可横向滚动）',
  codeScrolls: '代码（可横向滚动）',
  computingForPrint: '正在计算所有图表，算完后打开打印……',
};
