// <rl-model-table> and <rl-config-inspector> in the served chapter: the drawing of each model's block against
// the chapter's facts written out here, the hand-over to the placement lab (it runs that placement alone), and
// config.json pasted right, broken and empty. Screenshots of both widgets in both languages.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { WIDGET_TAGS } from '../../web/components/registry.js';
import { LANGUAGES } from '../../web/languages.js';
import { CONFIGS } from '../fixtures/model-configs.mjs';
import { EN, ZH, eventually, expectText, openReady, screenshotWidget, textOf } from './widget-helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

const ready = (view, tag) =>
  view.page.waitForFunction((t) => document.querySelector(t)?.hasAttribute('data-ready'), tag);

// Each model's block, from the chapter: the norms on the diagram (besides the final one), QK-Norm, soft-caps.
const BLOCKS = {
  transformer: {
    label: 'Original Transformer (Post-LN)',
    placement: 'post',
    norms: ['attn-trunk', 'mlp-trunk'],
    final: false,
    qk: false,
    caps: [],
  },
  gpt2: { label: 'GPT-2', placement: 'pre', norms: ['attn-before', 'mlp-before'], final: true, qk: false, caps: [] },
  llama3: {
    label: 'Llama-3.1-8B',
    placement: 'pre',
    norms: ['attn-before', 'mlp-before'],
    final: true,
    qk: false,
    caps: [],
  },
  qwen3: { label: 'Qwen3-8B', placement: 'pre', norms: ['attn-before', 'mlp-before'], final: true, qk: true, caps: [] },
  'deepseek-v3': {
    label: 'DeepSeek-V3',
    placement: 'pre',
    norms: ['attn-before', 'mlp-before', 'extra', 'extra'],
    final: true,
    qk: false,
    caps: [],
  },
  olmo2: { label: 'OLMo 2', placement: 'olmo2', norms: ['attn-after', 'mlp-after'], final: true, qk: true, caps: [] },
  gemma2: {
    label: 'Gemma 2',
    placement: 'sandwich',
    norms: ['attn-before', 'attn-after', 'mlp-before', 'mlp-after'],
    final: true,
    qk: false,
    caps: ['attn', 'final'],
  },
  gemma3: {
    label: 'Gemma 3',
    placement: 'sandwich',
    norms: ['attn-before', 'attn-after', 'mlp-before', 'mlp-after'],
    final: true,
    qk: true,
    caps: [],
  },
  gemma4: {
    label: 'Gemma 4 31B',
    placement: 'sandwich',
    norms: ['attn-before', 'attn-after', 'mlp-before', 'mlp-after', 'extra'],
    final: true,
    qk: true,
    caps: ['final'],
  },
};

test("model table: each model's block is drawn with its norms where the chapter puts them", async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-model-table');
  await ready(view, 'rl-model-table');
  for (const [id, block] of Object.entries(BLOCKS)) {
    await widget.getByLabel(block.label, { exact: true }).check();
    const svg = widget.locator('.model-diagram svg');
    await eventually(
      () => svg.getAttribute('data-placement'),
      (p) => p === block.placement,
      `${id}: placement`,
    );
    const norms = await svg.locator('[data-norm]').evaluateAll((els) => els.map((el) => el.getAttribute('data-norm')));
    const expected = [...block.norms, ...(block.qk ? ['qk'] : []), ...(block.final ? ['final'] : [])];
    assert.deepEqual(norms.sort(), expected.sort(), id);
    const caps = await svg
      .locator('[data-softcap]')
      .evaluateAll((els) => els.map((el) => el.getAttribute('data-softcap')));
    assert.deepEqual(caps, block.caps, `${id}: soft-caps`);
    assert.match(await svg.getAttribute('aria-label'), new RegExp(`placement ${block.placement}`));
  }
  await widget.getByLabel('Gemma 2', { exact: true }).check();
  assert.match(
    await textOf(widget.locator('.model-facts')),
    /RMSNorm \(1 \+ w\).*sandwich.*4.*attention scores at 50, output logits at 30/,
  );
  // the keyboard: arrows move between the radio buttons
  await widget.getByLabel('Gemma 2', { exact: true }).focus();
  await view.page.keyboard.press('ArrowRight');
  await eventually(
    () => widget.locator('.model-diagram').getAttribute('data-model'),
    (m) => m === 'gemma3',
    'arrow key picks the next model',
  );
  // the choice travels in the link
  await eventually(
    () => view.page.url(),
    (url) => /models\.model=gemma3/.test(url),
    'the model in the link',
  );
  const again = await lab.open(`${EN}?models.model=olmo2`);
  await again.page.waitForFunction(() => document.querySelector('rl-model-table')?.hasAttribute('data-ready'));
  assert.equal(await again.page.locator('rl-model-table .model-diagram svg').getAttribute('data-placement'), 'olmo2');
  assert.ok(await again.page.locator('rl-model-table').getByLabel('OLMo 2', { exact: true }).isChecked());
  again.assertClean();
  await again.close();
  for (const id of ['transformer', 'deepseek-v3']) {
    await widget.getByLabel(BLOCKS[id].label, { exact: true }).check();
    await screenshotWidget(view, widget, `model-table-${id}-en`);
  }
  await widget.getByLabel('Gemma 3', { exact: true }).check();
  await screenshotWidget(view, widget, 'model-table-en');
  view.assertClean();
  await view.close();
});

