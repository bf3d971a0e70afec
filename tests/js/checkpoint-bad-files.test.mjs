// Bad checkpoints are refused, each with its own ResidualLabError code, and the module keeps working after; a
// fuzz loop over mutated safetensors headers: every input is parsed or refused with a code, never a crash.
//   node --test tests/js/checkpoint-bad-files.test.mjs     after `node scripts/build.mjs`
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load, ResidualLabError } from '../../dist/lib/residual-lab.js';
import { makeCheckpoint, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { readSafetensorsHeader } from '../../web/lib/checkpoint/safetensors.js';
import { writeSafetensors } from '../fixtures/checkpoints/write-safetensors.mjs';
import { ResidualLabError as SourceError } from '../../web/lib/errors.js'; // the class the source parser throws

let lab;
before(async () => {
  lab = await load();
});

const IDS = [1, 2, 3];
const good = () => makeCheckpoint({ family: 'qwen3', dtype: 'BF16', seed: 4 });

/** The file's header as an object and its data bytes. */
function split(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return { header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), data: bytes.subarray(8 + n) };
}
/** A file with `header` (any object) and `data`, the header written as given. */
function join(header, data) {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}
const withFile = (files, name, content) => ({ ...files, [name]: content });
const without = (files, name) => Object.fromEntries(Object.entries(files).filter(([key]) => key !== name));

async function refused(files, code, what) {
  await assert.rejects(
    lab.openCheckpoint(files),
    (error) => {
      assert.ok(error instanceof ResidualLabError, `${what}: ${error}`);
      assert.equal(error.code, code, `${what}: ${error.message}`);
      assert.ok(error.message.length > 10);
      return true;
    },
    what,
  );
}

