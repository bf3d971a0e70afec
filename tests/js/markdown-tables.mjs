// Markdown tables as the tests read them: cell by cell, since the formatter pads a table's columns (no test
// matches a row's text as written).

/** The rows of every table in `text` (header rows included, delimiter rows not), each an array of trimmed cells. */
export function tableRows(text) {
  return text
    .split('\n')
    .filter((line) => /^\|.*\|\s*$/.test(line) && !/^\|(\s*:?-+:?\s*\|)+\s*$/.test(line))
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

/** The cells after the first `key.length` of the one row whose first cells are `key`; undefined when none is. */
export function rowAfter(text, ...key) {
  const rows = tableRows(text).filter((cells) => key.every((cell, i) => cells[i] === cell));
  return rows.length === 1 ? rows[0].slice(key.length) : undefined;
}
