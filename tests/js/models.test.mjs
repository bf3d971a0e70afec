// The model table of <rl-model-table> (web/lib/models.js) against the chapter's table "What the models chose" in
// every language, and against the engine: each model's block is a valid config of the lab's decoder, and the engine builds
// the norms the block diagram draws.
//   node --test tests/js/models.test.mjs     after `node scripts/build.mjs` (uses dist/lib/)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from '../../dist/lib/residual-lab.js';
import { findRow, resolveOptions } from '../../web/lib/options.js';
import { MODELS, decoderConfig } from '../../web/lib/models.js';
import { blockLayout } from '../../web/components/shared/block-diagram.js';
import { CODES, perLanguage } from './per-language.mjs';

const lab = await load();

function contentRows(lang) {
  const text = readFileSync(new URL(`../../content/${lang}/chapter.md`, import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('{#model-table}'), text.indexOf('{#init-and-depth}'));
  return section
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
    .slice(1)
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

// each language's words in the chapter's table: the original Transformer's name, and a placement's -> its id
const TABLE_WORDS = perLanguage("the chapter's model table", {
  en: {
    originalTransformer: 'Original Transformer',
    placements: [
      ['Post-Norm', 'post'],
      ['Pre-Norm', 'pre'],
      ['sandwich', 'sandwich'],
      ['after the sublayer output', 'olmo2'],
    ],
  },
  zh: {
    originalTransformer: '原始 Transformer',
    placements: [
      ['Post-Norm', 'post'],
      ['Pre-Norm', 'pre'],
      ['三明治', 'sandwich'],
      ['子层输出之后', 'olmo2'],
    ],
  },
});

for (const [lang, words] of TABLE_WORDS) {
  test(`${lang}: every model of the widget says what the chapter's table says`, () => {
    const rows = contentRows(lang);
    assert.equal(rows.length, MODELS.length);
    MODELS.forEach((model, k) => {
      const [name, norm, placement, norms, other] = rows[k];
      const what = `${model.id} (${name})`;
      assert.ok(name.includes(model.name.replace('Original Transformer', words.originalTransformer)), what);
      const kind = /1 \+ w/.test(norm) ? 'rmsnorm_gemma' : /RMSNorm/.test(norm) ? 'rmsnorm' : 'layernorm';
      assert.equal(model.layout.norm, kind, `${what}: norm`);
      const eps = norm.match(/ε = ([0-9e.-]+)/);
      if (eps) assert.equal(model.eps, Number(eps[1]), `${what}: eps`);
      assert.equal(
        model.layout.placement,
        words.placements.find(([word]) => placement.includes(word))?.[1],
        `${what}: placement`,
      );
      const layout = blockLayout(decoderConfig(model));
      assert.equal(
        layout.normsPerLayer - (layout.sublayers[0].qkNorm ? 2 : 0),
        Number(norms[0]),
        `${what}: norms per layer`,
      );
      assert.equal(model.layout.qkNorm, /q\/k|q_norm|QK-Norm/.test(norms + other), `${what}: QK-Norm`);
      assert.equal(model.extraNorms > 0, /MLA|q\/k\/v/.test(norms), `${what}: norms the toy cannot hold`);
      const caps = [...other.matchAll(/(\d+)/g)].map((m) => Number(m[1])).filter((n) => n === 30 || n === 50);
      assert.deepEqual(
        caps,
        [model.attnSoftcap, model.finalSoftcap].filter((c) => c !== null),
        `${what}: soft-caps`,
      );
    });
  });
}

test("every model's block is a config of the lab's decoder that the engine validates and builds, with the norms the diagram draws", () => {
  const table = lab.describe().decoder;
  for (const model of MODELS) {
    const config = { vocabSize: 16, dModel: 16, nHeads: 2, nLayers: 1, contextLength: 4, ...decoderConfig(model) };
    assert.doesNotThrow(() => resolveOptions(table, config, { where: 'config' }), model.id);
    const decoder = lab.createDecoder(config);
    try {
      const norms = new Set(
        decoder
          .paramLayout()
          .map((t) => t.name)
          .filter((n) => /^layers\.0\..*norm\.[a-z]+$/.test(n))
          .map((n) => n.replace(/\.[a-z]+$/, '')),
      );
      assert.equal(norms.size, blockLayout(config).normsPerLayer, model.id);
      const { loss, status } = decoder.forward([1, 2, 3, 4], [2, 3, 4, 5]);
      assert.equal(status, 'ok');
      assert.ok(Number.isFinite(loss), model.id);
    } finally {
      decoder.dispose();
    }
  }
});

test("the new widgets' strings: the same keys in every language, and a text for every model feature", async () => {
  const { LANGUAGES } = await import('../../web/languages.js');
  const byLanguage = (part) => Object.fromEntries(LANGUAGES.map((row) => [row.code, row.strings[part]]));
  const [MODEL_TABLE_STRINGS, CONFIG_INSPECTOR_STRINGS, BLOCK_DIAGRAM_STRINGS] = [
    'rl-model-table',
    'rl-config-inspector',
    'block-diagram',
  ].map(byLanguage);
  const keys = (o, prefix = '') =>
    Object.entries(o)
      .flatMap(([k, v]) =>
        v && typeof v === 'object' && !Array.isArray(v) ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
      )
      .sort();
  const [first, ...others] = CODES;
  for (const table of [MODEL_TABLE_STRINGS, CONFIG_INSPECTOR_STRINGS, BLOCK_DIAGRAM_STRINGS])
    for (const code of others) assert.deepEqual(keys(table[code]), keys(table[first]), `${code} and ${first}`);
  for (const lang of CODES) {
    for (const model of MODELS)
      for (const f of model.features)
        assert.equal(typeof MODEL_TABLE_STRINGS[lang].featureText[f], 'string', `${lang} ${model.id} ${f}`);
    for (const norm of findRow(lab.describe(), 'decoder.norm').choices)
      assert.equal(typeof BLOCK_DIAGRAM_STRINGS[lang].norm[norm], 'string', `${lang} ${norm}`);
  }
});

test("a model's toy block normalizes q and k over what its architecture does: a head, or the whole projection", async () => {
  const { ARCHITECTURES } = await import('../../web/lib/architectures.js');
  const shape = { per_head: 'head', whole: 'projection' };
  let checked = 0;
  for (const model of MODELS) {
    const arch = model.architecture && ARCHITECTURES[model.architecture];
    if (!arch?.forward || arch.forward.qkNorm === 'none') continue;
    const config = resolveOptions(lab.describe().decoder, decoderConfig(model));
    assert.equal(config.qkNorm, true, `${model.id}: QK-Norm`);
    assert.equal(config.qkNormShape, shape[arch.forward.qkNorm], `${model.id}: over ${arch.forward.qkNorm}`);
    checked += 1;
  }
  assert.ok(checked >= 3, 'Qwen3, Gemma 3 and OLMo 2 at least');
});
