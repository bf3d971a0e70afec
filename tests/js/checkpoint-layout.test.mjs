// The checkpoint layout the C++ side exports (describeCheckpointLayout, wasm/src/checkpoint/layout.hpp) against
// what JS still says for itself: the slots model.js gives tensors, GGUF's dtype table (gguf-types.js, which must
// map GGUF's type ids), each family's placement, q/k norm and activation, and the spec model.js writes.
//   node --test tests/js/checkpoint-layout.test.mjs     after `node scripts/build.mjs` (uses dist/lib/wasm/)
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkpointLayout, dtypeCode, encodeSpec } from '../../web/lib/checkpoint/layout.js';
import { describeModel } from '../../web/lib/checkpoint/model.js';
import { DTYPE_LAYOUTS } from '../../web/lib/checkpoint/gguf-types.js';
import { NORM_INPUTS } from '../../web/lib/checkpoint/claims.js';
import { FAMILIES, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { instantiateSimdModule } from './simd-module.mjs';

let Module, layout;
before(async () => {
  Module = await instantiateSimdModule();
  layout = checkpointLayout(Module);
});

test('the layout holds the forward.hpp enums in their order and the panel sizes', () => {
  assert.deepEqual(layout.slots.slice(0, 6), [
    'attnNormBefore',
    'attnNormAfter',
    'mlpNormBefore',
    'mlpNormAfter',
    'qNorm',
    'kNorm',
  ]);
  assert.equal(layout.slots.length, 17);
  assert.deepEqual(layout.placements, ['pre', 'sandwich', 'olmo2']);
  assert.deepEqual(layout.qkNorms, ['none', 'per_head', 'whole']);
  assert.deepEqual(layout.activations, ['silu', 'gelu_tanh']);
  assert.deepEqual(layout.observedNorms, layout.slots.slice(0, 4));
  // the experiments name a run's collected normInputs rows: N1 .. N4, then q_norm's and k_norm's (forward.hpp)
  assert.deepEqual(NORM_INPUTS, [...layout.observedNorms, 'qNorm', 'kNorm']);
  assert.equal(layout.panelRows, 4);
  assert.equal(layout.headStats, 4);
  assert.ok(layout.backwardPanelRows >= layout.panelRows);
  assert.equal(layout.spec.floats, layout.spec.fields.length);
  assert.deepEqual(
    layout.spec.fields.map((f) => f.offset),
    layout.spec.fields.map((_, i) => i),
  );
  assert.equal(checkpointLayout(Module), layout, 'parsed once per module');
  assert.ok(Object.isFrozen(layout.slots));
});

test("GGUF's dtype table (gguf-types.js) agrees with the C++ one, code and block", () => {
  assert.deepEqual(Object.keys(DTYPE_LAYOUTS).sort(), Object.keys(layout.dtypes).sort());
  for (const [name, l] of Object.entries(DTYPE_LAYOUTS)) assert.deepEqual({ ...l }, { ...layout.dtypes[name] }, name);
  for (const [name, { code }] of Object.entries(layout.dtypes)) {
    assert.equal(dtypeCode(layout, name), code);
    assert.equal(Module._rl_ckpt_dtype_block_bytes(code), layout.dtypes[name].blockBytes, name);
  }
  assert.throws(() => dtypeCode(layout, 'IQ2_XS'), { code: 'unsupported_dtype', message: /IQ2_XS is not a dtype/ });
});

test("every family's tensors name slots the C++ side has, and its spec encodes in the C++ order", () => {
  for (const family of FAMILIES) {
    const model = describeModel(JSON.stringify(makeConfig(family)));
    for (const { slot, layer } of model.expected('model.').values())
      if (layer !== null) assert.ok(layout.slots.includes(slot), `${family}: ${slot}`);
    const floats = encodeSpec(layout, model.spec);
    const at = Object.fromEntries(layout.spec.fields.map((f) => [f.name, floats[f.offset]]));
    assert.equal(at.d, model.sizes.d, family);
    assert.equal(at.n_heads, model.sizes.H, family);
    assert.equal(at.n_kv_heads, model.sizes.KV, family);
    assert.equal(at.head_dim, model.sizes.headDim, family);
    assert.equal(at.ffn, model.sizes.ffn, family);
    assert.equal(at.eps, Math.fround(model.sizes.eps), family);
    assert.equal(layout.placements[at.placement], model.forward.placement, family);
    assert.equal(layout.qkNorms[at.qk_norm], model.forward.qkNorm, family);
    assert.equal(layout.activations[at.activation], model.forward.activation, family);
    assert.equal(at.attn_scale, Math.fround(model.forward.attnScale), family);
    // the C++ side reads the same floats: its saved-activation count grows with ffn as layer_forward_saved keeps it
    const p = Module._malloc(layout.spec.floats * 4);
    Module.HEAPF32.set(floats, p >> 2);
    const saved = Module._rl_ckpt_saved_floats(p, 3);
    Module.HEAPF32[(p >> 2) + layout.spec.fields.find((f) => f.name === 'ffn').offset] = at.ffn + 8;
    assert.ok(Module._rl_ckpt_saved_floats(p, 3) > saved, `${family}: the C++ spec reads ffn where JS wrote it`);
    Module._free(p);
  }
});

test('a spec with a field the C++ side lacks, a missing field or an unknown enum name is refused', () => {
  const model = describeModel(JSON.stringify(makeConfig('llama')));
  assert.throws(() => encodeSpec(layout, { ...model.spec, n_layers: 2 }), /no field n_layers/);
  const { ffn, ...missing } = model.spec;
  assert.ok(ffn > 0);
  assert.throws(() => encodeSpec(layout, missing), /ffn is not given/);
  assert.throws(() => encodeSpec(layout, { ...model.spec, placement: 'post' }), /placement "post" is not one of/);
});
