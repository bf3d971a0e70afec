// The model table of <rl-model-table> (web/lib/models.js) against the chapter's table "What the models chose" in
// both languages, and against the engine: each model's block is a valid toy decoder config, and the engine builds
// the norms the block diagram draws.
//   node --test tests/js/models.test.mjs     after `node scripts/build.mjs` (uses dist/lib/)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from '../../dist/lib/residual-lab.js';
import { findRow, resolveOptions } from '../../web/lib/options.js';
import { MODELS, toyDecoderConfig } from '../../web/lib/models.js';
import { blockLayout } from '../../web/components/shared/block-diagram.js';

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

const PLACEMENT_WORDS = {
  en: [
    ['Post-Norm', 'post'],
    ['Pre-Norm', 'pre'],
    ['sandwich', 'sandwich'],
    ['after the sublayer output', 'olmo2'],
  ],
  zh: [
    ['Post-Norm', 'post'],
    ['Pre-Norm', 'pre'],
    ['三明治', 'sandwich'],
    ['子层输出之后', 'olmo2'],
  ],
};

for (const lang of ['en', 'zh']) {
  test(`${lang}: every model of the widget says what the chapter's table says`, () => {
    const rows = contentRows(lang);
    assert.equal(rows.length, MODELS.length);
    MODELS.forEach((model, k) => {
      const [name, norm, placement, norms, other] = rows[k];
      const what = `${model.id} (${name})`;
      assert.ok(
        name.includes(
          model.name.replace('Original Transformer', lang === 'en' ? 'Original Transformer' : '原始 Transformer'),
        ),
        what,
      );
      const kind = /1 \+ w/.test(norm) ? 'rmsnorm_gemma' : /RMSNorm/.test(norm) ? 'rmsnorm' : 'layernorm';
      assert.equal(model.layout.norm, kind, `${what}: norm`);
      const eps = norm.match(/ε = ([0-9e.-]+)/);
      if (eps) assert.equal(model.eps, Number(eps[1]), `${what}: eps`);
      assert.equal(
        model.layout.placement,
        PLACEMENT_WORDS[lang].find(([word]) => placement.includes(word))?.[1],
        `${what}: placement`,
      );
      const layout = blockLayout(toyDecoderConfig(model));
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

test("every model's block is a toy decoder the engine validates and builds, with the norms the diagram draws", () => {
  const table = lab.describe().decoder;
  for (const model of MODELS) {
    const config = { vocabSize: 16, dModel: 16, nHeads: 2, nLayers: 1, contextLength: 4, ...toyDecoderConfig(model) };
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

test("the new widgets' strings: the same keys in both languages, and a text for every model feature", async () => {
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
  for (const table of [MODEL_TABLE_STRINGS, CONFIG_INSPECTOR_STRINGS, BLOCK_DIAGRAM_STRINGS])
    assert.deepEqual(keys(table.zh), keys(table.en));
  for (const lang of ['en', 'zh']) {
    for (const model of MODELS)
      for (const f of model.features)
        assert.equal(typeof MODEL_TABLE_STRINGS[lang].featureText[f], 'string', `${lang} ${model.id} ${f}`);
    for (const norm of findRow(lab.describe(), 'decoder.norm').choices)
      assert.equal(typeof BLOCK_DIAGRAM_STRINGS[lang].norm[norm], 'string', `${lang} ${norm}`);
  }
});
