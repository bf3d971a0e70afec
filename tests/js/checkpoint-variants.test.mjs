// options.variants: runs that differ only in the layers they skip, in one pass over the weights. Each variant's
// logits equal those of its own run (skipLayers), on every family, on one thread and split over two workers (where
// the variants' rows are stacked into the same matmuls), and the model is read once.
//   node --test tests/js/checkpoint-variants.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from '../../dist/lib/residual-lab.js';
import { FAMILIES, makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';
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
    const files = { ...fixture.files };
    for (const name of Object.keys(files).filter((n) => n.endsWith('.safetensors'))) {
      writeFileSync(join(dir, `${family}-${name}`), files[name]);
      files[name] = join(dir, `${family}-${name}`);
    }
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
