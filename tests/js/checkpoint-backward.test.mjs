// ckpt.gradients against finite differences of the loss through the API itself: the stream is perturbed at
// layer i and the run restarted there (options.intervene.from), the loss computed in float64 from its logits;
// the head's weight gradient against dz^T hf in float64 from the forward's own outputs; the named errors.
//   node --test tests/js/checkpoint-backward.test.mjs     after `node scripts/build.mjs`
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from '../../dist/lib/residual-lab.js';
import { createLabWorker } from '../../dist/lib/worker-client.js';
import { FAMILIES, makeCheckpoint, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';

const IDS = [3, 17, 5, 40, 11]; // 5 positions: past the fixtures' sliding window of 3
let lab;
before(async () => {
  lab = await load();
});

const sizes = (ckpt) => ({ d: ckpt.forward.d, L: ckpt.forward.layers, V: ckpt.forward.vocab });

// the loss from capped logits [T, V] in float64: the mean next-token cross-entropy, or one target's
function lossOf(logits, V, ids, target) {
  const rows = target ? [[target.position, target.token]] : ids.slice(1).map((id, t) => [t, id]);
  let loss = 0;
  for (const [t, token] of rows) {
    const z = logits.subarray(t * V, (t + 1) * V);
    const max = Math.max(...z);
    const lse = max + Math.log(z.reduce((s, v) => s + Math.exp(v - max), 0));
    loss += lse - z[token];
  }
  return loss / rows.length;
}

// ||dloss/dh_i|| per position by central differences, the run restarted at layer i from the perturbed stream
async function fdStreamGrads(ckpt, ids, states, i, target) {
  const { d, V } = sizes(ckpt);
  const T = ids.length,
    h = 1e-2;
  const out = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    let sum = 0;
    for (let j = 0; j < d; j++) {
      const at = (delta) => {
        const stream = states[i].slice();
        stream[t * d + j] += delta;
        return ckpt.run(ids, { logits: 'all', intervene: { from: { layer: i, stream } } });
      };
      const [up, down] = [await at(h), await at(-h)];
      const g = (lossOf(up.logits, V, ids, target) - lossOf(down.logits, V, ids, target)) / (2 * h);
      sum += g * g;
    }
    out[t] = Math.sqrt(sum);
  }
  return out;
}

const closeTo = (actual, expected, tol, what) => {
  const scale = Math.max(...expected.map(Math.abs));
  assert.ok(scale > 0, `${what}: the reference is not all zero`);
  for (let i = 0; i < expected.length; i++)
    assert.ok(
      Math.abs(actual[i] - expected[i]) <= tol * scale,
      `${what}[${i}]: ${actual[i]} vs ${expected[i]} (scale ${scale})`,
    );
};

describe('the stream gradients equal finite differences of the loss, every family', () => {
  for (const family of FAMILIES) {
    test(family, async () => {
      const ckpt = await lab.openCheckpoint(makeCheckpoint({ family, seed: 5 }).files, { workers: 1 });
      try {
        const { L } = sizes(ckpt);
        const g = await ckpt.gradients(IDS);
        const fwd = await ckpt.run(IDS, { logits: 'all', hiddenStates: true });
        assert.ok(Math.abs(g.loss - lossOf(fwd.logits, sizes(ckpt).V, IDS)) < 1e-5, `${family} loss`);
        assert.equal(g.streamGrads.length, L + 1);
        assert.equal(g.branchOnly.length, L + 1);
        assert.equal(g.midGrads.length, L);
        assert.equal(g.branchGains.length, L);
        for (const i of [0, 1, L]) {
          const fd = await fdStreamGrads(ckpt, IDS, fwd.hiddenStates, i);
          closeTo(g.streamGrads[i], fd, 2e-2, `${family} streamGrads[${i}]`);
        }
        // the last position predicts nothing and feeds no earlier one: its gradient is exactly zero
        for (const grads of [...g.streamGrads, ...g.midGrads, ...g.branchOnly]) assert.equal(grads[IDS.length - 1], 0);
        assert.deepEqual(g.branchOnly[L], g.streamGrads[L]);
        for (const { attn, mlp } of g.branchGains) assert.ok(attn > 0 && mlp > 0 && Number.isFinite(attn + mlp));
      } finally {
        ckpt.dispose();
      }
    });
  }
});