/** The smallest text of a widget's block diagram as it appears on screen: font size times the SVG's scale. */
const smallestDiagramText = (widget) =>
  widget.evaluate((el) => {
    const diagram = el.shadowRoot.querySelector('.block-diagram');
    const scale = diagram.getScreenCTM().a;
    return Math.min(
      ...[...diagram.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale),
    );
  });

test('block diagrams are readable on a desktop screen: no text under 12 px in the model table, config inspector and forward reader', async () => {
  const view = await openReady(lab, EN, { viewport: { width: 1280, height: 800 } });
  const reader = view.page.locator('rl-forward-reader');
  await ready(view, 'rl-forward-reader');
  const radio = reader.locator('input[name="answer"]').first();
  await radio.check();
  await radio.press('Enter');
  await radio.press('Enter'); // twice wrong or once right: the answer, and the diagram, are shown
  const sizes = {}; // of every widget that draws a block diagram (the registry's order)
  for (const tag of WIDGET_TAGS) {
    await ready(view, tag);
    const widget = view.page.locator(tag).first();
    if (await widget.evaluate((el) => el.shadowRoot.querySelector('.block-diagram') !== null))
      sizes[tag] = await smallestDiagramText(widget);
  }
  console.log(`smallest diagram text at 1280 px: ${JSON.stringify(sizes)}`);
  assert.equal(Object.keys(sizes).length, 3, 'the model table, the config inspector and the forward reader draw one');
  for (const [tag, size] of Object.entries(sizes)) assert.ok(size >= 12, `${tag}: ${size.toFixed(1)} px`);
  view.assertClean();
  await view.close();
});

/**
 * The labels of a widget's block diagram that leave their box, and the labels and boxes that leave the drawing
 * (its viewBox, which is what a screen or a printer shows): measured by the browser, in its fonts (getBBox).
 */
const outsideTheirBoxes = (widget) =>
  widget.evaluate((el) => {
    const diagram = el.shadowRoot.querySelector('.block-diagram');
    const [x, y, width, height] = diagram.getAttribute('viewBox').split(' ').map(Number);
    const drawing = { x, y, width, height };
    const within = (a, b) =>
      a.x >= b.x - 0.5 &&
      a.y >= b.y - 0.5 &&
      a.x + a.width <= b.x + b.width + 0.5 &&
      a.y + a.height <= b.y + b.height + 0.5;
    const found = [];
    for (const label of diagram.querySelectorAll('text')) {
      const box = label.parentNode.localName === 'g' && label.parentNode.querySelector(':scope > rect');
      if (box && !within(label.getBBox(), box.getBBox())) found.push(`"${label.textContent}" leaves its box`);
      if (!within(label.getBBox(), drawing)) found.push(`"${label.textContent}" leaves the drawing`);
    }
    for (const box of diagram.querySelectorAll('rect'))
      if (!within(box.getBBox(), drawing)) found.push(`a box at x = ${box.getAttribute('x')} leaves the drawing`);
    return found;
  });