test('each bad checkpoint is refused with its own code, and a good one still runs after', async () => {
  const { files, config } = good();
  const model = files['model.safetensors'];
  const { header, data } = split(model);
  const names = Object.keys(header).filter((k) => k !== '__metadata__');
  const first = names.find((n) => header[n].data_offsets[0] === 0);
  const second = names.find((n) => header[n].data_offsets[0] === header[first].data_offsets[1]);

  await refused(without(files, 'config.json'), 'missing_file', 'no config.json');
  await refused(without(files, 'model.safetensors'), 'missing_file', 'no weights');
  await refused(
    withFile(files, 'model.safetensors', new TextEncoder().encode('<html>not a checkpoint</html>')),
    'safetensors_header_too_large',
    'an HTML page',
  );
  await refused(
    withFile(files, 'model.safetensors', join([1, 2], data)),
    'not_safetensors',
    'a header that is not an object',
  );
  const notJson = join({}, data);
  notJson[8] = 0x7b;
  notJson[9] = 0x78; // '{x'
  await refused(withFile(files, 'model.safetensors', notJson), 'not_safetensors', 'a header that is not JSON');
  await refused(
    withFile(files, 'model.safetensors', model.subarray(0, 5)),
    'safetensors_truncated',
    'fewer than 8 bytes',
  );
  await refused(withFile(files, 'model.safetensors', model.subarray(0, 100)), 'safetensors_truncated', 'a cut header');
  await refused(
    withFile(files, 'model.safetensors', model.subarray(0, model.length - 10)),
    'safetensors_truncated',
    'cut data',
  );
  const huge = model.slice();
  new DataView(huge.buffer).setBigUint64(0, 1n << 40n, true);
  await refused(withFile(files, 'model.safetensors', huge), 'safetensors_header_too_large', 'an absurd header length');

  const overlap = structuredClone(header);
  overlap[second].data_offsets = [overlap[second].data_offsets[0] - 2, overlap[second].data_offsets[1] - 2];
  await refused(
    withFile(files, 'model.safetensors', join(overlap, data)),
    'safetensors_bad_offsets',
    'overlapping offsets',
  );
  const gap = structuredClone(header);
  for (const n of names) gap[n].data_offsets = gap[n].data_offsets.map((o) => (o > 0 ? o + 2 : o));
  gap[first].data_offsets = [0, header[first].data_offsets[1]];
  await refused(
    withFile(files, 'model.safetensors', join(gap, new Uint8Array(data.length + 2))),
    'safetensors_bad_offsets',
    'a gap between tensors',
  );
  const past = structuredClone(header);
  past[first].data_offsets = [0, data.length + 8];
  past[first].shape = [(data.length + 8) / 2];
  await refused(
    withFile(files, 'model.safetensors', join(past, data)),
    'safetensors_truncated',
    'a tensor past the end of the data',
  );
  const wrongSize = structuredClone(header);
  wrongSize[first].shape = [...wrongSize[first].shape, 2];
  await refused(
    withFile(files, 'model.safetensors', join(wrongSize, data)),
    'safetensors_bad_tensor',
    'a shape its bytes do not fit',
  );
  const badDtype = structuredClone(header);
  badDtype[first].dtype = 'F7';
  await refused(
    withFile(files, 'model.safetensors', join(badDtype, data)),
    'safetensors_bad_tensor',
    'an unknown dtype',
  );

  // valid files that do not fit the model
  const f64 = makeCheckpoint({ family: 'qwen3', dtype: 'F32', seed: 4 });
  const f64Header = split(f64.files['model.safetensors']);
  const norm = 'model.norm.weight';
  const plain = Object.keys(f64Header.header)
    .filter((k) => k !== '__metadata__')
    .map((name) => {
      const [b, e] = f64Header.header[name].data_offsets;
      return { name, ...f64Header.header[name], bytes: f64Header.data.subarray(b, e) };
    });
  const tensors = plain.map((t) => (t.name === norm ? { ...t, dtype: 'F64', shape: [t.bytes.length / 8] } : t));
  await refused(
    withFile(f64.files, 'model.safetensors', writeSafetensors(tensors)),
    'unsupported_dtype',
    'an F64 tensor',
  );
  await refused(
    withFile(
      files,
      'model.safetensors',
      writeSafetensors(plain.filter((t) => !t.name.includes('layers.1.mlp.up_proj'))),
    ),
    'missing_tensor',
    'a missing tensor',
  );
  await refused(
    withFile(files, 'config.json', JSON.stringify({ ...config, intermediate_size: 20 })),
    'shape_mismatch',
    'a config the shapes disagree with',
  );
  await refused(
    withFile(files, 'config.json', JSON.stringify({ ...config, model_type: 'gpt2' })),
    'unsupported_architecture',
    'gpt2',
  );
  await refused(
    withFile(files, 'config.json', JSON.stringify({ ...config, model_type: 'mamba' })),
    'unsupported_architecture',
    'an unknown model_type',
  );
  await refused(
    withFile(files, 'config.json', JSON.stringify({ ...config, rope_scaling: { rope_type: 'yarn', factor: 4 } })),
    'unsupported_config',
    'yarn RoPE',
  );
  await refused(withFile(files, 'config.json', '{"model_type": "qwen3",'), 'invalid_json', 'a cut config.json');

  const sharded = makeCheckpoint({ family: 'llama', dtype: 'F16', sharded: true }).files;
  await refused(without(sharded, 'model-00002-of-00002.safetensors'), 'missing_shard', 'a missing shard');
  await refused(withFile(sharded, 'model.safetensors.index.json', '{"weight_map": 3}'), 'invalid_index', 'a bad index');
  const index = JSON.parse(sharded['model.safetensors.index.json']);
  index.weight_map['model.layers.0.mlp.gate_proj.weight'] = 'model-00001-of-00002.safetensors';
  index.weight_map['model.layers.0.mlp.up_proj.weight'] = 'model-00002-of-00002.safetensors';
  await refused(
    withFile(sharded, 'model.safetensors.index.json', JSON.stringify(index)),
    'invalid_index',
    'an index that misplaces a tensor',
  );

  // bad run inputs, then the module still works
  const ckpt = await lab.openCheckpoint(files);
  try {
    for (const [input, what] of [
      [[], 'no tokens'],
      [[1, 48], 'an id past the vocabulary'],
      [[1.5], 'a fraction'],
      ['text', 'a text without tokenizer.json'],
    ]) {
      await assert.rejects(
        () => ckpt.run(input),
        (error) => error instanceof ResidualLabError && ['invalid_input', 'no_tokenizer'].includes(error.code),
        what,
      );
    }
    await assert.rejects(() => ckpt.run(IDS, { lens: { position: 3 } }), /lens.position/);
    const first = await ckpt.run(IDS, { logits: 'all' });
    assert.equal(first.logits.length, IDS.length * 48);
    assert.ok(first.logits.every(Number.isFinite));
  } finally {
    ckpt.dispose();
  }
  await assert.rejects(
    () => ckpt.run(IDS),
    (error) => error.code === 'disposed',
  );
  // the lab's other functions still work
  assert.equal(lab.rmsNorm(new Float32Array([3, 4])).length, 2);
});

