// lab.inspectConfig on the published config.json of nine real models (tests/fixtures/model-configs.mjs), with every
// norm count and parameter total worked out by hand below, and on broken input.
//   node --test tests/js/inspect-config.test.mjs     after `node scripts/build.mjs` (uses dist/lib/)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, ResidualLabError } from '../../dist/lib/residual-lab.js';
import { ARCHITECTURES } from '../../web/lib/inspect-config.js';
import { CONFIGS } from '../fixtures/model-configs.mjs';

const lab = await load();
const inspect = (config) => lab.inspectConfig(typeof config === 'string' ? config : JSON.stringify(config, null, 2));

// Norm parameters, by hand (n layers x norms per layer + final norm):
const NORMS = {
  // 32 x (4096 + 4096) + 4096 = 266,240 in 65 RMSNorms (the chapter's figure)
  'meta-llama/Llama-3.1-8B': { arch: 'llama', normParams: 266240, normCount: 65, qkNorm: false },
  // the same shape: 32 x 2 x 4096 + 4096
  'mistralai/Mistral-7B-v0.3': { arch: 'mistral', normParams: 266240, normCount: 65, qkNorm: false },
  // 28 x 2 x 3584 + 3584 = 57 x 3584 = 204,288
  'Qwen/Qwen2.5-7B': { arch: 'qwen2', normParams: 204288, normCount: 57, qkNorm: false },
  // 36 x (2 x 4096 + 2 x 128) + 4096 = 36 x 8448 + 4096 = 304,128 + 4096 = 308,224; q_norm, k_norm per head (head_dim 128)
  'Qwen/Qwen3-8B': { arch: 'qwen3', normParams: 308224, normCount: 36 * 4 + 1, qkNorm: true },
  // 42 x 4 x 3584 + 3584 = 169 x 3584 = 605,696
  'google/gemma-2-9b': { arch: 'gemma2', normParams: 605696, normCount: 42 * 4 + 1, qkNorm: false },
  // text_config: 34 x (4 x 2560 + 2 x 256) + 2560 = 34 x 10,752 + 2560 = 365,568 + 2560 = 368,128 (head_dim 256 is Gemma3TextConfig's default)
  'google/gemma-3-4b-it': { arch: 'gemma3', normParams: 368128, normCount: 34 * 6 + 1, qkNorm: true },
  // 32 x (2 x 4096 + 32 x 128 + 32 x 128) + 4096 = 32 x 16,384 + 4096 = 528,384; q_norm, k_norm over whole projections
  'allenai/OLMo-2-1124-7B': { arch: 'olmo2', normParams: 528384, normCount: 32 * 4 + 1, qkNorm: true },
  // 61 x (2 x 7168 + 1536 + 512) + 7168 = 61 x 16,384 + 7168 = 999,424 + 7168 = 1,006,592 (q_a_layernorm, kv_a_layernorm in MLA)
  'deepseek-ai/DeepSeek-V3': { arch: 'deepseek_v3', normParams: 1006592, normCount: 61 * 4 + 1, qkNorm: false },
  // LayerNorm weight and bias: 12 x 2 x 2 x 768 + 2 x 768 = 36,864 + 1536 = 38,400
  'openai-community/gpt2': { arch: 'gpt2', normParams: 38400, normCount: 25, qkNorm: false },
};

