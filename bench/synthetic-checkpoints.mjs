// Synthetic checkpoints with real models' exact shapes, for the benches (bench/checkpoint-run.mjs in node,
// bench/checkpoint-browser.mjs in Chromium): random BF16 weights (N(0, 0.02)-like values, tiled), norm weights 1,
// written once to a cache folder (RL_BENCH_CACHE, else ~/.cache/residual-lab/bench) and reused.
//   qwen2.5-0.5b  24 layers, d 896, 14 heads, 2 KV heads, intermediate 4864, vocabulary 151936, tied head: one
//                 file of about 1 GB
//   llama-3.1-8b  32 layers, d 4096, 32 heads, 8 KV heads, intermediate 14336, vocabulary 128256, untied head,
//                 Llama 3 RoPE scaling: four shards named as the Hub names them (at most 5 GB each), about 16 GB
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { QWEN_SEED } from '../content/measurements.js';

export const SHAPES = {
  'qwen2.5-0.5b': {
    config: {
      ...QWEN_SEED.config, // the shape the probe recognises as the chapter's model
      architectures: ['Qwen2ForCausalLM'],
      rms_norm_eps: 1e-6,
      hidden_act: 'silu',
      use_sliding_window: false,
    },
    biases: true,
  },
  'llama-3.1-8b': {
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      hidden_size: 4096,
      num_hidden_layers: 32,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      intermediate_size: 14336,
      vocab_size: 128256,
      rms_norm_eps: 1e-5,
      rope_theta: 500000,
      rope_scaling: {
        factor: 8,
        low_freq_factor: 1,
        high_freq_factor: 4,
        original_max_position_embeddings: 8192,
        rope_type: 'llama3',
      },
      max_position_embeddings: 131072,
      tie_word_embeddings: false,
      hidden_act: 'silu',
      attention_bias: false,
      mlp_bias: false,
    },
    biases: false,
  },
};
const MAX_SHARD_BYTES = 5e9; // save_pretrained's default max_shard_size, "5GB"

const cacheDir = process.env.RL_BENCH_CACHE ?? join(homedir(), '.cache/residual-lab/bench');

/** The folder a shape's files are written to. */
export const shapeDir = (key) => join(cacheDir, key);

/** [name, shape] of every tensor, in the order save_pretrained writes them. */
export function tensorList({ config: c, biases }) {
  const { hidden_size: d, num_attention_heads: H, num_key_value_heads: KV, intermediate_size: F } = c;
  const hd = d / H;
  const list = [['model.embed_tokens.weight', [c.vocab_size, d]]];
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const p = `model.layers.${i}.`;
    list.push([`${p}input_layernorm.weight`, [d]], [`${p}post_attention_layernorm.weight`, [d]]);
    list.push([`${p}self_attn.q_proj.weight`, [H * hd, d]]);
    if (biases) list.push([`${p}self_attn.q_proj.bias`, [H * hd]]);
    list.push([`${p}self_attn.k_proj.weight`, [KV * hd, d]]);
    if (biases) list.push([`${p}self_attn.k_proj.bias`, [KV * hd]]);
    list.push([`${p}self_attn.v_proj.weight`, [KV * hd, d]]);
    if (biases) list.push([`${p}self_attn.v_proj.bias`, [KV * hd]]);
    list.push([`${p}self_attn.o_proj.weight`, [d, H * hd]]);
    list.push([`${p}mlp.gate_proj.weight`, [F, d]], [`${p}mlp.up_proj.weight`, [F, d]]);
    list.push([`${p}mlp.down_proj.weight`, [d, F]]);
  }
  list.push(['model.norm.weight', [d]]);
  if (!c.tie_word_embeddings) list.push(['lm_head.weight', [c.vocab_size, d]]);
  return list;
}

/** 64 Ki random bf16 values (a sum of uniforms, about N(0, 0.02)), tiled over every weight. */
function randomBlock() {
  const block = new Uint16Array(1 << 16);
  const f = new Float32Array(1),
    u = new Uint32Array(f.buffer);
  for (let i = 0; i < block.length; i++) {
    f[0] = 0.02 * (Math.random() + Math.random() + Math.random() - 1.5) * 2;
    block[i] = u[0] >>> 16;
  }
  return new Uint8Array(block.buffer);
}

/** Writes one safetensors file of `tensors` ([name, shape]) to `path`, tensor by tensor (never whole in memory). */
function writeShard(path, tensors, block) {
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const text = JSON.stringify(header);
  const json = new TextEncoder().encode(text.padEnd(Math.ceil(text.length / 8) * 8));
  const fd = openSync(`${path}.partial`, 'w');
  try {
    const length = new Uint8Array(8);
    new DataView(length.buffer).setBigUint64(0, BigInt(json.length), true);
    writeSync(fd, length);
    writeSync(fd, json);
    const ones = new Uint16Array(1 << 16).fill(0x3f80); // bf16 1.0, the norm weights
    const chunk = new Uint8Array(64 << 20);
    for (let at = 0; at < chunk.length; at += block.length) chunk.set(block, at);
    for (const [name, shape] of tensors) {
      let left = shape.reduce((a, b) => a * b, 1) * 2;
      const source = name.endsWith('norm.weight') ? new Uint8Array(ones.buffer) : chunk;
      while (left > 0) {
        const n = Math.min(left, source.length);
        writeSync(fd, source, 0, n);
        left -= n;
      }
    }
  } finally {
    closeSync(fd);
  }
  renameSync(`${path}.partial`, path); // a file in the cache is always whole
}

/**
 * The shape's files in the cache folder, written on first use: { name: path (weights) or text (JSON) }; the JSON
 * files are written beside the weights as well.
 */
export async function cachedCheckpoint(key) {
  const shape = SHAPES[key];
  const dir = shapeDir(key);
  mkdirSync(dir, { recursive: true });
  const tensors = tensorList(shape);
  const shards = [[]];
  let size = 0;
  for (const t of tensors) {
    const bytes = t[1].reduce((a, b) => a * b, 1) * 2;
    if (size + bytes > MAX_SHARD_BYTES && shards.at(-1).length) {
      shards.push([]);
      size = 0;
    }
    shards.at(-1).push(t);
    size += bytes;
  }
  const names =
    shards.length === 1
      ? ['model.safetensors']
      : shards.map(
          (_, i) => `model-${String(i + 1).padStart(5, '0')}-of-${String(shards.length).padStart(5, '0')}.safetensors`,
        );
  const block = randomBlock();
  const files = { 'config.json': JSON.stringify(shape.config) };
  for (const [i, name] of names.entries()) {
    const path = join(dir, name);
    if (!existsSync(path)) writeShard(path, shards[i], block);
    files[name] = path;
  }
  if (names.length > 1) {
    const weightMap = {};
    shards.forEach((shard, i) => shard.forEach(([name]) => (weightMap[name] = names[i])));
    files['model.safetensors.index.json'] = JSON.stringify({ metadata: {}, weight_map: weightMap });
  }
  // the JSON files on disk too, so a browser's file input can pick the whole folder
  for (const name of ['config.json', 'model.safetensors.index.json'])
    if (files[name]) writeFileSync(join(dir, name), files[name]);
  return files;
}

/** The shape's files in the cache folder (written on first use) as paths, as a reader picks them: JSON and weights. */
export async function checkpointPaths(key) {
  await cachedCheckpoint(key);
  const dir = shapeDir(key);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json') || name.endsWith('.safetensors'))
    .map((name) => join(dir, name));
}
