// web/components/registry.js is the one list of widgets: every widget folder has a row and every row its folder and module
// (the class's tag the row's), which the build's widget-modules.js imports and no other file does, the chapter's sections and the
// frame heights documented or written in examples/ are the registry's, and no other file lists widgets of its own
// (a list that must be kept in step by hand is how a new widget goes unchecked).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import {
  PAGE_STYLES,
  WIDGET_CLASS,
  checkWidgetTags,
  markWidgets,
  widgetModulesSource,
  withWidgetList,
} from '../../scripts/pages.mjs';
import { asWritten, BLOCKS, documentBlock, renderFrameHeights } from '../../scripts/options-doc.mjs';
import { WIDGETS, WIDGET_TAGS, widgetName, widgetModule, widgetOf } from '../../web/components/registry.js';
import { SECTION_IDS } from './chapter-sections.mjs';

const root = join(import.meta.dirname, '../..');
const read = (path) => readFileSync(join(root, path), 'utf8');
const components = join(root, 'web/components');
const SHARED = 'shared'; // what two widgets or more use

test("every widget folder in web/components has a registry row, and the build imports every row's module", () => {
  const folders = readdirSync(components, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== SHARED)
    .map((entry) => entry.name)
    .sort();
  assert.deepEqual(
    WIDGETS.map(widgetName).sort(),
    folders,
    `the folders of web/components, ${SHARED}/ apart, are the rows' folders`,
  );
  for (const widget of WIDGETS) {
    const module = widgetModule(widget);
    const tags = [...read(`web/components/${module}`).matchAll(/static tag = '([^']+)'/g)].map((m) => m[1]);
    assert.deepEqual(tags, [widget.tag], `${module} defines <${widget.tag}>`);
  }
  assert.equal(new Set(WIDGET_TAGS).size, WIDGETS.length, 'one row per tag');
  // components/widget-modules.js, which components/index.js imports: the rows' modules, in the registry's order.
  const imported = [...widgetModulesSource().matchAll(/^import \* as (\w+) from '\.\/([a-z-]+\/[a-z-]+\.js)';$/gm)];
  assert.deepEqual(
    imported.map((m) => m[2]),
    WIDGETS.map(widgetModule),
  );
  assert.match(widgetModulesSource(), new RegExp(`WIDGET_MODULES = \\[${imported.map((m) => m[1]).join(', ')}\\]`));
  assert.match(read('web/components/index.js'), /^import \{ WIDGET_MODULES \} from '\.\/widget-modules\.js';$/m);
});

test("a widget's folder holds what it alone uses: no module imports from another widget's folder, its CSS is its own", () => {
  const folderOf = new Map(WIDGETS.map((widget) => [widgetName(widget), widget]));
  for (const entry of readdirSync(components, { recursive: true })) {
    const path = entry.split('\\').join('/');
    const [folder] = path.split('/');
    if (!path.includes('/') || !folderOf.has(folder)) continue;
    const file = `web/components/${path}`;
    if (path.endsWith('.js')) {
      for (const [, target] of read(file).matchAll(/(?:from|import\()\s*'([^']+)'/g)) {
        if (!target.startsWith('.')) continue;
        const resolved = posix.normalize(posix.join(posix.dirname(path), target));
        const other = resolved.split('/')[0];
        assert.ok(
          !folderOf.has(other) || other === folder,
          `${file} imports ${target} from <${folderOf.get(other)?.tag}>'s folder: what two widgets use goes to ${SHARED}/`,
        );
      }
    }
    if (path.endsWith('.css')) {
      const name = posix.basename(path);
      assert.ok(
        read(`web/components/${widgetModule(folderOf.get(folder))}`).includes(`new URL('./${name}', import.meta.url)`),
        `${file} is adopted by its widget's module`,
      );
    }
  }
});

test(`a module in ${SHARED}/ serves two users or more (widget folders, or files of web/ outside the widgets)`, () => {
  const shared = `web/components/${SHARED}/`;
  const files = readdirSync(join(root, 'web'), { recursive: true })
    .map((entry) => `web/${entry.split('\\').join('/')}`)
    .filter((path) => path.endsWith('.js'));
  const importsOf = (file) =>
    [...read(file).matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)].map((m) =>
      posix.normalize(posix.join(posix.dirname(file), m[1])),
    );
  // a widget's modules count as one user, its folder; a shared module reached through another counts for both
  const userOf = (file) => (/^web\/components\/[^/]+\//.test(file) ? file.split('/')[2] : file);
  const users = new Map(files.filter((file) => file.startsWith(shared)).map((file) => [file, new Set()]));
  for (const file of files.filter((path) => !path.startsWith(shared))) {
    const reached = new Set();
    for (const stack = [file]; stack.length;)
      for (const target of importsOf(stack.pop()))
        if (users.has(target) && !reached.has(target)) reached.add(target) && stack.push(target);
    for (const target of reached) users.get(target).add(userOf(file));
  }
  for (const [file, of] of users)
    assert.ok(of.size >= 2, `${file} has ${of.size} user (${[...of].join(', ')}): it belongs in that widget's folder`);
});

