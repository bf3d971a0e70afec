// GGUF files written by tests/fixtures/checkpoints/write-gguf.mjs, opened by lab.openCheckpoint: every type's
// dequantization in C++ against the float64 dequantizer, every family x type against a float64 forward on the
// dequantized weights, the same model as safetensors and as F32 GGUF, the gradients of a quantized file as those of
// its dequantized weights, and each bad file refused by name (the tokenizer: gguf-tokenizer.test.mjs).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { makeCheckpoint, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { referenceForward } from '../fixtures/checkpoints/reference.mjs';
import { assertRelativelyClose } from '../fixtures/float64.mjs';
import { encodeFloats, writeSafetensors } from '../fixtures/checkpoints/write-safetensors.mjs';
import {
  QUANT_TYPES,
  dequantize,
  ggufFromCheckpoint,
  quantize,
  writeGguf,
} from '../fixtures/checkpoints/write-gguf.mjs';
import { GGUF_TYPES } from '../../web/lib/checkpoint/gguf-types.js';
import { ggufSeeds, lcg, mutate, tryGguf } from '../fuzz/gguf_header_fuzz.mjs';
import { instantiateSimdModule } from './simd-module.mjs';

const IDS = [3, 17, 5, 40, 11];
const TYPES = ['F32', 'F16', 'BF16', ...QUANT_TYPES];
let lab;
before(async () => {
  lab = await load();
});

// Block-sized widths (K-quants need rows of 256), two layers; every family's own features kept. The GGUF leaves
// out what llama.cpp takes by arch: Gemma's query scale is head_dim^-0.5, Mistral (the llama arch) slides nowhere.
function ggufConfig(family) {
  const config = {
    ...makeConfig(family),
    hidden_size: 256,
    intermediate_size: 256,
    head_dim: 64,
    num_hidden_layers: 2,
  };
  if (family === 'mistral') config.sliding_window = null;
  if (family.startsWith('gemma')) config.query_pre_attn_scalar = 64;
  return config;
}
const PATTERN = { gemma3_text: [['gemma3.attention.sliding_window_pattern', 'u32', 2]] };

describe('the C++ dequantization of every type equals the float64 one', () => {
  test('each type, a row of 512 values', async () => {
    const Module = await instantiateSimdModule();
    for (const [, t] of Object.entries(GGUF_TYPES)) {
      assert.equal(Module._rl_ckpt_dtype_block_values(t.code), t.blockValues, `${t.name} block values`);
      assert.equal(Module._rl_ckpt_dtype_block_bytes(t.code), t.blockBytes, `${t.name} block bytes`);
    }
    assert.equal(Module._rl_ckpt_dtype_block_bytes(Object.keys(GGUF_TYPES).length), 0, 'no type past the table');
    for (const dtype of TYPES) {
      const x = Array.from({ length: 512 }, (_, i) => Math.sin(1.7 * i) * (0.5 + (i % 13)) * (i % 97 === 0 ? 9 : 1));
      const bytes = quantize(dtype, x);
      const want = dequantize(dtype, bytes);
      const src = Module._malloc(bytes.length),
        out = Module._malloc(4 * 512);
      Module.HEAPU8.set(bytes, src);
      assert.equal(
        Module._rl_ckpt_to_f32(
          out,
          src,
          512,
          GGUF_TYPES[Object.keys(GGUF_TYPES).find((k) => GGUF_TYPES[k].name === dtype)].code,
        ),
        0,
      );
      const got = Module.HEAPF32.slice(out >> 2, (out >> 2) + 512);
      (Module._free(src), Module._free(out));
      assertRelativelyClose(got, want, `${dtype} dequantized`, 1e-6);
    }
  });
});

const GGUF_FAMILIES = ['llama', 'mistral', 'qwen2', 'qwen3', 'gemma2', 'gemma3_text', 'olmo2'];

describe('every family x type of GGUF matches a float64 forward on its dequantized weights', () => {
  for (const family of GGUF_FAMILIES) {
    test(family, async () => {
      const fixture = makeCheckpoint({ family, config: ggufConfig(family), seed: 13 });
      for (const dtype of TYPES) {
        const gguf = ggufFromCheckpoint(family, fixture, dtype, PATTERN[family]);
        const ckpt = await lab.openCheckpoint({ 'model.gguf': gguf.bytes });
        try {
          assert.equal(ckpt.format, 'gguf');
          const r = await ckpt.run(IDS, { logits: 'all', hiddenStates: true });
          const ref = referenceForward(family, ggufConfig(family), gguf.tensors, IDS);
          ref.hidden.forEach((h, i) =>
            assertRelativelyClose(r.hiddenStates[i], h, `${family} ${dtype} hiddenStates[${i}]`, 1e-4),
          );
          assertRelativelyClose(r.logits, ref.logits, `${family} ${dtype} logits`, 1e-4);
        } finally {
          ckpt.dispose();
        }
      }
    });
  }
});