test('block diagrams: every label within its box and every box within the drawing, for every model and config, in every language', async () => {
  for (const { code, page } of LANGUAGES) {
    const view = await openReady(lab, page);
    const table = view.page.locator('rl-model-table');
    await ready(view, 'rl-model-table');
    const radios = table.locator('input[name="model"]');
    const count = await radios.count();
    assert.ok(count >= 8, `${code}: ${count} models`);
    for (let i = 0; i < count; i++) {
      await radios.nth(i).check();
      const id = await radios.nth(i).getAttribute('value');
      await eventually(
        () => table.locator('.model-diagram').getAttribute('data-model'),
        (m) => m === id,
        `${code}: ${id} drawn`,
      );
      assert.deepEqual(await outsideTheirBoxes(table), [], `${code}: model table, ${id}`);
    }
    const inspector = view.page.locator('rl-config-inspector');
    await ready(view, 'rl-config-inspector');
    for (const [name, config] of Object.entries(CONFIGS)) {
      await inspector.evaluate((el) => el.shadowRoot.querySelector('.block-diagram')?.setAttribute('data-seen', ''));
      await inspector.locator('#field-config-json').fill(JSON.stringify(config));
      await inspector.locator('.block-diagram:not([data-seen])').waitFor();
      assert.deepEqual(await outsideTheirBoxes(inspector), [], `${code}: config inspector, ${name}`);
    }
    view.assertClean();
    await view.close();
  }
});

test('model table: "Run this block" sets the placement lab to the model\'s placement alone and runs it', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-model-table');
  const placementLab = view.page.locator('rl-placement-lab');
  await ready(view, 'rl-model-table');
  await widget.getByLabel('OLMo 2', { exact: true }).check();
  await widget.getByRole('button', { name: 'Run this block in the placement lab' }).click();
  await view.page.waitForFunction(
    () => {
      const el = document.querySelector('rl-placement-lab');
      return el.dataset.status === 'done' && el.shadowRoot.querySelectorAll('li[data-readout]').length === 1;
    },
    null,
    { timeout: 60000 },
  );
  const readouts = await placementLab
    .locator('li[data-readout]')
    .evaluateAll((els) => els.map((el) => el.dataset.readout));
  assert.deepEqual(readouts, ['olmo2']);
  for (const [name, checked] of [
    ['post', false],
    ['pre', false],
    ['sandwich', false],
    ['olmo2', true],
  ]) {
    assert.equal(await placementLab.locator(`input[name="placement-${name}"]`).isChecked(), checked, name);
  }
  await eventually(
    () => view.page.url(),
    (url) => /place\.olmo2=true/.test(url) && /place\.post=false/.test(url),
    "the placement lab's settings in the link",
  );
  // where the scroll comes to rest: the widgets above may still change height while it runs
  await eventually(
    () => placementLab.evaluate((el) => el.getBoundingClientRect().top),
    (labTop) => labTop >= 0 && labTop < 300,
    'scrolled to the placement lab (its top within 300 px of the top of the window)',
  );
  assert.match(
    await textOf(widget.locator('.handover')),
    /now runs OLMo 2's placement alone, with RMSNorm and QK-Norm as this block has them/,
  );
  // the block's norm kind and QK-Norm go with it (the lab's own defaults are LayerNorm without QK-Norm)
  assert.equal(await placementLab.getByLabel('RMSNorm', { exact: true }).isChecked(), true, 'RMSNorm');
  assert.equal(await placementLab.getByLabel(/^QK-Norm/).isChecked(), true, 'QK-Norm');
  await eventually(
    () => view.page.url(),
    (url) => /place\.norm=rmsnorm/.test(url) && /place\.qkNorm=true/.test(url),
    'the norm kind and QK-Norm in the link',
  );
  view.assertClean();
  await view.close();
});