// Whole-model parameters, by hand, against the published totals:
const TOTALS = {
  // embed 128256 x 4096 = 525,336,576, lm_head the same; per layer: q 4096^2 + k, v 2 x 4096 x 1024 + o 4096^2 = 41,943,040,
  // MLP 3 x 4096 x 14336 = 176,160,768, norms 8192 -> 218,112,000 x 32 = 6,979,584,000; + 1,050,673,152 + 4096 = 8,030,261,248 (8.03 B)
  'meta-llama/Llama-3.1-8B': { total: 8030261248, published: 8.03e9 },
  // 2 x 32768 x 4096 = 268,435,456 + 32 x 218,112,000 + 4096 = 7,248,023,552 (7.25 B)
  'mistralai/Mistral-7B-v0.3': { total: 7248023552, published: 7.25e9 },
  // embed 2 x 152064 x 3584 = 1,089,994,752; per layer: q, o 2 x 3584^2 + k, v 2 x 3584 x 512 + biases 3584 + 2 x 512 = 29,364,736,
  // MLP 3 x 3584 x 18944 = 203,685,888, norms 7168 -> 233,057,792 x 28 = 6,525,618,176; + 3584 = 7,615,616,512 (7.61 B)
  'Qwen/Qwen2.5-7B': { total: 7615616512, published: 7.61e9 },
  // embed 2 x 151936 x 4096 = 1,244,659,712; per layer 41,943,040 + 3 x 4096 x 12288 = 150,994,944 + 8448 = 192,946,432
  // x 36 = 6,946,071,552; + 4096 = 8,190,735,360 (8.2 B)
  'Qwen/Qwen3-8B': { total: 8190735360, published: 8.2e9 },
  // tied embed 256000 x 3584 = 917,504,000; per layer: q 3584 x 4096 + k, v 2 x 3584 x 2048 + o 4096 x 3584 = 44,040,192,
  // MLP 3 x 3584 x 14336 = 154,140,672, norms 14,336 -> 198,195,200 x 42 = 8,324,198,400; + 3584 = 9,241,705,984 (9.24 B)
  'google/gemma-2-9b': { total: 9241705984, published: 9.24e9 },
  // the language model only: tied embed 262208 x 2560 = 671,252,480; per layer: q 2560 x 2048 + k, v 2 x 2560 x 1024
  // + o 2048 x 2560 = 15,728,640, MLP 3 x 2560 x 10240 = 78,643,200, norms 10,752 -> 94,382,592 x 34 = 3,209,008,128;
  // + 2560 = 3,880,263,168 (the published 4.3 B adds the SigLIP vision tower, about 0.42 B)
  'google/gemma-3-4b-it': { total: 3880263168, published: null },
  // embed 2 x 100352 x 4096 = 822,083,584; per layer 4 x 4096^2 = 67,108,864 + 3 x 4096 x 11008 = 135,266,304 + 16,384
  // = 202,391,552 x 32 = 6,476,529,664; + 4096 = 7,298,617,344 (7.30 B)
  'allenai/OLMo-2-1124-7B': { total: 7298617344, published: 7.3e9 },
  // MLA per layer: q_a 7168 x 1536 + q_b 1536 x 128 x 192 + kv_a 7168 x 576 + kv_b 512 x 128 x 256 + o 16384 x 7168
  // = 11,010,048 + 37,748,736 + 4,128,768 + 16,777,216 + 117,440,512 = 187,105,280; dense MLP 3 x 7168 x 18432 = 396,361,728;
  // MoE 257 x 3 x 7168 x 2048 + router 256 x 7168 = 11,318,329,344 + 1,835,008; norms 16,384 per layer.
  // 3 x 583,483,392 + 58 x 11,507,286,016 + embed 2 x 129280 x 7168 + 7168
  // = 1,750,450,176 + 667,422,588,928 + 1,853,358,080 + 7168 = 671,026,404,352 (671 B; 685 B with the MTP module)
  'deepseek-ai/DeepSeek-V3': { total: 671026404352, published: 671e9 },
  // wte 50257 x 768 = 38,597,376, wpe 1024 x 768 = 786,432; per block: ln 2 x 1536, c_attn 768 x 2304 + 2304,
  // attn c_proj 768^2 + 768, c_fc 768 x 3072 + 3072, mlp c_proj 3072 x 768 + 768 = 7,087,872 x 12 = 85,054,464; ln_f 1536;
  // tied: 124,439,808 (124 M)
  'openai-community/gpt2': { total: 124439808, published: 124e6 },
};