test('the same model as safetensors and as F32 GGUF gives identical numbers', async () => {
  for (const family of ['qwen2', 'gemma2']) {
    const fixture = makeCheckpoint({ family, config: ggufConfig(family), seed: 4 });
    const a = await lab.openCheckpoint(fixture.files);
    const b = await lab.openCheckpoint({ 'model.gguf': ggufFromCheckpoint(family, fixture, 'F32').bytes });
    const [ra, rb] = [await a.run(IDS, { logits: 'all' }), await b.run(IDS, { logits: 'all' })];
    if (family === 'qwen2') assert.deepEqual(rb.logits, ra.logits, `${family}: logits bit for bit`);
    // Gemma's norms are stored as fround(1 + w) and multiplied as such: the same numbers up to that rounding
    else assertRelativelyClose(rb.logits, ra.logits, `${family} logits`, 1e-5);
    (a.dispose(), b.dispose());
  }
});

describe('bad GGUF files are refused by name', () => {
  const fixture = () => makeCheckpoint({ family: 'qwen3', config: ggufConfig('qwen3'), seed: 1 });
  const refused = async (bytes, code, what) => {
    await assert.rejects(
      lab.openCheckpoint({ 'model.gguf': bytes }),
      (e) => e.code === code || assert.fail(`${what}: ${e.code} ${e.message}`),
      what,
    );
  };
  test('a truncated tensor', async () => {
    const { bytes } = ggufFromCheckpoint('qwen3', fixture(), 'Q4_K');
    await refused(bytes.subarray(0, bytes.length - 100), 'truncated_tensor', 'truncated');
  });
  test('an offset out of the file', async () => {
    const { kv, entries } = ggufFromCheckpoint('qwen3', fixture(), 'Q8_0');
    await refused(
      writeGguf(kv, entries, { offsetOf: (t, at) => (t.name === 'output_norm.weight' ? 1 << 30 : at) }),
      'offset_out_of_file',
      'offset',
    );
  });
  test('a wrong alignment', async () => {
    const { kv, entries } = ggufFromCheckpoint('qwen3', fixture(), 'Q8_0');
    await refused(
      writeGguf(kv, entries, { offsetOf: (t, at) => (t.name === 'token_embd.weight' ? at + 2 : at) }),
      'misaligned_tensor',
      'alignment',
    );
    await refused(writeGguf([...kv, ['general.alignment', 'u32', 24]], entries), 'misaligned_tensor', 'alignment 24');
  });
  test('an unknown type, and an IQ type by name', async () => {
    const { kv, entries } = ggufFromCheckpoint('qwen3', fixture(), 'Q8_0');
    const typed = (id) =>
      entries.map((t) => (t.name === 'blk.0.ffn_up.weight' ? { ...t, dtype: null, typeId: id } : t));
    await refused(writeGguf(kv, typed(99)), 'unsupported_dtype', 'type 99');
    await assert.rejects(
      lab.openCheckpoint({ 'model.gguf': writeGguf(kv, typed(16)) }),
      /blk\.0\.ffn_up\.weight is IQ2_XXS/,
    );
  });
  test('a key of the wrong type', async () => {
    const { kv, entries } = ggufFromCheckpoint('qwen3', fixture(), 'Q8_0');
    const wrong = kv.map(([k, t, v]) => (k === 'qwen3.block_count' ? [k, 'string', String(v)] : [k, t, v]));
    await assert.rejects(
      lab.openCheckpoint({ 'model.gguf': writeGguf(wrong, entries) }),
      (e) => e.code === 'invalid_gguf_key' && /qwen3\.block_count is a string/.test(e.message),
    );
  });
  test('a tensor count that lies', async () => {
    const { kv, entries } = ggufFromCheckpoint('qwen3', fixture(), 'Q8_0');
    await refused(writeGguf(kv, entries, { tensorCount: entries.length + 1 }), 'invalid_tensor_count', 'one more');
    await refused(writeGguf(kv, entries, { tensorCount: 2 ** 40 }), 'invalid_tensor_count', 'far more');
    await refused(writeGguf(kv, entries, { tensorCount: entries.length - 1 }), 'invalid_tensor_count', 'one fewer');
  });
});