test('model table: arriving by a #model-table link, a scripted click (no pointer, no key) hands over and the focus follows', async () => {
  // A screen reader's default action and element.click() send a click with no pointerdown or keydown before it:
  // the page's hold on the linked section must not pull the reader back above the lab.
  const view = await openReady(lab, `${EN}#model-table`);
  await ready(view, 'rl-placement-lab');
  const widget = view.page.locator('rl-model-table');
  await widget.getByLabel('Gemma 2', { exact: true }).evaluate((input) => input.click());
  await widget
    .getByRole('button', { name: 'Run this block in the placement lab' })
    .evaluate((button) => button.click());
  await view.page.waitForFunction(
    () => {
      const el = document.querySelector('rl-placement-lab');
      return el.dataset.status === 'done' && el.shadowRoot.querySelectorAll('li[data-readout]').length === 1;
    },
    null,
    { timeout: 60000 },
  );
  await view.page.waitForTimeout(500); // what the hold would do after the run: nothing
  const placementLab = view.page.locator('rl-placement-lab');
  assert.deepEqual(
    await placementLab.locator('li[data-readout]').evaluateAll((els) => els.map((el) => el.dataset.readout)),
    ['sandwich'],
  );
  assert.equal(await placementLab.getByLabel('RMSNorm (1 + w)', { exact: true }).isChecked(), true, "Gemma's norm");
  assert.equal(await placementLab.getByLabel(/^QK-Norm/).isChecked(), false, 'no QK-Norm in Gemma 2');
  // where the scroll comes to rest: the widgets above may still change height while it runs
  await eventually(
    () => placementLab.evaluate((el) => el.getBoundingClientRect().top),
    (labTop) => labTop >= 0 && labTop < 300,
    'scrolled to the placement lab (its top within 300 px of the top of the window)',
  );
  // the focus moves with the reader: on the placement the lab now runs, so the next Tab stays in the lab
  assert.equal(
    await view.page.evaluate(() => {
      const host = document.activeElement;
      return host?.tagName === 'RL-PLACEMENT-LAB' ? host.shadowRoot.activeElement?.name : host?.tagName;
    }),
    'placement-sandwich',
  );
  view.assertClean();
  await view.close();
});

test('model table embedded alone runs the block at a small size in its own worker', async () => {
  const view = await lab.open('embed-example.html');
  await view.page.evaluate(() => {
    const el = document.createElement('rl-model-table');
    el.setAttribute('url-state', 'off');
    document.body.append(el);
  });
  await ready(view, 'rl-model-table');
  const widget = view.page.locator('rl-model-table');
  await widget.getByLabel('Gemma 3', { exact: true }).check();
  await widget.getByRole('button', { name: 'Run this block at a small size' }).click();
  await view.page.waitForFunction(() => document.querySelector('rl-model-table').dataset.status === 'done', null, {
    timeout: 60000,
  });
  assert.equal(await widget.locator('.stack-result').getAttribute('data-placement'), 'sandwich');
  const values = await widget
    .locator('.stack-result data')
    .evaluateAll((els) => els.map((el) => Number(el.getAttribute('value'))));
  assert.equal(values.length, 8);
  assert.ok(
    values.every((v) => Number.isFinite(v) && v > 0),
    String(values),
  );
  // the same run through the API in the page: the same gradient norms
  const direct = await view.page.evaluate(async () => {
    const { load } = await import('./lib/residual-lab.js');
    const api = await load();
    return Array.from(
      api.experiments.initGradients({
        placements: ['sandwich'],
        norm: 'rmsnorm_gemma',
        qkNorm: true,
        nLayers: 8,
        dModel: 64,
        depths: [8],
      }).perLayer.sandwich.mlpDown,
    );
  });
  direct.forEach((v, i) => assert.ok(Math.abs(values[i] - v) <= 1e-6 * v, `layer ${i + 1}: ${values[i]} vs ${v}`));
  await screenshotWidget(view, widget, 'model-table-alone-en');
  // another model: the run of Gemma 3's block leaves the screen
  await widget.getByLabel('Llama-3.1-8B', { exact: true }).check();
  assert.equal(await widget.locator('.stack-result').isHidden(), true);
  view.assertClean();
  await view.close();
});