for (const [name, config] of Object.entries(CONFIGS)) {
  test(`${name}: norms counted by hand, QK-Norm from the modeling code, total against the published figure`, () => {
    const r = inspect(config);
    const want = NORMS[name];
    assert.equal(r.architecture, want.arch);
    assert.equal(r.normParams, want.normParams);
    assert.equal(r.normCount, want.normCount);
    assert.equal(
      r.normParams,
      r.norms.reduce((sum, n) => sum + n.params, 0),
    );
    assert.equal(r.layout.qkNorm, want.qkNorm);
    assert.equal(
      r.norms.some((n) => n.slot === 'qk'),
      want.qkNorm,
    );
    const { total, published } = TOTALS[name];
    assert.equal(r.totalParams, total);
    if (published) assert.ok(Math.abs(total - published) / published < 0.005, `${total} vs published ${published}`);
    assert.equal(r.normShare, r.normParams / r.totalParams);
  });
}

test('Llama-3.1-8B: 65 RMSNorms of 4096, 266,240 parameters, 0.0033% of the model; the fields that matter', () => {
  const r = inspect(CONFIGS['meta-llama/Llama-3.1-8B']);
  assert.deepEqual(
    r.norms.map(({ name, count, size, params }) => ({ name, count, size, params })),
    [
      { name: 'input_layernorm', count: 32, size: 4096, params: 131072 },
      { name: 'post_attention_layernorm', count: 32, size: 4096, params: 131072 },
      { name: 'norm', count: 1, size: 4096, params: 4096 },
    ],
  );
  assert.equal((r.normShare * 100).toFixed(4), '0.0033');
  const field = (n) => r.fields.find((f) => f.name === n);
  assert.equal(field('rms_norm_eps').value, 1e-5);
  assert.equal(field('rms_norm_eps').group, 'eps');
  assert.equal(field('tie_word_embeddings').value, false);
  assert.equal(field('initializer_range').value, 0.02);
  assert.equal(field('attn_logit_softcapping'), undefined);
  assert.deepEqual(r.layout, { placement: 'pre', norm: 'rmsnorm', qkNorm: false });
  assert.ok(r.notes.some((n) => n.code === 'qk_norm_from_code'));
});

test('the sizes of the per-head and whole-projection q/k norms', () => {
  const qwen = inspect(CONFIGS['Qwen/Qwen3-8B']).norms.find((n) => n.name === 'self_attn.k_norm');
  assert.deepEqual([qwen.count, qwen.size], [36, 128]);
  const olmo = inspect({ ...CONFIGS['allenai/OLMo-2-1124-7B'], num_key_value_heads: 8 }).norms;
  assert.deepEqual(
    olmo.filter((n) => n.slot === 'qk').map((n) => n.size),
    [4096, 1024],
  ); // 32 x 128, 8 x 128
  const deepseek = inspect(CONFIGS['deepseek-ai/DeepSeek-V3']).norms.filter((n) => n.slot === 'mla');
  assert.deepEqual(
    deepseek.map((n) => [n.name, n.size]),
    [
      ['self_attn.q_a_layernorm', 1536],
      ['self_attn.kv_a_layernorm', 512],
    ],
  );
});

test('Gemma: soft-caps read from the config; Gemma 3 inside text_config, with Gemma3TextConfig defaults marked', () => {
  const g2 = inspect(CONFIGS['google/gemma-2-9b']);
  assert.equal(g2.fields.find((f) => f.name === 'attn_logit_softcapping').value, 50);
  assert.equal(g2.fields.find((f) => f.name === 'final_logit_softcapping').value, 30);
  assert.equal(g2.fields.find((f) => f.name === 'query_pre_attn_scalar').value, 256);
  assert.equal(g2.layout.norm, 'rmsnorm_gemma');
  const g3 = inspect(CONFIGS['google/gemma-3-4b-it']);
  assert.equal(g3.modelType, 'gemma3');
  assert.equal(g3.textConfig, 'gemma3_text');
  assert.equal(g3.fields.find((f) => f.name === 'hidden_size').path, 'text_config.hidden_size');
  assert.equal(g3.fields.find((f) => f.name === 'head_dim').source, 'default');
  assert.equal(g3.fields.find((f) => f.name === 'initializer_range').path, 'initializer_range');
  assert.ok(g3.notes.some((n) => n.code === 'text_config') && g3.notes.some((n) => n.code === 'softcap_off'));
  // the text model alone, as a gemma3_text config, counts the same
  const text = inspect({ ...CONFIGS['google/gemma-3-4b-it'].text_config });
  assert.equal(text.normParams, 368128);
});

