// The trained toys shipped in web/models/ (written by `npm run train-toys`): the files are the ones the command
// recorded, each checkpoint is laid out as transformers' LlamaForCausalLM / Olmo2ForCausalLM expects from its
// config.json, the tokenizer is the engine's character vocabulary, and the lab's engine running the shipped
// weights gives the loss the exporter measured on its probe text.
//   node --test tests/js/toys.test.mjs          after `node scripts/build.mjs` (uses dist/lib/residual-lab.js)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DTYPE_BYTES } from '../../web/lib/checkpoint/safetensors.js';
import { engineDecoder, models, probeIds, readSafetensors, record } from '../fixtures/toys.mjs';
import { tableRows } from './markdown-tables.mjs';

// config.json's torch_dtype -> the safetensors dtype of the tensors
const SAFETENSORS_DTYPE = { float32: 'F32', float16: 'F16', bfloat16: 'BF16' };

function listFiles(dir, prefix = '') {
  return readdirSync(dir)
    .sort()
    .flatMap((name) =>
      statSync(`${dir}/${name}`).isDirectory()
        ? listFiles(`${dir}/${name}`, `${prefix}${name}/`)
        : [`${prefix}${name}`],
    );
}

// The tensors transformers' modeling_llama.py / modeling_olmo2.py create for this config, with their shapes.
function expectedShapes(config) {
  const d = config.hidden_size,
    f = config.intermediate_size,
    V = config.vocab_size;
  const hd = config.head_dim,
    H = config.num_attention_heads,
    KV = config.num_key_value_heads;
  const shapes = { 'model.embed_tokens.weight': [V, d], 'model.norm.weight': [d], 'lm_head.weight': [V, d] };
  const norms =
    config.model_type === 'olmo2'
      ? ['post_attention_layernorm', 'post_feedforward_layernorm']
      : ['input_layernorm', 'post_attention_layernorm'];
  for (let i = 0; i < config.num_hidden_layers; ++i) {
    const p = `model.layers.${i}.`;
    Object.assign(shapes, {
      [`${p}self_attn.q_proj.weight`]: [H * hd, d],
      [`${p}self_attn.k_proj.weight`]: [KV * hd, d],
      [`${p}self_attn.v_proj.weight`]: [KV * hd, d],
      [`${p}self_attn.o_proj.weight`]: [d, H * hd],
      [`${p}mlp.gate_proj.weight`]: [f, d],
      [`${p}mlp.up_proj.weight`]: [f, d],
      [`${p}mlp.down_proj.weight`]: [d, f],
      [`${p}${norms[0]}.weight`]: [d],
      [`${p}${norms[1]}.weight`]: [d],
    });
    if (config.model_type === 'olmo2') {
      // Olmo2Attention: q_norm over num_heads * head_dim, k_norm over num_key_value_heads * head_dim
      shapes[`${p}self_attn.q_norm.weight`] = [H * hd];
      shapes[`${p}self_attn.k_norm.weight`] = [KV * hd];
    }
  }
  return shapes;
}

test('web/models holds the files `npm run train-toys` recorded, byte for byte, within 2 MB', () => {
  const sums = readFileSync(`${models}SHA256SUMS`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(/ {2}/));
  const files = listFiles(models).filter((f) => f !== 'SHA256SUMS');
  assert.deepEqual(
    sums.map(([, f]) => f),
    files,
  );
  let total = 0;
  for (const [hash, file] of sums) {
    const bytes = readFileSync(`${models}${file}`);
    total += bytes.length;
    assert.equal(createHash('sha256').update(bytes).digest('hex'), hash, file);
  }
  assert.ok(total <= 2 * 1024 * 1024, `${total} bytes`);
  assert.deepEqual(record.toys.map((t) => t.name).sort(), ['toy-llama', 'toy-olmo2']);
});

