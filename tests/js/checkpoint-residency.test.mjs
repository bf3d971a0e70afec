// Residency: a model within options.residencyBudget keeps what a run read in the WASM heaps, so the next run reads
// nothing and gives the same numbers; split runs keep each worker's own rows (the model held once between them);
// cost() predicts the reads; a model over the budget reads every run; dispose() gives the memory back.
//   node --test tests/js/checkpoint-residency.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from '../../dist/lib/residual-lab.js';
import { FAMILIES, makeCheckpoint, weightsOnDisk } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { referenceForward } from '../fixtures/checkpoints/reference.mjs';
import { assertRelativelyClose } from '../fixtures/float64.mjs';

const IDS = [3, 17, 5, 40, 11, 2, 29];
let lab;
const dir = mkdtempSync(join(tmpdir(), 'rl-ckpt-resident-'));
before(async () => {
  lab = await load();
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('a resident model reads nothing on its second run and gives the streamed numbers, every family, 1 and 2 workers', async () => {
  for (const family of FAMILIES) {
    const fixture = makeCheckpoint({ family, dtype: 'BF16', sharded: family === 'gemma3', seed: 21 });
    const files = weightsOnDisk(fixture, dir, family);
    const options = { logits: 'all', hiddenStates: true };
    const streamed = await lab.openCheckpoint(files, { workers: 1, residencyBudget: 0 });
    let base, baseGradients;
    try {
      base = await streamed.run(IDS, options);
      baseGradients = await streamed.gradients(IDS);
      const again = await streamed.run(IDS, options);
      assert.equal(streamed.residency().mode, 'streamed');
      assert.equal(again.reads.bytes, base.reads.bytes, `${family}: a streamed model reads every run`);
      assert.equal(streamed.residency().keptBytes, 0);
    } finally {
      streamed.dispose();
    }
    const ref = referenceForward(family, fixture.config, fixture.tensors, IDS);
    assertRelativelyClose(base.logits, ref.logits, `${family} logits`, 1e-4);
    for (const workers of [1, 2]) {
      const ckpt = await lab.openCheckpoint(files, { workers, residencyBudget: 1 << 30 });
      try {
        assert.equal(ckpt.cost(IDS).bytesRead, base.reads.bytes, `${family}: cold, cost() predicts a full read`);
        const first = await ckpt.run(IDS, options);
        assert.equal(first.reads.bytes, base.reads.bytes, `${family}, ${workers}: the first run reads each byte once`);
        const residency = ckpt.residency();
        assert.equal(residency.mode, 'resident');
        assert.equal(residency.warm, true, `${family}, ${workers}: every weight held after one run`);
        assert.equal(ckpt.cost(IDS).bytesRead, 0, `${family}, ${workers}: cost() predicts no read`);
        const second = await ckpt.run(IDS, options);
        assert.equal(second.reads.bytes, 0, `${family}, ${workers}: a warm resident run reads nothing`);
        assert.deepEqual(second.logits, first.logits, `${family}, ${workers}`);
        assert.deepEqual(second.hiddenStates, first.hiddenStates, `${family}, ${workers}`);
        assert.deepEqual(second.logits, base.logits, `${family}, ${workers}: the streamed run's numbers`);
        // a new token's embedding row is the only read
        const rowBytes = ckpt.forward.d * 2;
        const fresh = [...IDS.slice(0, 6), 1];
        assert.equal(ckpt.cost(fresh).bytesRead, rowBytes);
        assert.equal((await ckpt.run(fresh)).reads.bytes, rowBytes, `${family}, ${workers}: one new embedding row`);
        // the gradients on what the residency keeps: the same forward (the same loss); split, each backward
        // product is the workers' shares summed, so the same numbers up to the order of that sum
        const gradients = await ckpt.gradients(IDS);
        assert.equal(gradients.loss, baseGradients.loss, `${family}, ${workers}: the loss`);
        if (workers === 1) assert.deepEqual(gradients.streamGrads, baseGradients.streamGrads, `${family}, ${workers}`);
        else
          gradients.streamGrads.forEach((g, i) =>
            assertRelativelyClose(g, baseGradients.streamGrads[i], `${family}, 2 workers: streamGrads[${i}]`, 1e-4),
          );
        // where the run's time went (no speed is asserted: the split's figures are docs/checkpoints.md's)
        const { seconds, readWaitSeconds, exchangeWaitSeconds, workerBusySeconds } = second.timings;
        assert.equal(readWaitSeconds, 0, `${family}, ${workers}: nothing read, nothing waited for`);
        assert.ok(seconds > 0 && exchangeWaitSeconds <= seconds);
        assert.equal(workerBusySeconds.length, workers === 1 ? 0 : 2);
        assert.equal(exchangeWaitSeconds > 0, workers === 2, `${family}, ${workers}: the workers were waited for`);
        if (workers === 2) {
          const [a, b] = residency.workerKeptBytes;
          assert.ok(a > 0 && b > 0, `${family}: each worker keeps its rows`);
          // no weight held twice: what the heaps keep is at most the model's bytes (norms widened to float32 aside)
          assert.ok(residency.keptBytes <= residency.modelBytes * 1.1, `${family}: kept ${residency.keptBytes}`);
          assert.ok(a + b < residency.modelBytes, `${family}: the workers hold the projections once between them`);
        }
      } finally {
        ckpt.dispose();
      }
    }
  }
});

test('a model over the budget reads every run; dispose frees what a resident one kept', async () => {
  const fixture = makeCheckpoint({ family: 'qwen2', dtype: 'F16', seed: 22 });
  const size = fixture.files['model.safetensors'].length;
  const before = lab.memoryBudget();
  const over = await lab.openCheckpoint(fixture.files, { workers: 1, residencyBudget: size / 2 });
  try {
    const a = await over.run(IDS);
    const b = await over.run(IDS);
    assert.equal(over.residency().mode, 'streamed');
    assert.ok(b.reads.bytes > 0 && b.reads.bytes === a.reads.bytes);
    assert.equal(over.cost(IDS).bytesRead, b.reads.bytes);
  } finally {
    over.dispose();
  }
  const ckpt = await lab.openCheckpoint(fixture.files, { workers: 1, residencyBudget: size * 2 });
  await ckpt.run(IDS);
  assert.ok(lab.memoryBudget().usedBytes > before.usedBytes + size / 2, 'the weights are held between runs');
  ckpt.dispose();
  assert.deepEqual(lab.memoryBudget(), before, 'dispose gives the kept weights back');
  await assert.rejects(
    () => lab.openCheckpoint(fixture.files, { residencyBudget: -1 }),
    (error) => error.code === 'invalid_input' && /residencyBudget/.test(error.message),
  );
});

test('the default budget keeps a small model and says so', async () => {
  const fixture = makeCheckpoint({ family: 'llama', dtype: 'BF16', seed: 23 });
  const ckpt = await lab.openCheckpoint(fixture.files, { workers: 1 });
  try {
    const residency = ckpt.residency();
    assert.equal(residency.mode, 'resident');
    assert.ok(residency.budgetBytes >= residency.modelBytes);
    assert.ok(residency.budgetBytes <= lab.memoryBudget().budgetBytes, "one thread: no more than its heap's budget");
    await ckpt.run(IDS);
    assert.equal((await ckpt.run(IDS)).reads.bytes, 0);
  } finally {
    ckpt.dispose();
  }
});
