// The messages every widget shares, in Chinese.
export default {
  // how a quoted value too long to show whole says its length (a number already formatted)
  quotedLength: (n) => `（共 ${n} 个字符）`,
  // what joins two sentences of a remark (none between Chinese sentences)
  sentenceGap: '',
  loading: '正在加载 WASM 内核……',
  loadFailed: (detail) => `实验室加载失败（${detail}），请刷新页面重试。`,
  urlProblem: (key, shown) => `链接里的设置 ${key}=${shown} 无法使用，已改用默认值。`,
  attributeProblem: (name, shown, why) => `属性 ${name}=${shown} 无法使用（${why}），已忽略。`,
  unknownSetting: (key, shown, names) =>
    `链接里的 ${key}=${shown} 不是这个组件的设置（它的设置有：${names.join('、')}），已忽略。`,
  staleRun: '上一次有效的结果：最近一次运行失败（见下方），这是更早一次运行的结果。',
  expected: {
    number: (min, max) => `应为 ${min} 到 ${max} 之间的数`,
    integer: (min, max) => `应为 ${min} 到 ${max} 之间的整数`,
    choice: (choices) => `应为 ${choices.join('、')} 之一`,
    boolean: '应为 true 或 false',
    text: (max) => `最多 ${max} 个字符`,
  },
  noSimd: '当前浏览器不支持 WebAssembly SIMD，正在使用不带 SIMD 的版本：结果相同，只是计算较慢。',
  noWasm: '这个交互图需要 WebAssembly，但当前浏览器不支持或已将其关闭。周围的正文说明了这个图展示的内容。',
  stale: '上一次有效的结果：输入改正之前，它与当前输入不符。',
  share: {
    title: '分享与导出',
    copyLink: '复制链接',
    copyIframe: '复制 iframe 代码',
    copyTag: '复制标签代码',
    copiedLink: '链接已复制：打开它会看到本页和现在的设置。',
    linkTooLong: (length, limit) =>
      `这些设置太长，放不进链接（${length} 个字符，超过 ${limit}），所以没有复制：这样的链接打开后只会显示默认设置。`,
    copiedIframe: 'iframe 代码已复制：可粘贴到任何允许 iframe 的网页或课程平台。',
    copiedTag: '标签代码已复制：粘贴到加载了 components/index.js 的网页即可。',
    copyRefused: '浏览器不允许复制：文字已在下面的框里选中，请按 Ctrl+C（⌘C）复制。',
    fallbackLabel: '要复制的文字',
    saveAs: (format, label) => `把“${label}”保存为 ${format}`,
    table: (n) => `表 ${n}`,
    saved: (fileName) => `已保存 ${fileName}。`,
    saveFailed: (detail) => `文件生成失败（${detail}）。`,
  },
  at: (position) => `（第 ${position + 1} 个字符）`,
  unexplained: (message) => `输入有误：${message}`,
  chartNotComputed: '尚未计算：在网页上运行这个组件后，图表才会画出来。',
  errors: {
    empty: '输入为空：请输入数字，例如 2, -1, 3, 0',
    unexpected_char: (ch) => `“${ch}”不是数字的一部分`,
    invalid_number: '这里不是一个合法的数字',
    missing_value: '这里缺了一个数字',
    not_finite: '不允许 NaN 或无穷大',
    out_of_range: '这个数超出了 float32 的范围',
    too_many_values: '数字太多（上限 1,048,576 个）',
    trailing_text: '右方括号 ] 之后还有多余的内容',
    nested_bracket: '只允许一对方括号',
    unmatched_bracket: '这个 ] 没有对应的 [',
    unclosed_bracket: '[ 没有闭合',
    invalid_utf8: '文本不是合法的 UTF-8',
    size_mismatch: '长度与 x 不一致',
    negative_eps: 'ε 必须大于或等于 0',
    bad_cap: '上限 c 必须是大于 0 的数',
    too_many_numbers: '数字太多：最多 8192 个',
    not_a_number: '不是数字',
    not_in_range: (min, max) => {
      if (min === -Infinity || min == null) return `不能大于 ${max}`;
      if (max === Infinity || max == null) return `不能小于 ${min}`;
      return `应在 ${min} 到 ${max} 之间`;
    },
    too_long: '太长了',
  },
};
