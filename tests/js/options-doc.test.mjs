// The option reference (docs/options.md), the option types (types/options.d.ts) and the attribute reference
// (docs/embedding.md) are generated: it fails here when one disagrees with the tables
// (run `node scripts/options-doc.mjs --write` after changing an option table or a widget's state table).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WIDGET_TAGS } from '../../web/components/registry.js';
import {
  asWritten,
  BLOCKS,
  documentBlock,
  OPTION_TYPES,
  renderAttributesFromBuild,
  renderFromBuild,
  renderOptionTypesFromBuild,
} from '../../scripts/options-doc.mjs';

const generated = (key) => {
  const [file, begin, end] = BLOCKS[key];
  return documentBlock(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), begin, end);
};

test("docs/options.md's option reference is the one lab.describe() renders", async () => {
  const block = generated('options');
  assert.ok(block, 'docs/options.md has no option reference block');
  assert.equal(block, await asWritten('options', await renderFromBuild()));
});

test('types/options.d.ts is the one lab.describe() renders', async () => {
  assert.equal(
    readFileSync(new URL(`../../${OPTION_TYPES}`, import.meta.url), 'utf8'),
    await renderOptionTypesFromBuild(),
  );
});

test("the option types carry each row's type, choices, nullability and nesting", async () => {
  const types = await renderOptionTypesFromBuild();
  assert.match(types, /export interface DecoderConfig \{\n[^]*?\n  nLayers\?: number;\n/);
  assert.match(types, /\n  norm\?: 'layernorm' \| 'rmsnorm' \| 'rmsnorm_gemma' \| 'dyt' \| 'none';\n/);
  assert.match(types, /\n  dFF\?: number \| null;\n/);
  assert.match(types, /\n  init\?: \{\n[^]*?\n    scheme\?: 'normal' \| 'xavier';\n/);
  assert.match(
    types,
    /export interface InitGradientsOptions \{[^]*?\n  placements\?: readonly \('pre' \| 'post'[^)]*\)\[\];\n/,
  );
  assert.match(types, /export interface KernelOptions \{\n  rmsNorm: RmsNormOptions;\n/);
});

test("the reference shows the bounds and defaults of the tables, such as the decoder's nLayers", async () => {
  const rendered = await renderFromBuild();
  assert.match(rendered, /\| `nLayers` \| integer \| `4` \| integer ≥ 1, ≤ 1024 \| decoder layers \|/);
  assert.match(rendered, /\| `init.scheme` \| choice \| `'normal'` \| `'normal'` `'xavier'` \|/);
  assert.match(rendered, /\*\*experiments.warmup\(options\)\*\*/);
  assert.match(rendered, /\| `dFF` \| integer \| `null` \| integer ≥ 1, ≤ 65536, or null \|/);
});

test("docs/embedding.md's attribute reference is the one the widgets' state tables render", async () => {
  const block = generated('attributes');
  assert.ok(block, 'docs/embedding.md has no attribute reference block');
  assert.equal(block, await asWritten('attributes', await renderAttributesFromBuild()));
});

test('the attribute reference names each row by its attribute, with the bounds the widget narrowed', async () => {
  const rendered = await renderAttributesFromBuild();
  assert.match(
    rendered,
    /\*\*`<rl-gradient-flow>`\*\*\n\n\| attribute .*\n.*\n\| `layers` \| integer \| `32` \| integer ≥ 1, ≤ 64 \|/,
  );
  assert.match(rendered, /\| `zero-qk` \| boolean \| `false` \| true, false \|/);
  assert.match(rendered, /\| `max-depth` \| integer \| `64` \| integer ≥ 16, ≤ 128 \|/);
  // every widget, in the registry's order
  const headings = [...rendered.matchAll(/^\*\*`<(rl-[a-z-]+)>`\*\*$/gm)].map((m) => m[1]);
  assert.deepEqual(headings, WIDGET_TAGS);
});