for (const toy of record.toys) {
  test(`${toy.name}: config.json, model.safetensors and tokenizer.json describe one ${toy.modelType} model`, () => {
    const config = JSON.parse(readFileSync(`${models}${toy.name}/config.json`, 'utf8'));
    assert.equal(config.model_type, toy.modelType);
    assert.deepEqual(config.architectures, [{ llama: 'LlamaForCausalLM', olmo2: 'Olmo2ForCausalLM' }[toy.modelType]]);
    assert.equal(config.head_dim * config.num_attention_heads, config.hidden_size);
    assert.equal(config.tie_word_embeddings, false);
    assert.equal(config.hidden_act, 'silu');
    const bytes = new Uint8Array(readFileSync(`${models}${toy.name}/model.safetensors`));
    const { header, dataStart } = readSafetensors(bytes);
    const want = expectedShapes(config);
    assert.deepEqual(Object.keys(header).sort(), Object.keys(want).sort());
    // every tensor in the dtype config.json names; offsets tile the data exactly, in header order
    const dtype = SAFETENSORS_DTYPE[config.torch_dtype];
    assert.ok(dtype, `torch_dtype ${config.torch_dtype}`);
    let end = 0;
    for (const [name, t] of Object.entries(header)) {
      assert.deepEqual(t.shape, want[name], name);
      assert.equal(t.dtype, dtype, name);
      assert.equal(t.data_offsets[0], end, name);
      end = t.data_offsets[1];
      assert.equal(end - t.data_offsets[0], DTYPE_BYTES[t.dtype] * t.shape.reduce((a, b) => a * b, 1), name);
    }
    assert.equal(dataStart + end, bytes.length);
    // the tokenizer: one token per character, ids 0..V-1 in character order (the engine's CharTokenizer)
    const tokenizer = JSON.parse(readFileSync(`${models}${toy.name}/tokenizer.json`, 'utf8'));
    assert.equal(tokenizer.model.type, 'BPE');
    assert.deepEqual(tokenizer.model.merges, []);
    const vocab = Object.entries(tokenizer.model.vocab).sort((a, b) => a[1] - b[1]);
    assert.equal(vocab.length, config.vocab_size);
    vocab.forEach(([ch, id], i) => {
      assert.equal(id, i);
      assert.equal(ch.length, 1);
    });
    const codes = vocab.map(([ch]) => ch.charCodeAt(0));
    assert.deepEqual(
      codes,
      [...codes].sort((a, b) => a - b),
    );
    // the trained model learned: its losses are far below the corpus' unigram entropy
    assert.ok(toy.finalValidationLoss < 0.75 * record.corpus.unigramEntropy, `${toy.finalValidationLoss}`);
  });
}

const dist = new URL('../../dist/lib/residual-lab.js', import.meta.url);
test('the engine running the shipped weights gives the probe loss the exporter measured', async () => {
  assert.ok(existsSync(fileURLToPath(dist)), 'dist/lib/residual-lab.js is missing: run `node scripts/build.mjs` first');
  const { load } = await import(dist.href);
  const lab = await load();
  for (const toy of record.toys) {
    const model = engineDecoder(lab, toy);
    const ids = probeIds(toy);
    const r = model.forward(Int32Array.from(ids.slice(0, -1)), Int32Array.from(ids.slice(1)));
    assert.ok(Math.abs(r.loss - toy.probeLoss) < 1e-4, `${toy.name}: ${r.loss} vs ${toy.probeLoss}`);
    model.dispose();
  }
});

test("docs/experiments.md's table and loss curve are the numbers of toys.json", () => {
  const doc = readFileSync(new URL('../../docs/experiments.md', import.meta.url), 'utf8');
  for (const toy of record.toys) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${toy.name}\``));
    assert.ok(row, `no row for ${toy.name}`);
    const cells = row
      .split('|')
      .slice(3, -1)
      .map((c) => Number(c.trim().replace(/,/g, '')));
    assert.deepEqual(cells, [
      toy.numParams,
      toy.steps,
      toy.firstLoss,
      toy.finalTrainLoss,
      toy.finalValidationLoss,
      Number(toy.probeLoss.toFixed(4)),
    ]);
  }
  // the loss curve's rows: a step and four losses
  const curve = new Map(
    tableRows(doc)
      .filter((cells) => cells.length === 5 && cells.every((cell) => /^\d+(\.\d+)?$/.test(cell)))
      .map(([step, ...losses]) => [step, losses.join(' | ')]),
  );
  const [llama, olmo2] = record.toys;
  for (let i = 1; i < llama.lossCurve.length; i += 2) {
    const [step, a, b] = llama.lossCurve[i],
      [, c, d] = olmo2.lossCurve[i];
    const losses = [a, b, c, d].map((v) => v.toFixed(4)).join(' | ');
    assert.equal(curve.get(String(step)), losses, `the loss curve at step ${step}`);
  }
});

test("the residual-growth widget's untrained twin starts from the toys' own initialisation (tools/toys.cpp)", async () => {
  const { TOY_INIT } = await import('../../web/components/residual-growth/toy-stream.js');
  const source = readFileSync(fileURLToPath(new URL('../../tools/toys.cpp', import.meta.url)), 'utf8');
  const std = Number(/c\.init\.std\s*=\s*([\d.]+)f?;/.exec(source)?.[1]);
  const residualScaling = /c\.init\.residual_scaling\s*=\s*(true|false);/.exec(source)?.[1] === 'true';
  assert.ok(Number.isFinite(std), 'toys.cpp sets c.init.std');
  assert.deepEqual({ std: TOY_INIT.std, residualScaling: TOY_INIT.residualScaling }, { std, residualScaling });
  assert.equal(TOY_INIT.scheme, 'normal');
});