test('an unknown architecture: the fields it can read, and an honest "cannot count"', () => {
  const r = inspect({ model_type: 'phi3', hidden_size: 3072, num_hidden_layers: 32, rms_norm_eps: 1e-5 });
  assert.equal(r.architecture, null);
  assert.equal(r.normParams, null);
  assert.equal(r.totalParams, null);
  assert.equal(r.layout, null);
  assert.deepEqual(
    r.fields.map((f) => [f.name, f.value]),
    [
      ['rms_norm_eps', 1e-5],
      ['hidden_size', 3072],
      ['num_hidden_layers', 32],
    ],
  );
  assert.ok(r.notes.some((n) => n.code === 'unknown_architecture' && n.message.includes('"phi3"')));
  const missing = inspect({ model_type: 'llama', hidden_size: 4096, num_attention_heads: 32 });
  assert.equal(missing.normParams, null);
  assert.ok(missing.notes.some((n) => n.code === 'cannot_count' && n.field === 'num_hidden_layers'));
});

test('broken input: a ResidualLabError with a stable code and the position or the field, never a count', () => {
  const fails = (text, code, extra) => {
    assert.throws(
      () => lab.inspectConfig(text),
      (error) => {
        assert.ok(error instanceof ResidualLabError, String(error));
        assert.equal(error.code, code, error.message);
        for (const [key, value] of Object.entries(extra ?? {}))
          assert.equal(error[key], value, `${key}: ${error.message}`);
        return true;
      },
    );
  };
  fails('', 'empty');
  fails('   \n', 'empty');
  fails(42, 'invalid_input');
  fails('{"model_type": "llama", "hidden_size": }', 'invalid_json', { position: 39 });
  fails('{"model_type": "llama",}', 'invalid_json', { position: 23 });
  fails('{"a": 1} x', 'invalid_json', { position: 9 });
  fails('{"a": NaN}', 'invalid_json', { position: 6 });
  fails('{"a": 1, "a": 2}', 'invalid_json', { position: 9 });
  fails('{"a": "unclosed', 'invalid_json', { position: 6 });
  fails('[1, 2]', 'invalid_config', { field: '(root)' });
  fails(JSON.stringify({ model_type: 'llama', hidden_size: 1e12 }), 'invalid_config', { field: 'hidden_size' });
  fails(JSON.stringify({ model_type: 'llama', num_hidden_layers: -1 }), 'invalid_config', {
    field: 'num_hidden_layers',
  });
  fails(JSON.stringify({ model_type: 'llama', hidden_size: 4096.5 }), 'invalid_config', { field: 'hidden_size' });
  fails(JSON.stringify({ model_type: 'llama', hidden_size: '4096' }), 'invalid_config', { field: 'hidden_size' });
  fails(JSON.stringify({ model_type: 'llama', rms_norm_eps: -1e-5 }), 'invalid_config', { field: 'rms_norm_eps' });
  fails(JSON.stringify({ model_type: 7 }), 'invalid_config', { field: 'model_type' });
  fails(
    JSON.stringify({ model_type: 'gemma3', text_config: { model_type: 'gemma3_text', hidden_size: 0 } }),
    'invalid_config',
    { field: 'text_config.hidden_size' },
  );
  fails(
    JSON.stringify({
      model_type: 'llama',
      hidden_size: 4095,
      num_attention_heads: 32,
      num_hidden_layers: 2,
      vocab_size: 10,
      intermediate_size: 8,
    }),
    'invalid_config',
    { field: 'num_attention_heads' },
  );
  fails('['.repeat(100), 'invalid_json');
  fails(' '.repeat((1 << 20) + 1), 'too_long');
  // a byte-order mark is not an error; "__proto__" is an ordinary key
  assert.equal(inspect(`\uFEFF${JSON.stringify(CONFIGS['openai-community/gpt2'])}`).normParams, 38400);
  assert.equal(inspect('{"__proto__": {"hidden_size": 1}, "model_type": "gpt9"}').fields.length, 0);
});