test('ollama:NAME:TAG opens the GGUF blob its manifest names in OLLAMA_MODELS', async () => {
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { createHash } = await import('node:crypto');
  const root = mkdtempSync(join(tmpdir(), 'ollama-'));
  const saved = process.env.OLLAMA_MODELS;
  try {
    const fixture = makeCheckpoint({ family: 'qwen2', config: ggufConfig('qwen2'), seed: 6 });
    const gguf = ggufFromCheckpoint('qwen2', fixture, 'Q4_0');
    const hex = createHash('sha256').update(gguf.bytes).digest('hex');
    mkdirSync(join(root, 'blobs'));
    writeFileSync(join(root, 'blobs', `sha256-${hex}`), gguf.bytes);
    mkdirSync(join(root, 'manifests/registry.ollama.ai/library/tiny'), { recursive: true });
    writeFileSync(
      join(root, 'manifests/registry.ollama.ai/library/tiny/q4'),
      JSON.stringify({
        schemaVersion: 2,
        layers: [
          { mediaType: 'application/vnd.ollama.image.template', digest: `sha256:${'0'.repeat(64)}` },
          { mediaType: 'application/vnd.ollama.image.model', digest: `sha256:${hex}` },
        ],
      }),
    );
    process.env.OLLAMA_MODELS = root;
    const ckpt = await lab.openCheckpoint('ollama:tiny:q4', { workers: 1 });
    const ref = referenceForward('qwen2', ggufConfig('qwen2'), gguf.tensors, IDS);
    assertRelativelyClose((await ckpt.run(IDS, { logits: 'all' })).logits, ref.logits, 'ollama blob logits', 1e-4);
    ckpt.dispose();
    await assert.rejects(
      lab.openCheckpoint('ollama:absent'),
      (e) => e.code === 'missing_file' && /OLLAMA_MODELS/.test(e.message),
    );
  } finally {
    if (saved === undefined) delete process.env.OLLAMA_MODELS;
    else process.env.OLLAMA_MODELS = saved;
    rmSync(root, { recursive: true, force: true });
  }
});

// A bounded slice of the fuzz suite's gguf_header target (npm run fuzz runs it for a minute)
test('fuzz: mutated GGUF headers are opened or refused with a code, never another error', async () => {
  const seeds = ggufSeeds();
  const rand = lcg(12345);
  const codes = new Set();
  for (let trial = 0; trial < 300; trial++)
    codes.add(await tryGguf(lab, mutate(seeds[Math.floor(rand() * seeds.length)], rand)));
  assert.ok(codes.size >= 5 && codes.has('opened'), `several refusals seen, and some files open: ${[...codes]}`);
});

test('normWeights on a Gemma GGUF: the stored values are the multiplier, 1 + w, and say so', async () => {
  const fixture = makeCheckpoint({ family: 'gemma2', config: ggufConfig('gemma2'), seed: 3 });
  const ckpt = await lab.openCheckpoint({ 'model.gguf': ggufFromCheckpoint('gemma2', fixture, 'Q8_0').bytes });
  const safe = await lab.openCheckpoint(fixture.files);
  const [rows, safeRows] = [await ckpt.normWeights(), await safe.normWeights()];
  assert.equal(ckpt.forward.normOffset, 0);
  assert.equal(ckpt.forward.storedNormOffset, 1);
  assert.equal(rows.length, safeRows.length);
  rows.forEach((row, i) => {
    assert.equal(row.storedOffset, 1);
    assert.ok(Math.abs(row.multiplier.mean - safeRows[i].multiplier.mean) < 1e-6, `${row.name} multiplier mean`);
  });
  (ckpt.dispose(), safe.dispose());
});