test('every row has its own stateKey, the prefix of its settings in the page address, which only the row holds', () => {
  const keys = WIDGETS.map((widget) => widget.stateKey);
  // letters only: a second widget of a tag on the page is `${stateKey}2`, which no other key can then be
  for (const { tag, stateKey } of WIDGETS) assert.match(String(stateKey), /^[a-z]+$/, `${tag}: stateKey`);
  assert.equal(new Set(keys).size, keys.length, `the keys are unique: ${keys.join(', ')}`);
  for (const widget of WIDGETS)
    assert.doesNotMatch(
      read(`web/components/${widgetModule(widget)}`),
      /\bstateKey\b/,
      `${widgetModule(widget)}: its key is the row's`,
    );
});

test("an experiment widget makes its settings' fields through this.control, which names them from the state row", () => {
  // a field called by hand spells the row's name, label, value and change itself (fields.js fieldOfRow lists the
  // fields this.control makes; a text field, read on the widget's own terms, is made by hand)
  const byHand = /\b(rangeField|numberSelect|checkbox|radioGroup)\(\{/;
  const experiments = WIDGETS.filter((widget) =>
    /extends ExperimentElement\b/.test(read(`web/components/${widgetModule(widget)}`)),
  );
  assert.ok(experiments.length >= 6, `experiment widgets: ${experiments.length}`);
  for (const widget of experiments) {
    const folder = `web/components/${widgetName(widget)}`;
    for (const file of readdirSync(join(root, folder)).filter((name) => name.endsWith('.js')))
      assert.doesNotMatch(read(`${folder}/${file}`), byHand, `${folder}/${file}: through this.control`);
  }
});

test('every row is complete: a chapter section, a worker kind, a frame height, an example', () => {
  for (const { tag, section, worker, frameHeight, example } of WIDGETS) {
    assert.ok(
      section === null || SECTION_IDS.includes(section),
      `${tag}: section ${section} is a section of the chapter`,
    );
    assert.ok([null, 'in-view', 'on-run'].includes(worker), `${tag}: worker ${worker}`);
    assert.ok(
      Number.isInteger(frameHeight) && frameHeight >= 300 && frameHeight <= 4000,
      `${tag}: frame height ${frameHeight}`,
    );
    assert.ok(
      Object.keys(example).length > 0 && Object.values(example).every((v) => typeof v === 'string'),
      `${tag}: example attributes are text`,
    );
  }
  // The experiment widgets are the ones with a worker (their base class starts it).
  for (const widget of WIDGETS) {
    const { tag, worker } = widget;
    assert.equal(
      /extends ExperimentElement\b/.test(read(`web/components/${widgetModule(widget)}`)),
      worker !== null,
      `${tag}: an ExperimentElement exactly when it has a worker`,
    );
  }
});

test('no file but the registry imports a widget module', () => {
  const files = execFileSync('git', ['ls-files', 'web', 'scripts', 'bench', 'tests', 'examples'], {
    cwd: root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .filter(
      (path) => /\.(m?js|html)$/.test(path) && path !== 'web/components/registry.js' && existsSync(join(root, path)),
    );
  const imports = files.flatMap((path) =>
    [...read(path).matchAll(/(?:from\s*|import\s*\(\s*|import\s+)['"`][^'"`]*\/(rl-[a-z-]+\.js)['"`]/g)].map(
      (m) => `${path}: ${m[1]}`,
    ),
  );
  assert.deepEqual(imports, []);
});

test('the chapter build refuses a tag that is no widget of the registry', () => {
  assert.doesNotThrow(() => checkWidgetTags('<rl-vector-lab x="1">text</rl-vector-lab> &lt;rl-nothing&gt;', 'page'));
  assert.throws(
    () => checkWidgetTags('<p>a</p>\n<rl-vector-labb>text</rl-vector-labb>', 'content/en.md'),
    /content\/en\.md: <rl-vector-labb> is no widget of web\/components\/registry\.js/,
  );
});

test("the documented frame heights are the registry's", async () => {
  const [file, begin, end] = BLOCKS.frameHeights;
  assert.equal(
    documentBlock(read(file), begin, end),
    await asWritten('frameHeights', renderFrameHeights()),
    `${file}: run node scripts/options-doc.mjs --write`,
  );
});

test('examples/ frame each widget at its frame height, and use only registered tags', () => {
  const files = execFileSync('git', ['ls-files', 'examples'], { cwd: root, encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((path) => /\.(html|ipynb)$/.test(path));
  let frames = 0;
  for (const path of files) {
    const text = read(path).replaceAll('\\"', '"');
    for (const m of text.matchAll(/<iframe\b[^>]*?src="[^"]*embed\.html\?widget=([a-z-]+)[^>]*>/g)) {
      const widget = widgetOf(`rl-${m[1]}`);
      assert.ok(widget, `${path}: embed.html?widget=${m[1]} is no widget`);
      assert.equal(
        m[0].match(/\bheight="(\d+)"/)?.[1],
        String(widget.frameHeight),
        `${path}: the frame of ${m[1]} is its frame height`,
      );
      frames += 1;
    }
    for (const m of text.matchAll(/IFrame\([^)]*height=(\d+)[^)]*widget="([a-z-]+)"/g)) {
      assert.equal(
        m[1],
        String(widgetOf(`rl-${m[2]}`)?.frameHeight),
        `${path}: IFrame(...) of ${m[2]} at its frame height`,
      );
    }
    for (const m of text.matchAll(/<(rl-[a-z0-9-]+)/g)) assert.ok(widgetOf(m[1]), `${path}: <${m[1]}> is no widget`);
  }
  assert.ok(frames >= 2, `${frames} frames of embed.html found in examples/`);
});

test('the chapter build marks every widget for page.css, and writes the list of embed-example.html', () => {
  const marked = markWidgets('<rl-vector-lab x="1">text</rl-vector-lab>\n<rl-self-check>q</rl-self-check> <p>');
  assert.equal(
    marked,
    `<rl-vector-lab class="${WIDGET_CLASS}" x="1">text</rl-vector-lab>\n<rl-self-check class="${WIDGET_CLASS}">q</rl-self-check> <p>`,
  );
  const css = PAGE_STYLES.map((file) => read(`web/${file}`)).join('\n');
  assert.equal(
    css.match(new RegExp(`^\\s*\\.${WIDGET_CLASS} \\{`, 'gm'))?.length,
    2,
    'the page stylesheets: the spacing rule and the print rule',
  );
  const page = withWidgetList(read('web/embed-example.html'));
  const listed = [...page.matchAll(/<li><code>&lt;(rl-[a-z-]+)&gt;<\/code> ([^<]+)<\/li>/g)];
  assert.deepEqual(
    listed.map((m) => m[1]),
    WIDGET_TAGS,
    'embed-example.html lists every widget',
  );
  assert.equal(
    listed[0][2],
    'Vector lab: RMSNorm and LayerNorm by hand',
    "each with its title, in the page's language",
  );
  assert.ok(!/widget-list:/.test(page), 'the marker is replaced');
});

/**
 * Lines of the tracked source files (scripts, tests, the web code, examples) where three or more widgets are
 * named: on one line, or one per line on consecutive lines (in code, lines that start with a quoted name: the
 * items of an array or the keys of an object). A list of widgets written by hand.
 */
function handWrittenLists() {
  const names = WIDGETS.map(widgetName);
  const mention = (name) => new RegExp(`(^|[^a-z-])(rl-)?${name}(?![a-z-])`);
  const item = (name) => new RegExp(`^\\s*['"\`](rl-)?${name}['"\`]`);
  const files = execFileSync('git', ['ls-files', 'scripts', 'bench', 'tests', 'web', 'examples'], {
    cwd: root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .filter((path) => /\.(m?js|html|css|ipynb)$/.test(path) && existsSync(join(root, path)))
    .filter((path) => path !== 'web/components/registry.js');
  const found = [];
  for (const path of files) {
    const inCode = /\.m?js$/.test(path);
    let run = [];
    read(path)
      .split('\n')
      .forEach((line, i) => {
        const named = names.filter((name) => mention(name).test(line));
        if (named.length >= 3) found.push(`${path}:${i + 1}: ${named.join(', ')}`);
        const items = inCode ? names.filter((name) => item(name).test(line)) : named;
        run = items.length ? [...run, ...items] : [];
        if (items.length && named.length < 3 && new Set(run).size >= 3)
          found.push(`${path}:${i + 1}: ${[...new Set(run)].join(', ')}`);
      });
  }
  return found;
}

test('no other file lists widgets by hand', () => {
  assert.deepEqual(handWrittenLists(), []);
});
