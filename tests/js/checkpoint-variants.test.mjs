// options.variants: runs that differ only in the layers they skip, the offset their norms read or their final norm,
// in one pass over the weights. Each variant's logits (and lens) equal those of its own run, on every family, on one
// thread and split over two workers (the variants' rows stacked into the same matmuls either way), and the model is
// read once; the wrong-convention and no-final-norm experiments are such runs.
//   node --test tests/js/checkpoint-variants.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointClaims as experiments, load } from '../../dist/lib/residual-lab.js';
import { FAMILIES, makeCheckpoint, weightsOnDisk } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { referenceForward } from '../fixtures/checkpoints/reference.mjs';
import { assertRelativelyClose } from '../fixtures/float64.mjs';

const IDS = [3, 17, 5, 40, 11, 2, 29];
let lab;
const dir = mkdtempSync(join(tmpdir(), 'rl-ckpt-variants-'));
before(async () => {
  lab = await load();
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("each variant's logits are its own run's, every family, 1 and 2 workers; the weights are read once", async () => {
  for (const family of FAMILIES) {
    const fixture = makeCheckpoint({ family, dtype: 'BF16', sharded: family === 'gemma3', seed: 31 });
    const files = weightsOnDisk(fixture, dir, family);
    for (const workers of [1, 2]) {
      const ckpt = await lab.openCheckpoint(files, { workers, residencyBudget: 0 });
      try {
        const L = ckpt.forward.layers;
        // every single layer dropped, two layers dropped, none dropped
        const variants = [...Array.from({ length: L }, (_, l) => [l]), [0, L - 1], []];
        const one = await ckpt.run(IDS, { hiddenStates: true, variants });
        const alone = await ckpt.run(IDS, { hiddenStates: true });
        assert.deepEqual(one.logits, alone.logits, `${family}, ${workers}: the run's own numbers are unchanged`);
        assert.deepEqual(one.hiddenStates, alone.hiddenStates, `${family}, ${workers}`);
        assert.equal(one.reads.bytes, alone.reads.bytes, `${family}, ${workers}: the weights read once for all`);
        const V = alone.logits.length;
        assert.equal(one.variantLogits.length, variants.length * V);
        for (const [k, skipLayers] of variants.entries()) {
          const separate = await ckpt.run(IDS, { intervene: { skipLayers } });
          const got = one.variantLogits.subarray(k * V, (k + 1) * V);
          assertRelativelyClose(got, separate.logits, `${family}, ${workers} workers, skip [${skipLayers}]`, 1e-6);
          if (k === 0 && workers === 1) {
            const ref = referenceForward(family, fixture.config, fixture.tensors, IDS, { skipLayers });
            assertRelativelyClose(got, ref.logits.subarray(ref.logits.length - V), `${family} skip 0, float64`, 1e-4);
          }
        }
      } finally {
        ckpt.dispose();
      }
    }
  }
});

test('bad variants are refused with a message naming them', async () => {
  const fixture = makeCheckpoint({ family: 'llama', seed: 32 });
  const ckpt = await lab.openCheckpoint(fixture.files, { workers: 1 });
  try {
    const L = ckpt.forward.layers;
    for (const variants of [[[L]], [[-1]], [[0.5]], 'x', [3]])
      await assert.rejects(
        () => ckpt.run(IDS, { variants }),
        (error) => error.code === 'invalid_input' && /variants/.test(error.message),
        JSON.stringify(variants),
      );
    const good = await ckpt.run(IDS, { variants: [[1]] });
    assert.ok(good.variantLogits.every(Number.isFinite), 'the module still runs');
  } finally {
    ckpt.dispose();
  }
});

test('variants read at variantPosition, through what noFinalNorm leaves of the final norm, 1 and 2 workers', async () => {
  const fixture = makeCheckpoint({ family: 'qwen3', dtype: 'BF16', seed: 33 });
  const files = weightsOnDisk(fixture, dir, 'position');
  const t = 2;
  for (const workers of [1, 2]) {
    const ckpt = await lab.openCheckpoint(files, { workers });
    try {
      const L = ckpt.forward.layers;
      const variants = [[0], [L - 1], []];
      for (const noFinalNorm of [false, 'division', true]) {
        const one = await ckpt.run(IDS, { logits: 'all', intervene: { noFinalNorm }, variants, variantPosition: t });
        const V = one.logits.length / IDS.length;
        for (const [k, skipLayers] of variants.entries()) {
          const separate = await ckpt.run(IDS, { logits: 'all', intervene: { skipLayers, noFinalNorm } });
          assertRelativelyClose(
            one.variantLogits.subarray(k * V, (k + 1) * V),
            separate.logits.subarray(t * V, (t + 1) * V),
            `${workers} workers, noFinalNorm ${noFinalNorm}, skip [${skipLayers}] at position ${t}`,
            1e-6,
          );
        }
      }
      await assert.rejects(
        () => ckpt.run(IDS, { variants, variantPosition: IDS.length }),
        (error) => error.code === 'invalid_input' && /variantPosition/.test(error.message),
      );
    } finally {
      ckpt.dispose();
    }
  }
});

test("a run's observations are its own stream's with variants beside it: q/k norms' inputs too, split or not", async () => {
  for (const family of ['qwen3', 'olmo2', 'gemma3_text']) {
    const fixture = makeCheckpoint({ family, dtype: 'BF16', seed: 34 });
    const files = weightsOnDisk(fixture, dir, `observe-${family}`);
    const single = await lab.openCheckpoint(files, { workers: 1 });
    const split = await lab.openCheckpoint(files, { workers: 2 });
    try {
      const T = IDS.length,
        L = single.forward.layers;
      const collect = ['normInputs', 'attnScores', 'residMid'];
      const alone = await single.run(IDS, { collect });
      for (const [ckpt, workers] of [
        [single, 1],
        [split, 2],
      ]) {
        const r = await ckpt.run(IDS, { collect, variants: Array.from({ length: L }, (_, l) => [l]) });
        for (let l = 0; l < L; l++) {
          const [got, want] = [r.collected.normInputs[l], alone.collected.normInputs[l]];
          assert.equal(got.length, 6 * T);
          // rows 4 and 5: the mean squares at q_norm's and k_norm's inputs, which this layout has
          assert.ok(
            want.subarray(4 * T).some((v) => v > 0),
            `${family}: layer ${l} has q/k norm inputs`,
          );
          assertRelativelyClose(got, want, `${family}, ${workers} workers, layer ${l}: norm inputs`, 1e-5);
          assertRelativelyClose(r.collected.attnScores[l], alone.collected.attnScores[l], `${family} scores`, 1e-5);
          assertRelativelyClose(r.collected.residMid[l], alone.collected.residMid[l], `${family} resid_mid`, 1e-5);
        }
      }
    } finally {
      single.dispose();
      split.dispose();
    }
  }
});

test("variants with another norm offset or final norm: logits and lens are their own runs', every family, 1 and 2 workers", async () => {
  const t = 3;
  for (const family of FAMILIES) {
    const fixture = makeCheckpoint({ family, dtype: 'BF16', sharded: family === 'gemma3', seed: 35 });
    const files = weightsOnDisk(fixture, dir, `offset-${family}`);
    for (const workers of [1, 2]) {
      const ckpt = await lab.openCheckpoint(files, { workers, residencyBudget: 0 });
      try {
        const wrong = 1 - ckpt.forward.normOffset;
        const variants = [
          { normOffset: wrong },
          { noFinalNorm: 'division' },
          { noFinalNorm: true },
          { skipLayers: [1], normOffset: wrong, noFinalNorm: 'division' },
          [0],
        ];
        const lens = { k: 4, position: t };
        // the variants read at the lens's row, then at another one (every variant row then computed)
        for (const at of [t, t + 1]) {
          const one = await ckpt.run(IDS, { lens, variants, variantPosition: at });
          const alone = await ckpt.run(IDS, { lens });
          assert.deepEqual(one.logits, alone.logits, `${family}, ${workers}: the run's own numbers are unchanged`);
          assert.equal(one.reads.bytes, alone.reads.bytes, `${family}, ${workers}: the weights read once for all`);
          const V = alone.logits.length;
          for (const [k, variant] of variants.entries()) {
            const { skipLayers = [], ...intervene } = Array.isArray(variant) ? { skipLayers: variant } : variant;
            const what = `${family}, ${workers} workers, variant ${JSON.stringify(variant)} at ${at}, lens at ${t}`;
            const separate = await ckpt.run(IDS, { logits: 'all', lens, intervene: { skipLayers, ...intervene } });
            const row = separate.logits.subarray(at * V, (at + 1) * V);
            assertRelativelyClose(one.variantLogits.subarray(k * V, (k + 1) * V), row, what, 1e-6);
            const got = one.variantLens[k].layers,
              want = separate.lens.layers;
            assert.equal(got.length, want.length, what);
            got.forEach((state, i) => {
              assert.deepEqual(state.ids, want[i].ids, `${what}: lens state ${i}`);
              assertRelativelyClose(state.logits, want[i].logits, `${what}: lens state ${i}`, 1e-6);
            });
          }
        }
      } finally {
        ckpt.dispose();
      }
    }
  }
});

test("the wrong convention and no final norm are one run each: their numbers are the separate runs', the model read once", async () => {
  for (const family of ['llama', 'gemma3', 'qwen2', 'gemma2', 'olmo2']) {
    const fixture = makeCheckpoint({ family, dtype: 'BF16', seed: 36 });
    const files = weightsOnDisk(fixture, dir, `experiments-${family}`);
    for (const workers of [1, 2]) {
      const ckpt = await lab.openCheckpoint(files, { workers, residencyBudget: 0 });
      try {
        let runs = 0,
          bytes = 0;
        const counted = {
          forward: ckpt.forward,
          normWeights: () => ckpt.normWeights(),
          run: async (ids, options) => {
            const r = await ckpt.run(ids, options);
            runs += 1;
            bytes += r.reads.bytes;
            return r;
          },
        };
        const oneRun = (await ckpt.run(IDS)).reads.bytes;
        const t = 2,
          k = 3,
          V = ckpt.forward.vocab,
          what = `${family}, ${workers} workers`;
        const right = ckpt.forward.normOffset;
        const wc = await experiments.wrongConvention(counted, IDS, { k, position: t });
        assert.deepEqual([runs, bytes], [1, oneRun], `${what}: the wrong convention reads the model once`);
        for (const [side, normOffset] of [
          ['right', right],
          ['wrong', 1 - right],
        ]) {
          const r = await ckpt.run(IDS, { logits: 'all', lens: { k, position: t }, intervene: { normOffset } });
          const row = r.logits.subarray(t * V, (t + 1) * V);
          const top = Array.from(row.keys()).sort((a, b) => row[b] - row[a] || a - b);
          assert.deepEqual(Array.from(wc[side].ids), top.slice(0, k), `${what}: ${side} top tokens`);
          assert.equal(wc[side].normOffset, normOffset);
          wc[side].lens.layers.forEach((state, i) => {
            assert.deepEqual(state.ids, r.lens.layers[i].ids, `${what}: ${side} lens state ${i}`);
            assertRelativelyClose(state.probs, r.lens.layers[i].probs, `${what}: ${side} lens ${i}`, 1e-5);
          });
        }
        [runs, bytes] = [0, 0];
        const nf = await experiments.noFinalNorm(counted, IDS, { k, position: t });
        assert.deepEqual([runs, bytes], [1, oneRun], `${what}: no final norm reads the model once`);
        const real = await ckpt.run(IDS, { logits: 'all', hiddenStates: true });
        for (const [field, noFinalNorm] of [
          ['raw', 'division'],
          ['noGain', true],
        ]) {
          // the separate run as the experiment made it before: the head alone, from the full run's last stream
          const r = await ckpt.run(IDS, {
            logits: 'all',
            intervene: { from: { layer: ckpt.forward.layers, stream: real.hiddenStates.at(-1) }, noFinalNorm },
          });
          const row = r.logits.subarray(t * V, (t + 1) * V);
          const top = Array.from(row.keys()).sort((a, b) => row[b] - row[a] || a - b);
          assert.deepEqual(Array.from(nf[field].ids), top.slice(0, k), `${what}: ${field} top tokens`);
          const m = Math.max(...row);
          const sum = row.reduce((a, z) => a + Math.exp(z - m), 0);
          assertRelativelyClose(
            nf[field].probs,
            Float64Array.from(top.slice(0, k), (j) => Math.exp(row[j] - m) / sum),
            `${what}: ${field}`,
            1e-5,
          );
        }
      } finally {
        ckpt.dispose();
      }
    }
  }
});
