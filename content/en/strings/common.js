// The messages every widget shares, in English.
export default {
  // how a quoted value too long to show whole says its length (a number already formatted)
  quotedLength: (n) => ` (${n} characters)`,
  // what joins two sentences of a remark
  sentenceGap: ' ',
  // a bar's hover text (shared/bar-chart.js): its series, its category, its value (formatted)
  barTitle: (series, category, value) => `${series}, ${category}: ${value}`,
  seriesQuantity: (series, quantity) => `${series}: ${quantity}`, // a line chart's CSV header
  loading: 'Loading the WASM kernels…',
  loadFailed: (detail) => `The lab could not be loaded (${detail}). Reload the page to try again.`,
  urlProblem: (key, shown, why) =>
    `The link's setting ${key}=${shown} is not usable${why ? ` (${why})` : ''}; the default is shown instead.`,
  attributeProblem: (name, shown, why) => `The attribute ${name}=${shown} is not usable (${why}); it is ignored.`,
  unknownSetting: (key, shown, names) =>
    `The link's setting ${key}=${shown} is not a setting of this widget (its settings: ${names.join(', ')}); it is ignored.`,
  staleRun: 'Last valid result: the latest run failed (see above), so this is from an earlier run.',
  staleSettings: 'Earlier result: it belongs to the settings before your change; run again to see the new ones.',
  expected: {
    number: (min, max) => `expected a number from ${min} to ${max}`,
    integer: (min, max) => `expected a whole number from ${min} to ${max}`,
    choice: (choices) => `expected one of ${choices.join(', ')}`,
    boolean: 'expected true or false',
    text: (max) => `expected at most ${max} characters`,
  },
  noSimd: 'Running without WebAssembly SIMD (this browser lacks it): the same results, computed more slowly.',
  noWasm:
    'This interactive figure needs WebAssembly, which this browser does not provide or has turned off. The text around it explains what the figure shows.',
  stale: 'Last valid result: it does not match the inputs until they are corrected.',
  share: {
    title: 'Share and export',
    copyLink: 'Copy link',
    copyIframe: 'Copy iframe code',
    copyTag: 'Copy tag code',
    copiedLink: 'Link copied: it opens this page with these settings.',
    linkTooLong: (length, limit) =>
      `These settings are too long for a link (${length} characters, more than ${limit}), so nothing was copied: a link opening this page would show the defaults instead.`,
    copiedIframe: 'iframe code copied: paste it into any page or LMS that allows iframes.',
    copiedTag: 'Tag code copied: paste it into a page that loads components/index.js.',
    copyRefused:
      'The browser did not allow copying: the text is selected in the field below; press Ctrl+C (⌘C) to copy it.',
    fallbackLabel: 'Text to copy',
    saveAs: (format, label) => `Save ${label} as ${format}`,
    table: (n, heading) => (heading ? `Table ${n}: ${heading}` : `Table ${n}`),
    saved: (fileName) => `Saved ${fileName}.`,
    saveFailed: (detail) => `The file could not be made (${detail}).`,
  },
  // the summary of a details element that shows an error's code and the API's own (English) message
  errorDetail: 'Technical detail',
  at: (position) => ` (at character ${position + 1})`,
  unexplained: (message) => message,
  // the kernels' reasons for refusing an input (error.reason.kind, wasm/src/api/), numbers already formatted
  reasons: {
    zero_rms: () => 'x is all zeros and ε is 0, so its RMS is 0 and x / RMS is undefined; use ε > 0',
    mean_square_underflow: (r) =>
      `the mean square of x underflows float32 to 0 (the largest |xᵢ| is ${r.value}) and ε is 0, so x / RMS is undefined; scale x up or use ε > 0`,
    sum_overflow: (r) => `the sum of squares of x overflows float32 (the largest |xᵢ| is ${r.value}); scale x down`,
    eps_overflow: (r) =>
      `ε (${r.value}) plus the mean square of x overflows float32, so every output would be 0; use a smaller ε`,
    constant_x_eps_zero: (r) =>
      `x is constant: its variance (${r.value}) is only rounding noise (at most ${r.limit} for these values) and ε is 0, so (x − μ) / σ is undefined; use ε > 0`,
    variance_underflow: (r) =>
      `x is not constant, but its variance (${r.value}) is too small for float32: the squares of its deviations round to 0, so the variance computed is 0 and, with ε = 0, (x − μ) / σ is undefined; scale x up or use ε > 0`,
    constant_x_eps_small: (r) =>
      `x is constant: its variance (${r.value}) is only rounding noise (at most ${r.limit} for these values) and ε is smaller than that, so (x − μ) / σ would be rounding error divided by its own size; use ε ≥ ${r.limit}`,
  },
  chartNotComputed: 'Not computed yet: on the web page this chart fills in when the widget runs.',
  errors: {
    // codes of the lab's parseVector (wasm/src/core/parse_vector.hpp)
    empty: 'the field is empty: type numbers such as 2, -1, 3, 0',
    unexpected_char: (ch) => `"${ch}" is not part of a number`,
    invalid_number: 'this is not a number',
    missing_value: 'a number is missing here',
    not_finite: 'NaN and infinity are not allowed',
    out_of_range: 'this number is too large for float32',
    underflow: 'this number is too small for float32: it would be 0',
    too_many_values: 'too many numbers (the limit is 1,048,576)',
    trailing_text: 'there is text after the closing ]',
    nested_bracket: 'only one pair of brackets is allowed',
    unmatched_bracket: 'this ] has no matching [',
    unclosed_bracket: 'the [ is never closed',
    invalid_utf8: 'the text is not valid UTF-8',
    // the widgets' own checks
    size_mismatch: 'its length does not match x',
    negative_eps: 'ε must be 0 or positive',
    tiny_eps: 'ε must be 0 or at least 1.2e-38 (a smaller one is not a normal float32)',
    not_integer: 'must be a whole number',
    bad_cap: 'the cap must be a number greater than 0',
    too_many_numbers: 'too many numbers: at most 8192',
    not_a_number: 'not a number',
    not_in_range: (min, max) => {
      if (min === -Infinity || min == null) return `must be at most ${max}`;
      if (max === Infinity || max == null) return `must be at least ${min}`;
      return `must be between ${min} and ${max}`;
    },
    too_long: 'too long for the lab to read',
    // the rest of the API's codes (types/residual-lab.d.ts ErrorCode); the API's English message is the detail
    invalid_input: 'the input is not of a kind this step takes',
    invalid_options: 'a setting is outside what it accepts',
    invalid_config: 'a value in the model’s configuration is not valid',
    out_of_memory: 'this needs more memory than the page may use',
    disposed: 'the model was closed before this step',
    unavailable: 'this build of the lab cannot do that',
    invalid_json: 'the text is not valid JSON',
    missing_file: 'a file the model needs is not among those given',
    missing_shard: 'a weights file that the index lists is not among the files given: give every shard',
    invalid_index: 'the weights index (model.safetensors.index.json) does not match the shards',
    missing_tensor: 'a weight the model needs is not in the weights files',
    shape_mismatch: 'a weight’s shape differs from the one config.json implies',
    unsupported_dtype: 'a weight is stored in a number format the lab does not read (it reads BF16, F16 and F32)',
    unsupported_architecture: 'the lab cannot run this model family',
    unsupported_config: 'the configuration asks for something the lab cannot run',
    invalid_tokenizer: 'tokenizer.json could not be read',
    no_tokenizer: 'text needs tokenizer.json among the files; without it, type token ids',
    safetensors_truncated: 'a weights file ends before its data does, as an unfinished download would',
    safetensors_header_too_large: 'a weights file announces a header too large for a safetensors file',
    not_safetensors: 'a weights file is not in the safetensors format',
    safetensors_bad_tensor: 'a weights file describes one of its tensors wrongly',
    safetensors_bad_offsets: 'a weights file’s tensors overlap, leave gaps or run past its end',
    invalid_gguf: 'a .gguf file is damaged or not a GGUF file llama.cpp writes',
    invalid_gguf_key: 'a .gguf file lacks a setting the model needs, or stores it as the wrong kind of value',
    truncated_header: 'a .gguf file ends inside its header, as an unfinished download would',
    header_too_long: 'a .gguf file’s header is far longer than any model’s',
    invalid_tensor_count: 'a .gguf file’s header counts a different number of tensors than it describes',
    misaligned_tensor: 'a tensor in a .gguf file does not start on the file’s alignment',
    offset_out_of_file: 'a tensor in a .gguf file starts past the end of the file',
    truncated_tensor: 'a .gguf file ends before one of its tensors does, as an unfinished download would',
    file_changed: 'a file changed on disk after it was opened: give the files again',
    not_found: 'the host has no such model, revision or file',
    gated:
      'this model needs a Hugging Face access token (it is gated or private): give one, or download its files yourself and open them',
    blocked: 'the browser blocked the host (the page’s Content-Security-Policy or CORS)',
    storage_full: 'not enough storage for the model',
    offline: 'the host could not be reached: is this computer offline?',
    hash_mismatch: 'a downloaded file did not match its SHA-256 and was deleted: fetch again',
    cancelled: 'the download was cancelled: fetch again to continue it',
    bad_response: 'the host did not answer as a Hugging Face host does',
    http_error: 'the host answered with an error',
    rate_limited: 'the host is refusing requests for now (too many): fetch again later to continue',
    unknown_method: 'the background worker does not know this call',
    invalid_request: 'the background worker was sent a malformed request',
    worker_failed: 'the background worker stopped unexpectedly',
  },
};