test('one target: its loss, and no gradient after its position', async () => {
  const ckpt = await lab.openCheckpoint(makeCheckpoint({ family: 'gemma2', seed: 3 }).files, { workers: 1 });
  try {
    const target = { position: 2, token: 9 };
    const g = await ckpt.gradients(IDS, { target });
    const fwd = await ckpt.run(IDS, { logits: 'all', hiddenStates: true });
    assert.ok(Math.abs(g.loss - lossOf(fwd.logits, sizes(ckpt).V, IDS, target)) < 1e-5);
    const L = sizes(ckpt).L;
    closeTo(g.streamGrads[L], await fdStreamGrads(ckpt, IDS, fwd.hiddenStates, L, target), 2e-2, 'target h_L');
    for (const grads of g.streamGrads) assert.deepEqual([...grads.subarray(3)], [0, 0]);
  } finally {
    ckpt.dispose();
  }
});

test("the head's and the final norm's weight gradients, untied and tied (one tensor, both uses)", async () => {
  for (const tied of [false, true]) {
    const ckpt = await lab.openCheckpoint(makeCheckpoint({ family: 'llama', tied, seed: 2 }).files, { workers: 1 });
    try {
      const { d, V } = sizes(ckpt);
      const T = IDS.length;
      const g = await ckpt.gradients(IDS);
      const fwd = await ckpt.run(IDS, { logits: 'all', hiddenStates: true });
      const names = ckpt.tensors.map((t) => t.name).sort();
      assert.deepEqual(Object.keys(g.paramGradNorms).sort(), names, 'one entry per tensor the forward reads');
      // dz = (softmax - onehot) / (T - 1) per row; dW_head = dz^T hf
      const dz = new Float64Array(T * V);
      for (let t = 0; t < T - 1; t++) {
        const z = fwd.logits.subarray(t * V, (t + 1) * V);
        const max = Math.max(...z);
        const sum = z.reduce((s, v) => s + Math.exp(v - max), 0);
        for (let j = 0; j < V; j++) dz[t * V + j] = (Math.exp(z[j] - max) / sum - (j === IDS[t + 1] ? 1 : 0)) / (T - 1);
      }
      let headSquare = 0;
      for (let v = 0; v < V; v++)
        for (let j = 0; j < d; j++) {
          let c = 0;
          for (let t = 0; t < T; t++) c += dz[t * V + v] * fwd.finalHidden[t * d + j];
          headSquare += c * c;
        }
      if (!tied) {
        const got = g.paramGradNorms['lm_head.weight'];
        assert.ok(Math.abs(got - Math.sqrt(headSquare)) <= 1e-4 * Math.sqrt(headSquare), `lm_head ${got}`);
      } else {
        // the embedding's use adds to the head's: the tied norm is not the head's alone
        assert.ok(Math.abs(g.paramGradNorms['model.embed_tokens.weight'] - Math.sqrt(headSquare)) > 1e-4);
      }
      for (const [name, value] of Object.entries(g.paramGradNorms))
        assert.ok(Number.isFinite(value) && value > 0, `${name}: ${value}`);
    } finally {
      ckpt.dispose();
    }
  }
});

