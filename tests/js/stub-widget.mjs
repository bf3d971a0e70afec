// A stub widget added to a copy of the repository the way docs/extending.md's "Adding a widget" says: its folder
// and module (on LabElement, one state row and its control), its strings in each language, one registry row, the
// tag in each chapter, its folder on the map and its row from widget to kernel in docs/architecture.md.
// widget-stub.test.mjs builds it into the site; language-stub.test.mjs runs the whole JS suite with it.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const TAG = 'rl-stub-probe';
export const FOLDER = 'stub-probe'; // the tag without rl-: its folder and its module's name
export const TITLE = 'Stub probe: a widget added by a test';

/** Inserts `text` before the first match of `pattern` in the file at `path`; fails when there is none. */
export function insertBefore(path, pattern, text) {
  const source = readFileSync(path, 'utf8');
  const at = source.search(pattern);
  assert.ok(at >= 0, `${path}: ${pattern}`);
  writeFileSync(path, `${source.slice(0, at)}${text}${source.slice(at)}`);
}

/** The module the doc prescribes: LabElement, a state row, its control, a results region. */
const MODULE = `import { LabElement } from '../shared/lab-element.js';
import { h } from '../shared/dom.js';
import { numberSelect } from '../shared/fields.js';

export class RlStubProbe extends LabElement {
  static tag = '${TAG}';
  static stateRows = [{ name: 'x', type: 'integer', default: 1, min: 1, max: 3 }];

  build() {
    this.readout = h('output');
    const x = this.control('x', { field: numberSelect, options: [1, 2, 3] });
    this.body.append(x.root, this.resultsRegion(this.readout));
  }

  update() {
    this.readout.textContent = String(this.state.x);
  }
}
`;

/** Adds the stub widget to the repository at `copy`, with its strings and its tag in each language of `codes`. */
export async function addStubWidget(copy, codes) {
  // 1. The folder and the module.
  mkdirSync(join(copy, `web/components/${FOLDER}`));
  writeFileSync(join(copy, `web/components/${FOLDER}/${FOLDER}.js`), MODULE);
  for (const code of codes) {
    // 2. Its strings: the file named after the tag, its title and its control's label (the row's name).
    writeFileSync(
      join(copy, `content/${code}/strings/${TAG}.js`),
      `export default { title: '${TITLE}', x: 'x (${code})' };\n`,
    );
    // 4. The tag in the chapter, in the row's section, before its self-check, with the lead-in and fallback.
    const { tryIt, figure } = (await import(pathToFileURL(join(copy, `content/${code}/strings/chapter.js`)))).default;
    insertBefore(
      join(copy, `content/${code}/chapter.md`),
      /^<rl-self-check set="summary">/m,
      `${tryIt}: pick x.\n\n<${TAG}>${figure}the number x that the reader picks, shown as text.</${TAG}>\n\n`,
    );
  }
  // 3. The row, after the last section's widgets.
  insertBefore(
    join(copy, 'web/components/registry.js'),
    /^ {2}\{\n {4}tag: 'rl-self-check'/m,
    `  { tag: '${TAG}', stateKey: 'stub', section: 'summary', worker: null, frameHeight: 400, example: { x: '2' } },\n`,
  );
  // 5. The map's folder and the row from widget to kernel (docs/architecture.md), in the registry's order.
  const architecture = join(copy, 'docs/architecture.md');
  insertBefore(architecture, /self-check\/ \(with the exercise table/, `${FOLDER}/ (a test's stub), `);
  insertBefore(
    architecture,
    /^\| `rl-self-check` /m,
    `| \`${TAG}\` | \`lab.describe\` | \`options_bindings.cpp\` \`describe_options\` | \`api/all_options.cpp\` \`all_tables\` | — |\n`,
  );
}