test('config inspector: a pasted config is counted, a broken one named, an empty one asked for', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-config-inspector');
  await ready(view, 'rl-config-inspector');
  const field = widget.getByLabel('config.json', { exact: true });
  const normParams = () => widget.locator('[data-norm-params]').getAttribute('data-norm-params');
  // the default is Llama-3.1-8B: 65 RMSNorms of 4096, 266,240 parameters
  assert.equal(await normParams(), '266240');
  assert.match(await textOf(widget.locator('.share')), /266,240 of the model's 8,030,261,248 parameters .*: 0\.0033%/);
  // Qwen3-8B, pasted: 36 x (2 x 4096 + 2 x 128) + 4096 = 308,224; QK-Norm from the code
  await field.fill(
    JSON.stringify({
      model_type: 'qwen3',
      hidden_size: 4096,
      num_hidden_layers: 36,
      head_dim: 128,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      intermediate_size: 12288,
      vocab_size: 151936,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
    }),
  );
  await eventually(normParams, (v) => v === '308224', 'Qwen3-8B norm parameters');
  assert.match(await textOf(widget.locator('.qk-norm')), /^Yes/);
  assert.equal(await widget.locator('tr[data-field="rms_norm_eps"] td').nth(1).innerText(), '1e-6');
  assert.equal(await widget.locator('.config-layout svg [data-norm="qk"]').count(), 1);
  // broken JSON: the message names the character; the last good count stays, marked stale
  await field.fill('{"model_type": "qwen3", "hidden_size": }');
  await expectText(
    widget.locator('.field-error'),
    'This is not valid JSON: “}” cannot start a value (at character 40).',
    'broken JSON',
  );
  assert.equal(await normParams(), '308224');
  assert.equal(await widget.getAttribute('data-stale'), '');
  // an absurd size
  await field.fill('{"model_type": "llama", "hidden_size": 1e12}');
  await expectText(
    widget.locator('.field-error'),
    'hidden_size: is 1000000000000; at most 1048576 is plausible.',
    'absurd size',
  );
  // empty
  await field.fill('');
  await expectText(widget.locator('.field-error'), 'The field is empty: paste a config.json.', 'empty');
  // an example button (keyboard) brings a good config back
  await widget.getByRole('button', { name: 'Gemma-2-9B' }).focus();
  await view.page.keyboard.press('Enter');
  await eventually(normParams, (v) => v === '605696', 'Gemma-2-9B: 42 x 4 x 3584 + 3584');
  assert.equal(await widget.getAttribute('data-stale'), null);
  assert.deepEqual(
    await widget.locator('.config-layout svg [data-softcap]').evaluateAll((els) => els.map((el) => el.dataset.softcap)),
    ['attn', 'final'],
  );
  // an unknown architecture: fields, no count
  await field.fill('{"model_type": "phi3", "hidden_size": 3072, "rms_norm_eps": 1e-5}');
  await eventually(
    () => textOf(widget.locator('.share')),
    (t) => /cannot be counted/.test(t),
    'unknown architecture',
  );
  assert.equal(await widget.locator('tr[data-field]').count(), 2);
  await widget.getByRole('button', { name: 'Gemma-3-4B' }).click();
  await eventually(normParams, (v) => v === '368128', 'Gemma-3-4B: 34 x (4 x 2560 + 2 x 256) + 2560');
  await eventually(
    () => new URL(view.page.url()).searchParams.get('cfg.config'),
    (c) => c !== null && JSON.parse(c).text_config?.num_hidden_layers === 34,
    'the pasted config in the link',
  );
  await screenshotWidget(view, widget, 'config-inspector-en');
  view.assertClean();
  await view.close();
});

