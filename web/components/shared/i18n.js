// Language of a widget (from the nearest `lang` attribute) and the messages every widget shares.
// Widget-specific strings live in components/strings/<tag-name>.js, one table per language.

export function languageOf(element) {
  const tagged = element.closest('[lang]');
  const lang = tagged ? tagged.getAttribute('lang') : document.documentElement.getAttribute('lang');
  return /^zh/i.test(lang ?? '') ? 'zh' : 'en';
}

// A value from the URL is quoted up to this many characters: a hostile link must not fill the page.
export const QUOTE_LIMIT = 40;

/** `raw` in quotes, cut to QUOTE_LIMIT characters (whole code points) with "…"; `long` says so and how long. */
function quoted(raw, long) {
  const length = raw.length - (raw.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
  if (length <= QUOTE_LIMIT) return JSON.stringify(raw);
  const prefix = Array.from(raw.slice(0, 2 * QUOTE_LIMIT)).slice(0, QUOTE_LIMIT).join('');
  return `${JSON.stringify(`${prefix}…`)}${long(length.toLocaleString('en-US'))}`;
}

const COMMON = {
  en: {
    loading: 'Loading the WASM kernels…',
    loadFailed: (detail) => `The lab could not be loaded (${detail}). Reload the page to try again.`,
    urlProblem: (key, raw) => `The link's setting ${key}=${quoted(raw, (n) => ` (${n} characters)`)} is not usable; the default is shown instead.`,
    attributeProblem: (name, raw, why) => `The attribute ${name}=${quoted(raw, (n) => ` (${n} characters)`)} is not usable (${why}); it is ignored.`,
    unknownSetting: (key, raw, names) => `The link's setting ${key}=${quoted(raw, (n) => ` (${n} characters)`)} is not a setting of this widget (its settings: ${names.join(', ')}); it is ignored.`,
    staleRun: 'Last valid result: the latest run failed (see below), so this is from an earlier run.',
    expected: {
      number: (min, max) => `expected a number from ${min} to ${max}`,
      integer: (min, max) => `expected a whole number from ${min} to ${max}`,
      choice: (choices) => `expected one of ${choices.join(', ')}`,
      boolean: 'expected true or false',
      text: (max) => `expected at most ${max} characters`,
    },
    noSimd: 'Running without WebAssembly SIMD (this browser lacks it): the same results, computed more slowly.',
    noWasm: 'This interactive figure needs WebAssembly, which this browser does not provide or has turned off. The text around it explains what the figure shows.',
    stale: 'Last valid result: it does not match the inputs until they are corrected.',
    share: {
      title: 'Share and export',
      copyLink: 'Copy link',
      copyIframe: 'Copy iframe code',
      copyTag: 'Copy tag code',
      copiedLink: 'Link copied: it opens this page with these settings.',
      linkTooLong: (length, limit) => `These settings are too long for a link (${length} characters, more than ${limit}), so nothing was copied: a link opening this page would show the defaults instead.`,
      copiedIframe: 'iframe code copied: paste it into any page or LMS that allows iframes.',
      copiedTag: 'Tag code copied: paste it into a page that loads components/index.js.',
      copyRefused: 'The browser did not allow copying: the text is selected in the field below; press Ctrl+C (⌘C) to copy it.',
      fallbackLabel: 'Text to copy',
      saveAs: (format, label) => `Save ${label} as ${format}`,
      table: (n) => `Table ${n}`,
      saved: (fileName) => `Saved ${fileName}.`,
      saveFailed: (detail) => `The file could not be made (${detail}).`,
    },
    at: (position) => ` (at character ${position + 1})`,
    unexplained: (message) => message,
    chartNotComputed: 'Not computed yet: on the web page this chart fills in when the widget runs.',
    errors: {
      // codes of the lab's parseVector (wasm/src/api/parse_vector.hpp)
      empty: 'the field is empty: type numbers such as 2, -1, 3, 0',
      unexpected_char: (ch) => `"${ch}" is not part of a number`,
      invalid_number: 'this is not a number',
      missing_value: 'a number is missing here',
      not_finite: 'NaN and infinity are not allowed',
      out_of_range: 'this number is too large for float32',
      too_many_values: 'too many numbers (the limit is 1,048,576)',
      trailing_text: 'there is text after the closing ]',
      nested_bracket: 'only one pair of brackets is allowed',
      unmatched_bracket: 'this ] has no matching [',
      unclosed_bracket: 'the [ is never closed',
      invalid_utf8: 'the text is not valid UTF-8',
      // the widgets' own checks
      size_mismatch: 'its length does not match x',
      negative_eps: 'ε must be 0 or positive',
      bad_cap: 'the cap must be a number greater than 0',
      too_many_numbers: 'too many numbers: at most 8192',
      not_a_number: 'not a number',
      not_in_range: (min, max) => {
        if (min === -Infinity || min == null) return `must be at most ${max}`;
        if (max === Infinity || max == null) return `must be at least ${min}`;
        return `must be between ${min} and ${max}`;
      },
      too_long: 'too long',
    },
  },
  zh: {
    loading: '正在加载 WASM 内核……',
    loadFailed: (detail) => `实验室加载失败（${detail}），请刷新页面重试。`,
    urlProblem: (key, raw) => `链接里的设置 ${key}=${quoted(raw, (n) => `（共 ${n} 个字符）`)} 无法使用，已改用默认值。`,
    attributeProblem: (name, raw, why) => `属性 ${name}=${quoted(raw, (n) => `（共 ${n} 个字符）`)} 无法使用（${why}），已忽略。`,
    unknownSetting: (key, raw, names) => `链接里的 ${key}=${quoted(raw, (n) => `（共 ${n} 个字符）`)} 不是这个组件的设置（它的设置有：${names.join('、')}），已忽略。`,
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
      linkTooLong: (length, limit) => `这些设置太长，放不进链接（${length} 个字符，超过 ${limit}），所以没有复制：这样的链接打开后只会显示默认设置。`,
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
  },
};

export function common(lang) {
  return COMMON[lang] ?? COMMON.en;
}

/**
 * A readable message, in the page language, for an Error thrown by the lab or by a widget's own checks.
 * Errors carry a stable `code` (and `position` for typed text); unknown codes fall back to the English message.
 */
export function describeError(error, lang, text = '') {
  const strings = common(lang);
  const template = strings.errors[error?.code];
  const position = Number.isInteger(error?.position) ? error.position : undefined;
  let message;
  if (typeof template === 'function') {
    const ch = position !== undefined ? Array.from(text.slice(position))[0] ?? '' : '';
    message = error.code === 'not_in_range' ? template(error.min, error.max) : template(ch);
  } else {
    message = template ?? strings.unexplained(error?.message ?? String(error));
  }
  return position !== undefined ? message + strings.at(position) : message;
}

/** An Error with a code, for checks the widget makes itself (sizes, ranges), translated by describeError. */
export function widgetError(code, details = {}) {
  return Object.assign(new Error(code), { code, ...details });
}
