// lab.openCheckpoint against a float64 forward written from the Transformers modeling code
// (tests/fixtures/checkpoints/reference.mjs), on seeded tiny checkpoints of every family, dtype, single file
// and sharded, tied and untied head; and the properties a reader relies on.
//   node --test tests/js/checkpoint.test.mjs     after `node scripts/build.mjs` (uses dist/lib/residual-lab.js)
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from '../../dist/lib/residual-lab.js';
import { DTYPES, FAMILIES, makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { referenceForward } from '../fixtures/checkpoints/reference.mjs';
import { assertRelativelyClose } from '../fixtures/float64.mjs';
import { findRow } from '../../web/lib/options.js';

const IDS = [3, 17, 5, 40, 11, 2, 29]; // 7 positions: past the fixtures' sliding window of 3
let lab;
before(async () => {
  lab = await load();
});

const close = (actual, expected, what, tol = 1e-4) => assertRelativelyClose(actual, expected, what, tol);
const rowNorms = (x, d) =>
  Array.from({ length: x.length / d }, (_, r) => Math.hypot(...x.subarray(r * d, (r + 1) * d)));

describe('every family, dtype, layout and head matches the float64 reference', () => {
  for (const family of FAMILIES) {
    test(family, async () => {
      for (const dtype of DTYPES)
        for (const sharded of [false, true])
          for (const tied of [false, true]) {
            const what = `${family} ${dtype} ${sharded ? 'sharded' : 'single'} ${tied ? 'tied' : 'untied'}`;
            const fixture = makeCheckpoint({ family, dtype, sharded, tied, seed: 7 });
            const ckpt = await lab.openCheckpoint(fixture.files);
            try {
              const r = await ckpt.run(IDS, { logits: 'all', hiddenStates: true });
              const ref = referenceForward(family, fixture.config, fixture.tensors, IDS);
              const d = (fixture.config.text_config ?? fixture.config).hidden_size;
              assert.equal(r.hiddenStates.length, ref.hidden.length);
              ref.hidden.forEach((h, i) => {
                close(r.hiddenStates[i], h, `${what} hiddenStates[${i}]`);
                close(r.streamNorms[i], rowNorms(h, d), `${what} streamNorms[${i}]`);
              });
              ref.attnOut.forEach((a, i) => close(r.attnNorms[i], rowNorms(a, d), `${what} attnNorms[${i}]`));
              ref.mlpOut.forEach((m, i) => close(r.mlpNorms[i], rowNorms(m, d), `${what} mlpNorms[${i}]`));
              close(r.finalHidden, ref.finalHidden, `${what} finalHidden`);
              close(r.finalNorms, rowNorms(ref.finalHidden, d), `${what} finalNorms`);
              close(r.logits, ref.logits, `${what} logits`);
              // the last position's logits alone are the last row of all of them
              const last = await ckpt.run(IDS);
              close(last.logits, ref.logits.subarray(ref.logits.length - last.logits.length), `${what} last logits`);
            } finally {
              ckpt.dispose();
            }
          }
    });
  }
});

describe('properties', () => {
  test('a BF16 file equals the F32 file of the same (bf16-representable) values', async () => {
    for (const family of ['qwen2', 'gemma2']) {
      const runOf = async (dtype) => {
        const ckpt = await lab.openCheckpoint(makeCheckpoint({ family, dtype, roundTo: 'BF16', seed: 3 }).files);
        try {
          return await ckpt.run(IDS, { logits: 'all', hiddenStates: true });
        } finally {
          ckpt.dispose();
        }
      };
      const [bf16, f32] = [await runOf('BF16'), await runOf('F32')];
      assert.deepEqual(bf16.logits, f32.logits, family);
      assert.deepEqual(bf16.hiddenStates, f32.hiddenStates, family);
    }
  });

  test('a sharded checkpoint equals the single file', async () => {
    const runOf = async (sharded) => {
      const ckpt = await lab.openCheckpoint(makeCheckpoint({ family: 'olmo2', dtype: 'F16', sharded, seed: 5 }).files);
      try {
        const { timings, ...numbers } = await ckpt.run(IDS, { logits: 'all', hiddenStates: true, lens: { k: 4 } });
        assert.ok(timings.seconds > 0);
        return numbers; // the timings differ from run to run
      } finally {
        ckpt.dispose();
      }
    };
    assert.deepEqual(await runOf(true), await runOf(false));
  });

  test('the logit lens reads each state through the final norm with its own statistics; its last state is the final logits', async () => {
    for (const family of ['llama', 'gemma2', 'gemma3']) {
      const fixture = makeCheckpoint({ family, dtype: 'F32', seed: 11 });
      const ckpt = await lab.openCheckpoint(fixture.files);
      try {
        const position = 4,
          k = 6;
        const r = await ckpt.run(IDS.slice(0, position + 1), { lens: { k, position }, hiddenStates: true });
        const ref = referenceForward(family, fixture.config, fixture.tensors, IDS.slice(0, position + 1));
        const c = fixture.config.text_config ?? fixture.config;
        const d = c.hidden_size,
          V = c.vocab_size;
        assert.equal(r.lens.layers.length, c.num_hidden_layers + 1);
        r.lens.layers.forEach((layer, i) => {
          const expected = ref.lensLogits(ref.hidden[i].subarray(position * d, (position + 1) * d));
          const order = Array.from(expected.keys())
            .sort((a, b) => expected[b] - expected[a])
            .slice(0, k);
          close(
            layer.logits,
            order.map((j) => expected[j]),
            `${family} lens state ${i}`,
          );
          assert.deepEqual(Array.from(layer.ids), order, `${family} lens state ${i} ids`);
          assert.ok(layer.probs.every((p, j) => p > 0 && p <= 1 && (j === 0 || p <= layer.probs[j - 1])));
        });
        const final = r.lens.layers.at(-1);
        const top = Array.from(r.logits.keys())
          .sort((a, b) => r.logits[b] - r.logits[a])
          .slice(0, k);
        assert.deepEqual(Array.from(final.ids), top, `${family}: the lens's last state ranks as the logits do`);
        close(
          final.logits,
          top.map((j) => r.logits[j]),
          `${family} lens == logits`,
          1e-6,
        );
        assert.equal(r.logits.length, V);
      } finally {
        ckpt.dispose();
      }
    }
  });

  test("Gemma's (1 + w) with w = 0 equals a plain gain of 1", async () => {
    for (const family of ['gemma2', 'gemma3_text']) {
      const zero = makeCheckpoint({ family, dtype: 'F32', zeroNorms: true, seed: 2 });
      const ckpt = await lab.openCheckpoint(zero.files);
      try {
        const r = await ckpt.run(IDS, { logits: 'all', hiddenStates: true });
        const ones = new Map(
          [...zero.tensors].map(([name, t]) => [
            name,
            /norm\.weight$|layernorm\.weight$/.test(name) ? { ...t, values: t.values.map(() => 1) } : t,
          ]),
        );
        const plain = referenceForward(family, zero.config, ones, IDS, { plainGain: true });
        close(r.logits, plain.logits, `${family} logits`);
        close(r.finalHidden, plain.finalHidden, `${family} final`);
        const weights = await ckpt.normWeights();
        assert.ok(
          weights.length > 0 && weights.every((w) => w.mean === 0 && w.multiplier.mean === 1 && w.multiplier.std === 0),
        );
      } finally {
        ckpt.dispose();
      }
    }
  });

  test("normWeights gives each norm tensor's statistics, and 1 + w where the family multiplies by it", async () => {
    for (const family of ['qwen3', 'gemma3_text']) {
      const fixture = makeCheckpoint({ family, dtype: 'BF16', seed: 9 });
      const ckpt = await lab.openCheckpoint(fixture.files);
      try {
        const rows = await ckpt.normWeights();
        const norms = [...fixture.tensors].filter(([name]) => /norm\.weight$/.test(name));
        assert.equal(rows.length, norms.length);
        for (const [name, t] of norms) {
          const row = rows.find((r) => r.name === name);
          const mean = t.values.reduce((a, b) => a + b, 0) / t.values.length;
          assert.ok(Math.abs(row.mean - mean) < 1e-6, name);
          assert.equal(row.min, Math.min(...t.values));
          assert.equal(row.max, Math.max(...t.values));
          if (family.startsWith('gemma')) assert.ok(Math.abs(row.multiplier.mean - (1 + mean)) < 1e-6, name);
          else assert.equal(row.multiplier, null);
        }
      } finally {
        ckpt.dispose();
      }
    }
  });

  test("ckpt.forward.placement names the family's layout in the decoder's words, one the C++ forward runs", async () => {
    const decoderPlacements = findRow(lab.describe(), 'decoder.placement').choices;
    const forwardHpp = readFileSync(new URL('../../wasm/src/checkpoint/forward.hpp', import.meta.url), 'utf8');
    const cppPlacements = forwardHpp.match(/enum class HfPlacement : int \{([^}]*)\}/)[1].match(/\w+(?= =)/g);
    const layouts = { llama: 'pre', gemma2: 'sandwich', olmo2: 'olmo2' }; // 'post' is the decoder's Post-LN
    for (const family of FAMILIES) {
      const ckpt = await lab.openCheckpoint(makeCheckpoint({ family, dtype: 'F32' }).files);
      try {
        const { placement } = ckpt.forward;
        assert.ok(decoderPlacements.includes(placement), `${family}: ${placement} is a decoder placement`);
        assert.ok(cppPlacements.includes(placement), `${family}: ${placement} is a checkpoint::HfPlacement`);
        if (layouts[family]) assert.equal(placement, layouts[family], family);
      } finally {
        ckpt.dispose();
      }
    }
  });

  test('the checkpoint lists its tensors and reads its config with inspectConfig', async () => {
    const fixture = makeCheckpoint({ family: 'qwen2', dtype: 'BF16', sharded: true, tied: true });
    const ckpt = await lab.openCheckpoint(fixture.files);
    try {
      assert.equal(ckpt.architecture, 'qwen2');
      assert.deepEqual(ckpt.config, lab.inspectConfig(fixture.files['config.json']));
      assert.equal(ckpt.tensors.length, fixture.tensors.size);
      const q = ckpt.tensors.find((t) => t.name === 'model.layers.0.self_attn.q_proj.bias');
      assert.deepEqual({ dtype: q.dtype, shape: q.shape }, { dtype: 'BF16', shape: [32] });
    } finally {
      ckpt.dispose();
    }
  });
});