test('config inspector: a link with a broken config opens on its error, with no "last valid" frame over nothing', async () => {
  const view = await openReady(lab, `${EN}?cfg.config=%7Bbad`);
  const widget = view.page.locator('rl-config-inspector');
  await ready(view, 'rl-config-inspector');
  assert.equal(await widget.getByLabel('config.json', { exact: true }).inputValue(), '{bad');
  await expectText(
    widget.locator('.field-error'),
    'This is not valid JSON: a key in double quotes is expected (at character 2).',
    'the error at the field',
  );
  assert.equal(await widget.getAttribute('data-stale'), null, 'nothing on screen to mark stale');
  assert.equal(await widget.locator('.results-region').isHidden(), true, 'no results read from nothing');
  await widget.getByRole('button', { name: 'Gemma-2-9B' }).click();
  await eventually(
    () => widget.locator('[data-norm-params]').getAttribute('data-norm-params'),
    (v) => v === '605696',
    'an example read',
  );
  assert.equal(await widget.locator('.results-region').isVisible(), true);
  assert.match(await textOf(widget.locator('.architecture')), /^Architecture: gemma2\b/);
  view.assertClean();
  await view.close();
});

test('config inspector: a QK-Norm field is read where the architecture is unknown, and noted where the code decides', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-config-inspector');
  await ready(view, 'rl-config-inspector');
  const field = widget.getByLabel('config.json', { exact: true });
  // StableLM: not in the inspector's table; its config switches QK-Norm with qk_layernorm
  await field.fill(
    JSON.stringify({
      model_type: 'stablelm',
      hidden_size: 2560,
      num_hidden_layers: 32,
      layer_norm_eps: 1e-5,
      qk_layernorm: true,
    }),
  );
  await eventually(
    () => textOf(widget.locator('.qk-norm')),
    (t) => t.startsWith('The config says so itself: qk_layernorm is true.'),
    'the flag read',
  );
  assert.equal(await widget.locator('tr[data-field="qk_layernorm"] td').nth(1).innerText(), 'true');
  // Llama with use_qk_norm: true: LlamaAttention has no q_norm whatever the config says
  await field.fill(
    JSON.stringify({
      ...JSON.parse(await field.inputValue()),
      model_type: 'llama',
      use_qk_norm: true,
      num_attention_heads: 32,
      intermediate_size: 8,
      vocab_size: 10,
    }),
  );
  await eventually(
    () => textOf(widget.locator('.qk-norm')),
    (t) => /^No:/.test(t),
    'the code decides',
  );
  assert.match(
    await textOf(widget.locator('.notes')),
    /The config sets use_qk_norm: true, but this architecture's code does not read that field: it has no q_norm and k_norm regardless/,
  );
  view.assertClean();
  await view.close();
});

test('zh: both widgets speak Chinese; screenshots', async () => {
  const view = await openReady(lab, ZH);
  await ready(view, 'rl-model-table');
  await ready(view, 'rl-config-inspector');
  const table = view.page.locator('rl-model-table');
  await table.getByLabel('Gemma 2', { exact: true }).check();
  await expectText(table.getByRole('button', { name: '在放置实验中运行' }), '在放置实验中运行', 'zh run button');
  assert.match(await textOf(table.locator('.model-facts')), /三明治/);
  assert.equal(await textOf(table.locator('.model-diagram figcaption')), '结构图：Gemma 2', 'full-width colon');
  await screenshotWidget(view, table, 'model-table-zh');
  const inspector = view.page.locator('rl-config-inspector');
  await inspector.getByLabel('config.json', { exact: true }).fill('{"model_type": "llama", "num_hidden_layers": -1}');
  await expectText(inspector.locator('.field-error'), 'num_hidden_layers：至少应为 1，现在是 -1。', 'zh error');
  await inspector.getByRole('button', { name: 'DeepSeek-V3' }).click();
  await eventually(
    () => inspector.locator('[data-norm-params]').getAttribute('data-norm-params'),
    (v) => v === '1006592',
    'DeepSeek-V3: 61 x (2 x 7168 + 1536 + 512) + 7168',
  );
  assert.match(await textOf(inspector.locator('.architecture')), /^架构：deepseek_v3/, 'full-width colon, no space');
  assert.deepEqual(
    await inspector
      .locator('.config-layout svg [data-norm="extra"] text')
      .evaluateAll((els) => els.map((el) => el.textContent)),
    ['q_a_layernorm', 'kv_a_layernorm'],
  );
  await screenshotWidget(view, inspector, 'config-inspector-zh');
  view.assertClean();
  await view.close();
});
