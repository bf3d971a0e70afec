// The size limits of the code in web/ and wasm/: no file over FILE_LINES lines and no function over FUNCTION_LINES
// (a JavaScript function counted from its first line to its last, nested functions included; a C++ function from
// its body's opening brace to its closing one). web/models/ is generated (npm run train-toys) and not counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { eachNode, parseModule } from './js-ast.mjs';

const root = join(import.meta.dirname, '../..');
const FILE_LINES = 400;
const FUNCTION_LINES = 120;
const GENERATED = ['web/models/'];
const SOURCE = /\.(m?js|cpp|hpp|h|css|html|svg)$/;

/** Line numbers of character offsets in `text`. */
function lineOf(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** Every function of a JavaScript module as { name, line, lines }, read by acorn (through Prettier's parser). */
export async function jsFunctions(text) {
  const line = lineOf(text);
  const found = [];
  eachNode(await parseModule(text), (node, ancestors) => {
    if (!/Function/.test(node.type)) return;
    // a function takes the name of what holds it: a method's key, a variable's id, a property's key
    const holder = [...ancestors].reverse().find((above) => above.key?.name ?? above.id?.name);
    const name = node.id?.name ?? holder?.key?.name ?? holder?.id?.name ?? '(anonymous)';
    const start = line(node.start);
    found.push({ name, line: start, lines: line(node.end) - start + 1 });
  });
  return found;
}

/**
 * Every outermost function body of a C++ file as { name, line, lines }: a `{` whose head (the text since the
 * last `;`, `{` or `}`) ends in a parameter list (with const, noexcept, override or a trailing return type) and
 * is no if, for, while, switch or catch. Comments, strings and character literals are blanked first. Lambdas and
 * blocks inside a function count as part of it.
 */
export function cppFunctions(text) {
  const code = text.replace(
    /\/\/[^\n]*|\/\*[\s\S]*?\*\/|R"(\w*)\([\s\S]*?\)\1"|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g,
    (m) => m.replace(/[^\n]/g, ' '),
  );
  const found = [];
  const open = [];
  let headStart = 0;
  let line = 1;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '\n') line++;
    else if (c === '{') {
      const head = code.slice(headStart, i).trim();
      const body =
        !open.some((block) => block.body) &&
        /\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(->\s*[\w:<>,\s*&]+)?$/.test(head) &&
        !/^(if|for|while|switch|catch)\b/.test(head);
      const name = body ? (head.match(/([\w:~]+)\s*\([^()]*(\([^()]*\)[^()]*)*\)[^()]*$/)?.[1] ?? head) : '';
      open.push({ body, line, name });
      headStart = i + 1;
    } else if (c === '}') {
      const block = open.pop();
      if (block?.body) found.push({ name: block.name, line: block.line, lines: line - block.line + 1 });
      headStart = i + 1;
    } else if (c === ';') headStart = i + 1;
  }
  return found;
}

function sourceFiles() {
  return ['web', 'wasm']
    .flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
        .map((entry) => relative(root, join(entry.parentPath ?? entry.path, entry.name))),
    )
    .filter((file) => !GENERATED.some((folder) => file.startsWith(folder)))
    .sort();
}

const linesOf = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

test(`no file in web/ or wasm/ over ${FILE_LINES} lines, no function over ${FUNCTION_LINES}`, async () => {
  const files = sourceFiles();
  assert.ok(files.length > 200, `files read: ${files.length}`);
  const over = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const lines = linesOf(text);
    if (lines > FILE_LINES) over.push(`${file}: ${lines} lines`);
    const functions = /\.m?js$/.test(file)
      ? await jsFunctions(text)
      : /\.(cpp|hpp|h)$/.test(file)
        ? cppFunctions(text)
        : [];
    for (const fn of functions)
      if (fn.lines > FUNCTION_LINES) over.push(`${file}:${fn.line}: ${fn.name}, ${fn.lines} lines`);
  }
  assert.deepEqual(over, [], 'over the limits');
});

test('the counts are right: a function, its nested ones, a method, a C++ body and the blocks that are none', async () => {
  const body = (n) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
  const js = await jsFunctions(
    `export function outer() {\n${body(5)}\n  const inner = () => {\n${body(3)}\n  };\n}\nclass A {\n  m() {\n${body(2)}\n  }\n}\n`,
  );
  assert.deepEqual(js, [
    { name: 'outer', line: 1, lines: 12 },
    { name: 'inner', line: 7, lines: 5 },
    { name: 'm', line: 14, lines: 4 },
  ]);
  const cpp = cppFunctions(
    [
      'namespace rl {',
      'struct S {',
      '  int f(int a) const {',
      '    if (a) {',
      '      return [](int b) { return b; }(a);',
      '    }',
      '    return 0; // a } in a comment',
      '  }',
      '};',
      'Status Model::forward(std::span<const int> t) {',
      '  const char* s = "{";',
      '  for (int i = 0; i < 3; i++) {',
      '  }',
      '}',
      '}  // namespace rl',
    ].join('\n'),
  );
  assert.deepEqual(cpp, [
    { name: 'f', line: 3, lines: 6 },
    { name: 'Model::forward', line: 10, lines: 5 },
  ]);
});