test('every size formula names fields the inspector reads', async () => {
  const { CONFIG_FIELDS } = await import('../../web/lib/inspect-config.js');
  const known = new Set(CONFIG_FIELDS.map((f) => f.name));
  for (const [key, arch] of Object.entries(ARCHITECTURES)) {
    const formulas = [...arch.norms, ...arch.params].flatMap((p) => [p.count, p.size]);
    for (const word of formulas.join(' ').match(/[a-z_]+/g)) assert.ok(known.has(word), `${key}: ${word}`);
  }
});

test("the inspector widget's examples count like the full published files", async () => {
  const { CONFIG_EXAMPLES } = await import('../../web/components/shared/config-examples.js');
  const full = {
    llama: 'meta-llama/Llama-3.1-8B',
    qwen3: 'Qwen/Qwen3-8B',
    gemma2: 'google/gemma-2-9b',
    gemma3: 'google/gemma-3-4b-it',
    olmo2: 'allenai/OLMo-2-1124-7B',
    deepseek: 'deepseek-ai/DeepSeek-V3',
    gpt2: 'openai-community/gpt2',
  };
  assert.deepEqual(CONFIG_EXAMPLES.map((e) => e.id).sort(), Object.keys(full).sort());
  for (const example of CONFIG_EXAMPLES) {
    const short = inspect(example.config);
    const long = inspect(CONFIGS[full[example.id]]);
    assert.deepEqual(
      [short.normParams, short.totalParams, short.layout],
      [long.normParams, long.totalParams, long.layout],
      example.id,
    );
  }
});

test("a missing head_dim takes the config class's default (Qwen3Config 128, Gemma2Config 256), not hidden_size / heads", () => {
  // Qwen3-0.6B: hidden_size 1024 / 16 heads would be 64; its head_dim is 128 (written in the file, and the default)
  const qwen06 = {
    architectures: ['Qwen3ForCausalLM'],
    attention_bias: false,
    head_dim: 128,
    hidden_size: 1024,
    intermediate_size: 3072,
    model_type: 'qwen3',
    num_attention_heads: 16,
    num_hidden_layers: 28,
    num_key_value_heads: 8,
    rms_norm_eps: 1e-6,
    tie_word_embeddings: true,
    vocab_size: 151936,
  };
  const { head_dim: _q, ...qwenWithout } = qwen06;
  const qwen = inspect(qwenWithout);
  assert.deepEqual(
    qwen.fields.find((f) => f.name === 'head_dim'),
    { name: 'head_dim', path: 'head_dim', value: 128, group: 'size', source: 'default' },
  );
  assert.equal(qwen.norms.find((n) => n.name === 'self_attn.q_norm').size, 128);
  // tied embed 151936 x 1024 = 155,582,464; per layer: q 1024 x 2048 + k, v 2 x 1024 x 1024 + o 2048 x 1024 = 6,291,456,
  // MLP 3 x 1024 x 3072 = 9,437,184, norms 2 x 1024 + 2 x 128 = 2304 -> 15,730,944 x 28 = 440,466,432; + 1024 = 596,049,920
  // (the model card: 0.6 B, 0.44 B without the embedding)
  assert.equal(qwen.totalParams, 596049920);
  assert.equal(inspect(qwen06).totalParams, qwen.totalParams);
  // Gemma-2-9B: 3584 / 16 heads would be 224; Gemma2Config's default is 256, as the file says
  const { head_dim: _g, ...gemmaWithout } = CONFIGS['google/gemma-2-9b'];
  const gemma = inspect(gemmaWithout);
  assert.equal(gemma.fields.find((f) => f.name === 'head_dim').source, 'default');
  assert.equal(gemma.totalParams, TOTALS['google/gemma-2-9b'].total);
});