test('a run larger than the memory budget is refused with out_of_memory, and the next one runs', async () => {
  const config = makeConfig('llama', { tied: true });
  Object.assign(config, {
    vocab_size: 65536,
    hidden_size: 8,
    num_attention_heads: 2,
    num_key_value_heads: 1,
    intermediate_size: 8,
  });
  const before = lab.memoryBudget();
  const ckpt = await lab.openCheckpoint(makeCheckpoint({ family: 'llama', dtype: 'BF16', config }).files);
  try {
    const long = Array.from({ length: 4096 }, (_, i) => i % 65536);
    // every position's logits: 4096 x 65536 floats, 1 GB, past the 768 MB budget
    await assert.rejects(
      () => ckpt.run(long, { logits: 'all' }),
      (error) => error instanceof ResidualLabError && error.code === 'out_of_memory' && /logits/.test(error.message),
    );
    const r = await ckpt.run(long.slice(0, 8));
    assert.equal(r.logits.length, 65536);
    assert.ok(r.logits.every(Number.isFinite));
  } finally {
    ckpt.dispose();
  }
  assert.deepEqual(lab.memoryBudget(), before, 'a disposed checkpoint holds nothing against the budget');
});

const CODES = new Set([
  'not_safetensors',
  'safetensors_truncated',
  'safetensors_header_too_large',
  'safetensors_bad_tensor',
  'safetensors_bad_offsets',
]);

test('fuzz: mutated safetensors files are parsed or refused with a code, never read past their bytes', async () => {
  const base = makeCheckpoint({ family: 'qwen2', dtype: 'BF16', seed: 12 }).files['model.safetensors'];
  const { header, data } = split(base);
  let seed = 12345;
  const rand = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const JSON_MUTATIONS = [
    (h, n) => {
      h[n].data_offsets[rand(2)] += rand(7) - 3;
    },
    (h, n) => {
      h[n].shape = h[n].shape.map((s) => s + rand(3) - 1);
    },
    (h, n) => {
      h[n].dtype = ['F16', 'I64', 'U8', 'x', 7][rand(5)];
    },
    (h, n) => {
      h[n].data_offsets = [rand(2) ? -1 : 2 ** 60, 3];
    },
    (h, n) => {
      delete h[n][['dtype', 'shape', 'data_offsets'][rand(3)]];
    },
    (h, n) => {
      h[n] = [null, 1, 'x', []][rand(4)];
    },
    (h) => {
      h.__metadata__ = [{ a: 1 }, 'x', null, { a: 'b' }][rand(4)];
    },
  ];
  const names = Object.keys(header).filter((k) => k !== '__metadata__');
  let accepted = 0,
    refusedCount = 0;
  const started = Date.now();
  for (let i = 0; i < 3000 && Date.now() - started < 4000; i++) {
    let bytes;
    if (i % 2 === 0) {
      // raw byte flips, truncation or extension
      bytes = base.slice(0, rand(3) === 0 ? rand(base.length + 1) : base.length);
      for (let j = 0, n = 1 + rand(4); j < n && bytes.length; j++) bytes[rand(Math.min(bytes.length, 400))] = rand(256);
    } else {
      const h = structuredClone(header);
      for (let j = 0, n = 1 + rand(3); j < n; j++) {
        const name = names[rand(names.length)];
        if (
          h[name] &&
          typeof h[name] === 'object' &&
          !Array.isArray(h[name]) &&
          Array.isArray(h[name].data_offsets) &&
          Array.isArray(h[name].shape)
        )
          JSON_MUTATIONS[rand(JSON_MUTATIONS.length)](h, name);
      }
      bytes = join(h, data.subarray(0, data.length - (rand(4) === 0 ? rand(16) : 0)));
    }
    try {
      const source = { size: bytes.length, read: async (begin, end) => bytes.subarray(begin, end) };
      const { tensors, headerBytes } = await readSafetensorsHeader(source, 'fuzz.safetensors');
      accepted += 1;
      let end = 0;
      for (const t of tensors.values()) {
        // every tensor's bytes lie in the file, after its header
        assert.ok(t.offset >= headerBytes.length && t.offset + t.byteLength <= bytes.length, t.name);
        end = Math.max(end, t.end);
      }
    } catch (error) {
      assert.ok(error instanceof SourceError && CODES.has(error.code), `input ${i}: ${error?.stack ?? error}`);
      refusedCount += 1;
    }
  }
  assert.ok(accepted > 0 && refusedCount > 100, `accepted ${accepted}, refused ${refusedCount}`);
});
