// The exporter's family table (hf_architectures() in tools/hf_export.cpp, which writes the trained toys
// as Hugging Face checkpoints) against the families' rows in web/lib/architectures.js, which read them: the
// layout, the q/k norm and the norms' names are stated in both, so a change to one fails here until the other
// follows. Reads the sources; needs no build.
//   node --test tests/js/hf-export.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ARCHITECTURES } from '../../web/lib/architectures.js';

const source = readFileSync(new URL('../../tools/hf_export.cpp', import.meta.url), 'utf8');

/** hf_architectures()'s rows as objects: { model_type: 'llama', placement: 'pre', qk_norm: false, ... }. */
function exportedFamilies() {
  const table = source.match(/std::vector<HfArchitecture> table = \{([^]*?)\n {2}\};/)[1].replace(/\/\/.*$/gm, '');
  return [...table.matchAll(/\{([^{}]*)\}/g)].map(([, row]) =>
    Object.fromEntries(
      [...row.matchAll(/\.(\w+) = ([^,]+)/g)].map(([, field, value]) => [
        field,
        /^"/.test(value)
          ? JSON.parse(value)
          : /^(true|false)$/.test(value)
            ? value === 'true'
            : value.split('::').at(-1),
      ]),
    ),
  );
}

const QK_NORM_SHAPES = { head: 'per_head', projection: 'whole' }; // decoder::QkNormShape -> forward.qkNorm

test('every family the exporter writes is a row of architectures.js with the same layout and norm names', () => {
  const families = exportedFamilies();
  // a field added to HfArchitecture fails here until this test says where architectures.js states it
  const FIELDS = [
    'model_type',
    'class_name',
    'placement',
    'qk_norm',
    'qk_norm_shape',
    'attn_norm_name',
    'mlp_norm_name',
  ];
  assert.equal(families.length, source.match(/\.model_type = /g).length, 'every row read');
  for (const f of families) assert.deepEqual(Object.keys(f), FIELDS, `${f.model_type}: every field read`);
  for (const f of families) {
    const arch = ARCHITECTURES[f.model_type];
    assert.ok(arch?.modelTypes.includes(f.model_type), `${f.model_type}: a row of ARCHITECTURES`);
    // Transformers names the causal LM after the decoder layer: LlamaDecoderLayer, LlamaForCausalLM
    const layerClass = arch.source.match(/\((\w+)DecoderLayer/)[1];
    assert.equal(f.class_name, `${layerClass}ForCausalLM`, `${f.model_type}: class_name`);
    assert.equal(f.placement, arch.layout.placement, `${f.model_type}: placement`);
    assert.equal(f.qk_norm, arch.layout.qkNorm, `${f.model_type}: qk_norm`);
    if (f.qk_norm) assert.equal(QK_NORM_SHAPES[f.qk_norm_shape], arch.forward.qkNorm, `${f.model_type}: qk_norm_shape`);
    // the engine's one norm per sublayer, before it (pre) or on its output (olmo2)
    const normNamed = (sublayer) => arch.norms.filter((n) => n.slot.startsWith(`${sublayer}-`)).map((n) => n.name);
    assert.deepEqual([f.attn_norm_name], normNamed('attn'), `${f.model_type}: attn_norm_name`);
    assert.deepEqual([f.mlp_norm_name], normNamed('mlp'), `${f.model_type}: mlp_norm_name`);
  }
});