test('the Hub fetch takes a GGUF file of a repo (no config.json), and a split set whole; a second fetch is cached', async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { startFakeHub } = await import('../fixtures/fake-hub.mjs');
  const fixture = makeCheckpoint({ family: 'qwen3', config: ggufConfig('qwen3'), seed: 21 });
  const q8 = ggufFromCheckpoint('qwen3', fixture, 'Q8_0'),
    q4 = ggufFromCheckpoint('qwen3', fixture, 'Q4_K');
  // a split set: the first file holds the key/values and half the tensors, the second the rest
  const half = Math.floor(q4.entries.length / 2);
  const splitKv = (no) => [
    ['split.no', 'u16', no],
    ['split.count', 'u16', 2],
    ['split.tensors.count', 'i32', q4.entries.length],
  ];
  const parts = [
    writeGguf([...q4.kv, ...splitKv(0)], q4.entries.slice(0, half)),
    writeGguf([['general.architecture', 'string', 'qwen3'], ...splitKv(1)], q4.entries.slice(half)),
  ];
  const hub = await startFakeHub({
    'toy/qwen3-gguf': {
      files: {
        'tiny-Q8_0.gguf': q8.bytes,
        'tiny-Q4_K-00001-of-00002.gguf': parts[0],
        'tiny-Q4_K-00002-of-00002.gguf': parts[1],
        'README.md': 'x',
      },
    },
  });
  const home = mkdtempSync(join(tmpdir(), 'rl-hub-gguf-'));
  const saved = { ...process.env };
  process.env.HF_HOME = home;
  delete process.env.HF_HUB_CACHE;
  process.env.HF_ENDPOINT = hub.endpoint;
  try {
    for (const [file, gguf, names] of [
      ['tiny-Q8_0.gguf', q8, ['tiny-Q8_0.gguf']],
      ['tiny-Q4_K-00001-of-00002.gguf', q4, ['tiny-Q4_K-00001-of-00002.gguf', 'tiny-Q4_K-00002-of-00002.gguf']],
    ]) {
      const got = await lab.fetchCheckpoint('toy/qwen3-gguf', { file });
      assert.deepEqual(Object.keys(got.files).sort(), names);
      const ckpt = await lab.openCheckpoint(got.files, { workers: 1 });
      const ref = referenceForward('qwen3', ggufConfig('qwen3'), gguf.tensors, IDS);
      assertRelativelyClose((await ckpt.run(IDS, { logits: 'all' })).logits, ref.logits, `${file} logits`, 1e-4);
      ckpt.dispose();
      const again = await lab.fetchCheckpoint('toy/qwen3-gguf', {
        file,
        fetch: async (url) => assert.fail(`no request, and ${url} was made`),
      });
      assert.equal(again.fetched, false);
      assert.deepEqual(Object.keys(again.files).sort(), names);
    }
    await assert.rejects(lab.fetchCheckpoint('toy/qwen3-gguf', { file: 'absent.gguf' }), (e) => e.code === 'not_found');
  } finally {
    process.env = saved;
    await hub.close();
    rmSync(home, { recursive: true, force: true });
  }
});

// Every leaf of `actual` as `expected`'s: numbers within 1e-7 relative, the rest equal. (A GGUF holds eps as a
// float32, 1e-5 as 9.99999975e-6: what the JS computes with eps in double moves by that, 2.5e-8.)
function sameNumbers(actual, expected, what) {
  if (typeof expected === 'number') {
    assert.equal(typeof actual, 'number', what);
    if (!(Number.isNaN(expected) && Number.isNaN(actual)))
      assert.ok(
        Math.abs(actual - expected) <= 1e-7 * Math.max(1, Math.abs(expected)),
        `${what}: ${actual} vs ${expected}`,
      );
  } else if (expected && typeof expected === 'object') {
    assert.deepEqual(Object.keys(actual ?? {}).sort(), Object.keys(expected).sort(), what);
    for (const key of Object.keys(expected)) sameNumbers(actual[key], expected[key], `${what}.${key}`);
  } else assert.equal(actual, expected, what);
}

test('the nine experiments and the logit lens give the same numbers on an F32 GGUF as on its safetensors', async () => {
  const { CLAIMS } = await import('../../web/lib/checkpoint/claims.js');
  for (const family of ['qwen2', 'gemma3_text']) {
    const fixture = makeCheckpoint({ family, config: ggufConfig(family), seed: 17 });
    const extra = PATTERN[family] ?? [];
    const safe = await lab.openCheckpoint(fixture.files);
    const gguf = await lab.openCheckpoint({ 'model.gguf': ggufFromCheckpoint(family, fixture, 'F32', extra).bytes });
    try {
      const names = Object.keys(CLAIMS);
      assert.equal(names.length, 9);
      for (const name of names) {
        const [a, b] = [await safe.claim(name, IDS), await gguf.claim(name, IDS)];
        // Gemma's norms are fround(1 + w) in the file: wrongConvention's wrong run there is 2 + w, not w
        if (name === 'wrongConvention' && family.startsWith('gemma')) assert.ok(b.right && b.wrong, name);
        else if (family === 'qwen2') sameNumbers(b, a, `${family} ${name}`);
        else assert.ok(b, `${family} ${name}`);
      }
      const lens = { position: IDS.length - 1, top: 3 };
      const [la, lb] = [await safe.run(IDS, { lens }), await gguf.run(IDS, { lens })];
      if (family === 'qwen2') assert.deepEqual(lb.lens, la.lens, 'lens');
      else assertRelativelyClose(lb.logits, la.logits, `${family} logits`, 1e-5);
    } finally {
      (safe.dispose(), gguf.dispose());
    }
  }
});

