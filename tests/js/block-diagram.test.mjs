// The shared block diagram's layout (web/components/shared/block-diagram.js) against the engine: its placements
// are the decoder option table's, and the norms it draws per layer and at the end are the norm tensors the toy
// decoder allocates for the same config (paramLayout).
//   node --test tests/js/block-diagram.test.mjs     after `node scripts/build.mjs` (uses dist/lib/)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { findRow } from '../../web/lib/options.js';
import { PLACEMENT_SLOTS, blockLayout } from '../../web/components/shared/block-diagram.js';

const lab = await load();

test('the diagram knows exactly the placements of the decoder option table', () => {
  assert.deepEqual(
    Object.keys(PLACEMENT_SLOTS).sort(),
    [...findRow(lab.describe(), 'decoder.placement').choices].sort(),
  );
  assert.throws(() => blockLayout({ placement: 'middle' }), /unknown placement "middle"/);
  assert.throws(() => blockLayout({ placement: 'constructor' }), /unknown placement/);
});

test('the norms drawn are the norm tensors the engine builds, for every placement, norm kind and QK-Norm', () => {
  for (const placement of Object.keys(PLACEMENT_SLOTS)) {
    for (const norm of ['rmsnorm', 'layernorm', 'none']) {
      for (const qkNorm of [false, true]) {
        const config = { vocabSize: 11, dModel: 8, nHeads: 2, nLayers: 1, contextLength: 4, placement, norm, qkNorm };
        const model = lab.createDecoder(config);
        try {
          const names = model
            .paramLayout()
            .map((t) => t.name)
            .filter((n) => /norm\.[a-z]+$/.test(n)); // attn_norm.weight, attn.q_norm.weight, ...
          const layerNorms = new Set(
            names.filter((n) => n.startsWith('layers.0.')).map((n) => n.replace(/\.[a-z]+$/, '')),
          );
          const layout = blockLayout(config);
          const where = `${placement} ${norm} qkNorm=${qkNorm}`;
          assert.equal(layout.normsPerLayer, layerNorms.size, `${where}: ${[...layerNorms]}`);
          assert.equal(
            layout.finalNorm,
            names.some((n) => n.startsWith('final_norm.')),
            where,
          );
          // sandwich and olmo2 put a norm on the branch output; the engine names the sandwich's *_out_norm
          const outNorms = [...layerNorms].filter((n) => /out_norm$/.test(n)).length;
          if (placement === 'sandwich') assert.equal(outNorms, norm === 'none' ? 0 : 2, where);
        } finally {
          model.dispose();
        }
      }
    }
  }
});

test('soft-caps and QK-Norm sit on the attention sublayer and the output', () => {
  const layout = blockLayout({
    placement: 'sandwich',
    norm: 'rmsnorm_gemma',
    qkNorm: false,
    attnSoftcap: 50,
    finalSoftcap: 30,
  });
  assert.deepEqual(
    layout.sublayers.map((s) => [s.name, s.norms, s.qkNorm, s.softcap]),
    [
      ['attn', ['before', 'after'], false, 50],
      ['mlp', ['before', 'after'], false, null],
    ],
  );
  assert.equal(layout.finalSoftcap, 30);
  assert.equal(layout.normsPerLayer, 4);
  assert.equal(blockLayout({ placement: 'post', qkNorm: true }).normsPerLayer, 4);
  assert.equal(blockLayout({ placement: 'deepnorm' }).scaledSkip, true);
});
