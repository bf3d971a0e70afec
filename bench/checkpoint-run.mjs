// lab.openCheckpoint on a synthetic checkpoint with Qwen2.5-0.5B's exact shapes (24 layers, d 896, 14 heads,
// 2 KV heads, head_dim 64, intermediate 4864, vocabulary 151936, tied head; random BF16 weights, about 1 GB),
// in node with the WASM SIMD build: the time to read it from disk and open it (the bytes read into a fresh
// buffer, the header parsed and checked; beside it the time to write a fresh buffer of that size, the floor under
// any read), then to open it with the bytes already in memory, one run of 16, 32 and 64 tokens (after a warm-up run), the forward's effective GFLOP/s beside the
// matmul kernel's on the same module (a [16, 896] x [4864, 896]^T product), and the WASM heap's size after the
// runs (the heap never shrinks: its peak). Prints JSON lines; scripts/bench.mjs runs it and prints the table.
//   node bench/checkpoint-run.mjs     after `node scripts/build.mjs`
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCheckpoint } from '../web/lib/checkpoint/open.js';

const SHAPE = {
  hidden_size: 896,
  num_hidden_layers: 24,
  num_attention_heads: 14,
  num_key_value_heads: 2,
  intermediate_size: 4864,
  vocab_size: 151936,
};
const CONFIG = {
  model_type: 'qwen2',
  architectures: ['Qwen2ForCausalLM'],
  ...SHAPE,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  tie_word_embeddings: true,
  hidden_act: 'silu',
  use_sliding_window: false,
};

const { default: createModule } = await import(new URL('../build/wasm-simd/residual_lab.mjs', import.meta.url));
const wasm = await WebAssembly.compile(readFileSync(new URL('../build/wasm-simd/residual_lab.wasm', import.meta.url)));
const Module = await createModule({
  instantiateWasm(imports, receive) {
    WebAssembly.instantiate(wasm, imports).then((i) => receive(i, wasm));
    return {};
  },
});

/** One safetensors file holding every tensor of CONFIG in BF16: N(0, 0.02)-like values tiled, norm weights 1. */
function syntheticCheckpoint() {
  const {
    hidden_size: d,
    num_hidden_layers: L,
    num_attention_heads: H,
    num_key_value_heads: KV,
    intermediate_size: F,
    vocab_size: V,
  } = SHAPE;
  const hd = d / H;
  const shapes = [
    ['model.embed_tokens.weight', [V, d]],
    ['model.norm.weight', [d]],
  ];
  for (let i = 0; i < L; i++) {
    const p = `model.layers.${i}.`;
    shapes.push(
      [`${p}input_layernorm.weight`, [d]],
      [`${p}post_attention_layernorm.weight`, [d]],
      [`${p}self_attn.q_proj.weight`, [H * hd, d]],
      [`${p}self_attn.q_proj.bias`, [H * hd]],
      [`${p}self_attn.k_proj.weight`, [KV * hd, d]],
      [`${p}self_attn.k_proj.bias`, [KV * hd]],
      [`${p}self_attn.v_proj.weight`, [KV * hd, d]],
      [`${p}self_attn.v_proj.bias`, [KV * hd]],
      [`${p}self_attn.o_proj.weight`, [d, H * hd]],
      [`${p}mlp.gate_proj.weight`, [F, d]],
      [`${p}mlp.up_proj.weight`, [F, d]],
      [`${p}mlp.down_proj.weight`, [d, F]],
    );
  }
  const header = {};
  let offset = 0;
  for (const [name, shape] of shapes) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = new TextEncoder().encode(
    JSON.stringify(header).padEnd(Math.ceil(JSON.stringify(header).length / 8) * 8),
  );
  const file = new Uint8Array(8 + json.length + offset);
  new DataView(file.buffer).setBigUint64(0, BigInt(json.length), true);
  file.set(json, 8);
  // a block of 65536 random bf16 values (sum of uniforms ~ normal, std 0.02), copied over the whole data
  const block = new Uint16Array(1 << 16);
  const f = new Float32Array(1),
    u = new Uint32Array(f.buffer);
  for (let i = 0; i < block.length; i++) {
    f[0] = 0.02 * (Math.random() + Math.random() + Math.random() - 1.5) * 2;
    block[i] = u[0] >>> 16;
  }
  const blockBytes = new Uint8Array(block.buffer);
  const data = file.subarray(8 + json.length);
  for (let at = 0; at < data.length; at += blockBytes.length)
    data.set(blockBytes.subarray(0, Math.min(blockBytes.length, data.length - at)), at);
  for (const [
    name,
    {
      data_offsets: [b, e],
    },
  ] of Object.entries(header)) {
    if (name.endsWith('norm.weight')) new Uint16Array(data.buffer, data.byteOffset + b, (e - b) / 2).fill(0x3f80); // 1.0
  }
  return { 'config.json': JSON.stringify(CONFIG), 'model.safetensors': file };
}