test('bad requests get named errors, and the next request runs', async () => {
  const ckpt = await lab.openCheckpoint(makeCheckpoint({ family: 'qwen2', seed: 1 }).files, { workers: 1 });
  try {
    const refused = (promise, pattern, code = 'invalid_input') =>
      assert.rejects(promise, (e) => e.name === 'ResidualLabError' && e.code === code && pattern.test(e.message));
    await refused(ckpt.gradients([3]), /at least two tokens/);
    await refused(ckpt.gradients(IDS, { target: { position: 5, token: 1 } }), /target.position/);
    await refused(ckpt.gradients(IDS, { target: { position: 0, token: 48 } }), /target.token/);
    await refused(ckpt.gradients([3, 99]), /not an id/);
    await refused(ckpt.gradients(IDS, { logits: 'all' }), /options.logits is not one of/);
    await refused(ckpt.gradients(IDS, { target: { position: 0, token: 1, layer: 2 } }), /target.layer/);
    await refused(ckpt.gradients(IDS, { memoryLimit: 64 }), /memory limit/, 'out_of_memory');
    const one = await ckpt.gradients([3], { target: { position: 0, token: 4 } });
    assert.ok(one.loss > 0 && one.streamGrads[0][0] > 0);
  } finally {
    ckpt.dispose();
  }
});

test('a gradient run over the memory budget is refused with out_of_memory', async () => {
  const config = makeConfig('llama', { tied: true });
  Object.assign(config, { vocab_size: 65536, hidden_size: 8, num_attention_heads: 2, num_key_value_heads: 1 });
  Object.assign(config, { intermediate_size: 8 });
  const ckpt = await lab.openCheckpoint(makeCheckpoint({ family: 'llama', dtype: 'BF16', config }).files);
  try {
    const long = Array.from({ length: 4096 }, (_, i) => i % 65536);
    await assert.rejects(ckpt.gradients(long), (e) => e.code === 'out_of_memory');
    assert.ok((await ckpt.gradients(long.slice(0, 4))).loss > 0);
  } finally {
    ckpt.dispose();
  }
});

test('progress, cancel, and the same numbers through the lab worker', async () => {
  const { files } = makeCheckpoint({ family: 'olmo2', seed: 4 });
  const ckpt = await lab.openCheckpoint(files, { workers: 1 });
  const worker = createLabWorker();
  try {
    const seen = [];
    const here = await ckpt.gradients(IDS, { onProgress: (p) => seen.push(`${p.pass}:${p.stage}:${p.layer}`) });
    const L = sizes(ckpt).L;
    assert.ok(seen.includes(`backward:layer:${L}`) && seen.includes('forward:layer:1'), seen.join(' '));
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(ckpt.gradients(IDS, { signal: controller.signal }), (e) => e.name === 'AbortError');
    const remote = await worker.call('openCheckpoint', [files, { workers: 1 }]);
    const there = await remote.gradients(IDS);
    assert.equal(there.loss, here.loss);
    assert.deepEqual(there.streamGrads, here.streamGrads);
    assert.deepEqual(there.paramGradNorms, here.paramGradNorms);
    await remote.dispose();
  } finally {
    ckpt.dispose();
    worker.terminate();
  }
});

test('files read from disk, the head in more than one chunk, give the numbers of the same bytes in memory', async () => {
  // 600,000 x 8 float32 head rows: 19.2 MB, two 16 MB chunks, the second shorter
  const config = makeConfig('llama');
  Object.assign(config, { vocab_size: 600000, hidden_size: 8, num_attention_heads: 2, num_key_value_heads: 1 });
  Object.assign(config, { intermediate_size: 8 });
  const { files } = makeCheckpoint({ family: 'llama', config, seed: 6 });
  const dir = mkdtempSync(join(tmpdir(), 'rl-backward-'));
  try {
    const paths = {};
    for (const [name, bytes] of Object.entries(files)) {
      if (typeof bytes === 'string') paths[name] = bytes;
      else writeFileSync((paths[name] = join(dir, name)), bytes);
    }
    const results = [];
    for (const given of [files, paths]) {
      const ckpt = await lab.openCheckpoint(given, { workers: 1 });
      try {
        results.push(await ckpt.gradients([3, 599999, 5, 40]));
      } finally {
        ckpt.dispose();
      }
    }
    assert.ok(results[1].reads.bytes > 2 * 16e6, 'the head was read whole, twice');
    assert.equal(results[1].loss, results[0].loss);
    assert.deepEqual(results[1].streamGrads, results[0].streamGrads);
    assert.deepEqual(results[1].paramGradNorms, results[0].paramGradNorms);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