test("a GGUF run and its gradients split over 2 workers, each reading its rows (permuted q/k rows included), give one worker's numbers", async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'rl-gguf-split-'));
  try {
    for (const [family, dtype] of [
      ['llama', 'Q4_K'],
      ['gemma2', 'Q6_K'],
    ]) {
      const fixture = makeCheckpoint({ family, config: ggufConfig(family), seed: 23 });
      const path = join(dir, `${family}.gguf`);
      writeFileSync(path, ggufFromCheckpoint(family, fixture, dtype).bytes);
      const one = await lab.openCheckpoint({ 'model.gguf': path }, { workers: 1 });
      const two = await lab.openCheckpoint({ 'model.gguf': path }, { workers: 2 });
      try {
        const [a, b] = [await one.run(IDS, { logits: 'all' }), await two.run(IDS, { logits: 'all' })];
        assert.equal(two.workers, 2, 'the run was split');
        assert.deepEqual(b.logits, a.logits, `${family} ${dtype}: logits of 2 workers`);
        // the gradients split too, each worker's quantized rows in the backward: one worker's within 1e-4
        const [ga, gb] = [await one.gradients(IDS), await two.gradients(IDS)];
        assert.equal(gb.loss, ga.loss, `${family} ${dtype}: the loss of 2 workers`);
        for (const field of ['streamGrads', 'branchOnly'])
          gb[field].forEach((g, i) =>
            assertRelativelyClose(g, ga[field][i], `${family} ${dtype} ${field}[${i}]`, 1e-4),
          );
        for (const [name, norm] of Object.entries(ga.paramGradNorms))
          assertRelativelyClose([gb.paramGradNorms[name]], [norm], `${family} ${dtype} ${name}`, 1e-4);
      } finally {
        (one.dispose(), two.dispose());
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The gradients of a quantized GGUF are those of its dequantized weights: the same model written as an F32
// safetensors of the values the quantized blocks decode to gives the same loss, stream gradients, branch gains and
// weight-gradient norms (under the Hugging Face names, q/k rows back in their order).
test('ckpt.gradients on a quantized GGUF equals the gradients of its dequantized weights', async () => {
  for (const [family, dtype] of [
    ['llama', 'Q4_K'],
    ['qwen2', 'Q8_0'],
    ['gemma2', 'Q5_0'],
    ['olmo2', 'Q6_K'],
  ]) {
    const config = ggufConfig(family);
    const fixture = makeCheckpoint({ family, config, seed: 29 });
    const gguf = ggufFromCheckpoint(family, fixture, dtype, PATTERN[family]);
    const entries = [...gguf.tensors].map(([name, t]) => ({
      name,
      dtype: 'F32',
      shape: t.shape,
      bytes: encodeFloats('F32', t.values),
    }));
    const quantized = await lab.openCheckpoint({ 'model.gguf': gguf.bytes });
    const dequantized = await lab.openCheckpoint({
      'config.json': JSON.stringify(config),
      'model.safetensors': writeSafetensors(entries, { format: 'pt' }),
    });
    try {
      const [q, f] = [await quantized.gradients(IDS), await dequantized.gradients(IDS)];
      const what = `${family} ${dtype}`;
      assertRelativelyClose([q.loss], [f.loss], `${what} loss`, 1e-4);
      for (const field of ['streamGrads', 'midGrads', 'branchOnly'])
        q[field].forEach((a, i) => assertRelativelyClose(a, f[field][i], `${what} ${field}[${i}]`, 1e-4));
      q.branchGains.forEach((g, l) =>
        assertRelativelyClose(
          [g.attn, g.mlp],
          [f.branchGains[l].attn, f.branchGains[l].mlp],
          `${what} gains ${l}`,
          1e-4,
        ),
      );
      assert.deepEqual(Object.keys(q.paramGradNorms).sort(), Object.keys(f.paramGradNorms).sort(), `${what} names`);
      for (const [name, norm] of Object.entries(f.paramGradNorms))
        assertRelativelyClose([q.paramGradNorms[name]], [norm], `${what} ${name}`, 1e-4);
    } finally {
      (quantized.dispose(), dequantized.dispose());
    }
  }
});
