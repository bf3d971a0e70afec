// The README's option reference is generated from lab.describe(): it fails here when the two disagree
// (run `node scripts/options-doc.mjs --write` after changing an option table).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WIDGET_TAGS } from '../../web/components/registry.js';
import { ATTRIBUTES_BEGIN, ATTRIBUTES_END, readmeBlock, renderAttributesFromBuild, renderFromBuild } from '../../scripts/options-doc.mjs';

test("the README's option reference is the one lab.describe() renders", async () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = readmeBlock(readme);
  assert.ok(block, 'README.md has no option reference block');
  assert.equal(block, await renderFromBuild());
});

test('the reference shows the bounds and defaults of the tables, such as the decoder\'s nLayers', async () => {
  const rendered = await renderFromBuild();
  assert.match(rendered, /\| `nLayers` \| integer \| `4` \| integer ≥ 1, ≤ 1024 \| decoder layers \|/);
  assert.match(rendered, /\| `init.scheme` \| choice \| `'normal'` \| `'normal'` `'xavier'` \|/);
  assert.match(rendered, /\*\*experiments.warmup\(options\)\*\*/);
  assert.match(rendered, /\| `dFF` \| integer \| `null` \| integer ≥ 1, ≤ 65536, or null \|/);
});

test("the README's attribute reference is the one the widgets' state tables render", async () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = readmeBlock(readme, ATTRIBUTES_BEGIN, ATTRIBUTES_END);
  assert.ok(block, 'README.md has no attribute reference block');
  assert.equal(block, await renderAttributesFromBuild());
});

test('the attribute reference names each row by its attribute, with the bounds the widget narrowed', async () => {
  const rendered = await renderAttributesFromBuild();
  assert.match(rendered, /\*\*`<rl-gradient-flow>`\*\*\n\n\| attribute .*\n.*\n\| `layers` \| integer \| `32` \| integer ≥ 1, ≤ 64 \|/);
  assert.match(rendered, /\| `zero-qk` \| boolean \| `false` \| true, false \|/);
  assert.match(rendered, /\| `max-depth` \| integer \| `64` \| integer ≥ 16, ≤ 128 \|/);
  // every widget, in the registry's order
  const headings = [...rendered.matchAll(/^\*\*`<(rl-[a-z-]+)>`\*\*$/gm)].map((m) => m[1]);
  assert.deepEqual(headings, WIDGET_TAGS);
});