const emit = (row) => console.log(JSON.stringify(row));
// CPU seconds beside wall seconds: on a shared machine the wall time also counts the waits for a core
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const files = syntheticCheckpoint();
let t0;
{
  const folder = mkdtempSync(join(tmpdir(), 'rl-bench-checkpoint-'));
  try {
    const path = join(folder, 'model.safetensors');
    writeFileSync(path, files['model.safetensors']);
    // the floor under any open from disk: a fresh buffer of the file's size, written once (on a VM whose pages are
    // backed on first touch this alone can take seconds)
    t0 = performance.now();
    let c0 = cpuSeconds();
    new Uint8Array(files['model.safetensors'].length).fill(1);
    emit({
      name: 'touch as much fresh memory',
      value: (performance.now() - t0) / 1000,
      unit: 's',
      cpu: cpuSeconds() - c0,
    });
    t0 = performance.now();
    c0 = cpuSeconds();
    const bytes = readFileSync(path);
    const fromDisk = await openCheckpoint(Module, { 'config.json': files['config.json'], 'model.safetensors': bytes });
    emit({
      name: 'read from disk and open',
      value: (performance.now() - t0) / 1000,
      unit: 's',
      cpu: cpuSeconds() - c0,
    });
    fromDisk.dispose();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
t0 = performance.now();
const ckpt = await openCheckpoint(Module, files);
emit({
  name: 'open in memory',
  value: (performance.now() - t0) / 1000,
  unit: 's',
  bytes: files['model.safetensors'].length,
});

function forwardFlops(T) {
  const {
    hidden_size: d,
    num_hidden_layers: L,
    num_attention_heads: H,
    num_key_value_heads: KV,
    intermediate_size: F,
    vocab_size: V,
  } = SHAPE;
  const hd = d / H;
  const perToken = 2 * (d * H * hd + 2 * d * KV * hd + H * hd * d + 3 * d * F);
  const attention = 2 * 2 * H * T * T * hd; // scores and P V, the full square
  return L * (T * perToken + attention) + 2 * V * d; // head: the last position
}

const ids = (T) => Array.from({ length: T }, (_, i) => (i * 7919) % SHAPE.vocab_size);
ckpt.run(ids(4)); // warm-up: the first calls run before the engine's optimizing tier
for (const T of [16, 32, 64]) {
  t0 = performance.now();
  const c0 = cpuSeconds();
  const result = ckpt.run(ids(T));
  const seconds = (performance.now() - t0) / 1000;
  if (!result.logits.every(Number.isFinite)) throw new Error('non-finite logits');
  emit({
    name: `run ${T} tokens`,
    value: seconds,
    unit: 's',
    cpu: cpuSeconds() - c0,
    gflops: forwardFlops(T) / seconds / 1e9,
  });
}

// the matmul kernel alone on the same module: y[16, 4864] = x[16, 896] w[4864, 896]^T (the MLP's gate projection)
{
  const M = 16,
    K = 896,
    N = 4864;
  const name = Module._malloc(8);
  Module.stringToUTF8('bench', name, 8);
  const alloc = (floats) => Module._rl_ckpt_alloc(floats * 4, name);
  const [y, x, w] = [alloc(M * N), alloc(M * K), alloc(N * K)];
  Module.HEAPF32.fill(0.01, x >> 2, (x >> 2) + M * K);
  Module.HEAPF32.fill(0.01, w >> 2, (w >> 2) + N * K);
  for (let i = 0; i < 20; i++) Module._rl_ckpt_head(y, N, x, M, K, w, 0, N, 0, 0); // dtype 0: F32, the kernel itself
  const reps = 100;
  t0 = performance.now();
  const c0 = cpuSeconds();
  for (let i = 0; i < reps; i++) Module._rl_ckpt_head(y, N, x, M, K, w, 0, N, 0, 0); // dtype 0: F32, the kernel itself
  const seconds = (performance.now() - t0) / 1000 / reps;
  emit({
    name: 'matmul 16 x 896 x 4864',
    value: seconds,
    unit: 's',
    cpu: (cpuSeconds() - c0) / reps,
    gflops: (2 * M * N * K) / seconds / 1e9,
  });
  for (const p of [y, x, w]) Module._rl_ckpt_free(p);
  Module._free(name);
}
emit({ name: 'WASM heap after the runs', value: Module.HEAPU8.length / 2 ** 20, unit: 'MB' });
ckpt.dispose();