test('attention_bias: true adds one bias per output of the projections built with bias=config.attention_bias', () => {
  const withBias = (name) => inspect({ ...CONFIGS[name], attention_bias: true }).totalParams - TOTALS[name].total;
  // LlamaAttention: q 32 x 128 + k, v 2 x 8 x 128 + o 4096 = 10,240 per layer, x 32
  assert.equal(withBias('meta-llama/Llama-3.1-8B'), 32 * 10240);
  // Qwen3Attention: the same shape, x 36 layers
  assert.equal(withBias('Qwen/Qwen3-8B'), 36 * 10240);
  // Gemma2Attention: q 16 x 256 + k, v 2 x 8 x 256 + o 3584 = 11,776 per layer, x 42
  assert.equal(withBias('google/gemma-2-9b'), 42 * 11776);
  // DeepseekV3Attention: q_a_proj 1536 + kv_a_proj_with_mqa 512 + 64 + o_proj 7168 = 9280 per layer, x 61
  assert.equal(withBias('deepseek-ai/DeepSeek-V3'), 61 * 9280);
  // MistralAttention's projections are built with bias=False; Qwen2's q, k, v always have theirs
  assert.equal(withBias('mistralai/Mistral-7B-v0.3'), 0);
  assert.equal(withBias('Qwen/Qwen2.5-7B'), 0);
});

test('QK-Norm fields: read where a config has them, told apart from architectures whose code decides', () => {
  // an architecture the inspector does not know, with its own switch: the config's word is reported
  const stablelm = inspect({
    model_type: 'stablelm',
    hidden_size: 2560,
    num_hidden_layers: 32,
    layer_norm_eps: 1e-5,
    qk_layernorm: true,
  });
  assert.equal(stablelm.layout, null);
  assert.deepEqual(
    stablelm.fields.find((f) => f.name === 'qk_layernorm'),
    { name: 'qk_layernorm', path: 'qk_layernorm', value: true, group: 'qknorm', source: 'config' },
  );
  assert.deepEqual(
    stablelm.notes.filter((n) => n.code === 'qk_norm_flag').map(({ field, value }) => [field, value]),
    [['qk_layernorm', true]],
  );
  const cohere = inspect({ model_type: 'cohere', hidden_size: 8192, use_qk_norm: false });
  assert.deepEqual(
    cohere.notes.filter((n) => n.code === 'qk_norm_flag').map(({ field, value }) => [field, value]),
    [['use_qk_norm', false]],
  );
  // a known architecture: the table (the code) decides; a flag that disagrees gets a note, one that agrees none
  const llama = inspect({ ...CONFIGS['meta-llama/Llama-3.1-8B'], use_qk_norm: true });
  assert.equal(llama.layout.qkNorm, false);
  assert.equal(llama.normParams, 266240);
  assert.deepEqual(
    llama.notes.filter((n) => n.code === 'qk_norm_flag_ignored').map(({ field, value }) => [field, value]),
    [['use_qk_norm', true]],
  );
  const qwenOff = inspect({ ...CONFIGS['Qwen/Qwen3-8B'], use_qk_norm: false });
  assert.equal(qwenOff.layout.qkNorm, true);
  assert.ok(qwenOff.notes.some((n) => n.code === 'qk_norm_flag_ignored' && n.value === false));
  const qwenOn = inspect({ ...CONFIGS['Qwen/Qwen3-8B'], use_qk_norm: true });
  assert.ok(!qwenOn.notes.some((n) => n.code.startsWith('qk_norm_flag')));
  // without a flag, no flag note either way
  assert.ok(!inspect(CONFIGS['Qwen/Qwen3-8B']).notes.some((n) => n.code.startsWith('qk_norm_flag')));
  assert.throws(
    () => inspect({ model_type: 'cohere', use_qk_norm: 'yes' }),
    (e) => e.code === 'invalid_config' && e.field === 'use_qk_norm',
  );
});
