// Weights read where they lie: a checkpoint given as Blobs (node: fs.openAsBlob, a browser's File) is opened from
// its headers and run from byte ranges. A counting Blob shows what each run reads; the results equal those of the
// same files given as bytes, and the float64 reference's.
//   node --test tests/js/checkpoint-files.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from '../../dist/lib/residual-lab.js';
import { FAMILIES, makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { referenceForward } from '../fixtures/checkpoints/reference.mjs';
import { assertRelativelyClose } from '../fixtures/float64.mjs';

const IDS = [3, 17, 5, 40, 11, 2, 29];
let lab;
const dir = mkdtempSync(join(tmpdir(), 'rl-ckpt-files-'));
before(async () => {
  lab = await load();
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A Blob whose every read is logged as [begin, end) in file offsets (slices of slices included). */
function countingBlob(blob, log, base = 0) {
  return {
    size: blob.size,
    slice(begin = 0, end = blob.size) {
      return countingBlob(blob.slice(begin, end), log, base + begin);
    },
    async arrayBuffer() {
      log.push([base, base + blob.size]);
      return blob.arrayBuffer();
    },
  };
}

/** The fixture's files with every weights file a counting Blob; logs: file name -> its reads. */
function countedFiles(files) {
  const logs = new Map();
  const out = {};
  for (const [name, content] of Object.entries(files)) {
    if (!name.endsWith('.safetensors')) {
      out[name] = content;
      continue;
    }
    logs.set(name, []);
    out[name] = countingBlob(new Blob([content]), logs.get(name));
  }
  return { files: out, logs };
}

test('Blobs give the same numbers as bytes and the float64 reference, single file and shards', async () => {
  for (const [family, sharded] of [
    ['llama', false],
    ['gemma2', true],
    ['olmo2', true],
    ['qwen3', false],
  ]) {
    const fixture = makeCheckpoint({ family, dtype: 'BF16', sharded, seed: 9 });
    const asBlobs = Object.fromEntries(
      Object.entries(fixture.files).map(([n, c]) => [n, n.endsWith('.safetensors') ? new Blob([c]) : c]),
    );
    const [fromBytes, fromBlobs] = [await lab.openCheckpoint(fixture.files), await lab.openCheckpoint(asBlobs)];
    try {
      const a = await fromBytes.run(IDS, { logits: 'all', hiddenStates: true });
      const b = await fromBlobs.run(IDS, { logits: 'all', hiddenStates: true });
      assert.deepEqual(b.logits, a.logits, family);
      assert.deepEqual(b.hiddenStates, a.hiddenStates, family);
      const ref = referenceForward(family, fixture.config, fixture.tensors, IDS);
      assertRelativelyClose(b.logits, ref.logits, `${family} logits`, 1e-4);
      assert.deepEqual(await fromBlobs.normWeights(), await fromBytes.normWeights());
    } finally {
      fromBytes.dispose();
      fromBlobs.dispose();
    }
  }
});

test('opening reads the headers only; a run reads each tensor once and never a whole file', async () => {
  const fixture = makeCheckpoint({ family: 'llama', dtype: 'F16', sharded: true, seed: 4 });
  const { files, logs } = countedFiles(fixture.files);
  const ckpt = await lab.openCheckpoint(files, { workers: 1 }); // a counting Blob cannot be posted to a worker
  try {
    const headerOf = (bytes) => 8 + Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
    for (const [name, log] of logs) {
      const limit = headerOf(fixture.files[name]);
      assert.ok(log.length > 0, `${name} was read at open`);
      assert.ok(
        log.every(([, end]) => end <= limit),
        `${name}: open read only its first ${limit} bytes (read ${JSON.stringify(log)})`,
      );
      log.length = 0;
    }
    const predicted = ckpt.cost(IDS.length).bytesRead;
    const r = await ckpt.run(IDS);
    // every tensor's range once (the embedding by rows, the tied head in chunks), the header for the change check
    const tensors = new Map(ckpt.tensors.map((t) => [t.name, t]));
    let tensorBytes = 0;
    for (const [name, log] of logs) {
      const size = fixture.files[name].length;
      const header = headerOf(fixture.files[name]);
      const data = log.filter(([begin]) => begin >= header);
      assert.ok(
        log.every(([begin, end]) => end - begin < size),
        `${name}: no read of the whole file (${JSON.stringify(log)})`,
      );
      // no byte of the data part read twice in one run
      const sorted = data.toSorted((a, b) => a[0] - b[0]);
      sorted.slice(1).forEach(([begin], i) => assert.ok(begin >= sorted[i][1], `${name}: a byte read twice`));
      tensorBytes += data.reduce((n, [b, e]) => n + e - b, 0);
    }
    assert.equal(tensors.size, fixture.tensors.size);
    assert.equal(r.reads.bytes, tensorBytes, 'the run counts what it read');
    assert.equal(tensorBytes, predicted, 'cost() said what the run would read');
    assert.ok(r.reads.peakHeldBytes < Math.max(...[...logs.keys()].map((n) => fixture.files[n].length)));
  } finally {
    ckpt.dispose();
  }
});

test('a memory limit below the file runs layer by layer within it; below one layer it is refused', async () => {
  const fixture = makeCheckpoint({ family: 'qwen2', dtype: 'F32', seed: 2 });
  const size = fixture.files['model.safetensors'].length;
  const ckpt = await lab.openCheckpoint(
    { ...fixture.files, 'model.safetensors': new Blob([fixture.files['model.safetensors']]) },
    { workers: 1 }, // the limit is this thread's: a split run holds a share of each layer per worker
  );
  try {
    const whole = await ckpt.run(IDS);
    const limit = Math.ceil(size / 2);
    const limited = await ckpt.run(IDS, { memoryLimit: limit });
    assert.deepEqual(limited.logits, whole.logits);
    assert.ok(limited.reads.peakHeldBytes <= limit, `held ${limited.reads.peakHeldBytes} of a ${limit}-byte limit`);
    await assert.rejects(
      () => ckpt.run(IDS, { memoryLimit: 1000 }),
      (error) => error.code === 'out_of_memory' && /memory limit/.test(error.message),
    );
    await assert.rejects(
      () => ckpt.run(IDS, { memoryLimit: -1 }),
      (error) => error.code === 'invalid_input',
    );
  } finally {
    ckpt.dispose();
  }
});

test('a file that shrinks or is replaced after opening is refused with file_changed, not read as garbage', async () => {
  const fixture = makeCheckpoint({ family: 'mistral', dtype: 'BF16', seed: 6 });
  const path = join(dir, 'model.safetensors');
  const bytes = fixture.files['model.safetensors'];
  const reference = await lab.openCheckpoint(fixture.files);
  const expected = (await reference.run(IDS)).logits;
  reference.dispose();
  // node's two ways to a file on disk: a Blob (fs.openAsBlob, as a browser's File) and a path
  for (const [how, opener] of [
    ['openAsBlob', () => openAsBlob(path)],
    ['path', () => path],
  ]) {
    for (const change of ['shrink', 'replace']) {
      writeFileSync(path, bytes);
      // read every run (residencyBudget 0): a resident model reads no weight after its first run
      const ckpt = await lab.openCheckpoint(
        { ...fixture.files, 'model.safetensors': await opener() },
        { residencyBudget: 0 },
      );
      try {
        assert.deepEqual((await ckpt.run(IDS)).logits, expected, how);
        if (change === 'shrink') writeFileSync(path, bytes.subarray(0, bytes.length - 1000));
        else writeFileSync(path, makeCheckpoint({ family: 'llama', dtype: 'F32', seed: 1 }).files['model.safetensors']);
        await assert.rejects(
          () => ckpt.run(IDS),
          (error) => error.code === 'file_changed' && /model\.safetensors/.test(error.message),
          `${how}: ${change}`,
        );
      } finally {
        ckpt.dispose();
      }
    }
  }
  await assert.rejects(
    () => lab.openCheckpoint({ ...fixture.files, 'model.safetensors': join(dir, 'absent.safetensors') }),
    (error) => error.code === 'missing_file' && /absent\.safetensors/.test(error.message),
  );
});

test('onProgress reports every layer; an aborted signal cancels between layers and frees the heap', async () => {
  const fixture = makeCheckpoint({ family: 'gemma3_text', dtype: 'BF16', seed: 8 });
  const L = fixture.config.num_hidden_layers;
  const before = lab.memoryBudget();
  const ckpt = await lab.openCheckpoint(fixture.files);
  try {
    const seen = [];
    const predicted = ckpt.cost(IDS.length).bytesRead;
    await ckpt.run(IDS, { onProgress: (p) => seen.push(p) });
    const afterRun = lab.memoryBudget().usedBytes; // the layer activations' block, kept until dispose
    assert.deepEqual(
      seen.map((p) => [p.stage, p.layer]),
      [...Array.from({ length: L }, (_, i) => ['layer', i + 1]), ['head', L]],
    );
    assert.equal(seen.at(-1).bytesRead, predicted);
    assert.equal(seen.at(-1).bytesTotal, predicted);
    const controller = new AbortController();
    await assert.rejects(
      () => ckpt.run(IDS, { signal: controller.signal, onProgress: (p) => p.layer === 1 && controller.abort() }),
      (error) => error.name === 'AbortError',
    );
    assert.equal(lab.memoryBudget().usedBytes, afterRun, "a cancelled run's blocks are freed");
  } finally {
    ckpt.dispose();
  }
  assert.deepEqual(lab.memoryBudget(), before, 'dispose gives everything back');
});

test("a run split over 2 and 3 workers, each reading its rows from the file, gives one worker's numbers, every family", async () => {
  for (const family of FAMILIES) {
    const fixture = makeCheckpoint({ family, dtype: 'BF16', sharded: family === 'gemma3', seed: 12 });
    const files = { ...fixture.files };
    for (const name of Object.keys(files).filter((n) => n.endsWith('.safetensors'))) {
      writeFileSync(join(dir, `${family}-${name}`), files[name]);
      files[name] = join(dir, `${family}-${name}`);
    }
    const runs = [];
    for (const workers of [1, 2, 3]) {
      const ckpt = await lab.openCheckpoint(files, { workers });
      try {
        assert.equal(ckpt.workers, workers);
        runs.push(await ckpt.run(IDS, { logits: 'all', hiddenStates: true, lens: { k: 4, position: 3 } }));
      } finally {
        ckpt.dispose();
      }
    }
    const ref = referenceForward(family, fixture.config, fixture.tensors, IDS);
    runs[2].hiddenStates.forEach((h, i) =>
      assertRelativelyClose(h, ref.hidden[i], `${family} 3 workers h[${i}]`, 1e-4),
    );
    for (const [n, run] of [
      [2, runs[1]],
      [3, runs[2]],
    ]) {
      // the same kernels over the same inputs: the very numbers of one worker
      assert.deepEqual(run.hiddenStates, runs[0].hiddenStates, `${family}, ${n} workers`);
      assert.deepEqual(run.logits, runs[0].logits, `${family}, ${n} workers`);
      assert.deepEqual(run.lens, runs[0].lens, `${family}, ${n} workers`);
      assert.equal(run.reads.bytes, runs[0].reads.bytes, `${family}: ${n} workers read each byte once`);
      assert.equal(run.reads.workerHeapBytes.length, n, `${family}: each worker's heap reported`);
      assert.ok(
        run.reads.workerHeapBytes.every((b) => b >= 65536),
        `${family}: a heap is at least one WASM page`,
      );
    }
    assert.deepEqual(runs[0].reads.workerHeapBytes, [], 'one worker: no split workers');
  }
});

// The worker threads alive, counted as they start and exit (an idle worker is unref'd, so node's list of active
// resources does not show it): the lab starts them through node:worker_threads' Worker, the same object as here.
const liveWorkers = new Set();
const threadsModule = createRequire(import.meta.url)('node:worker_threads');
threadsModule.Worker = class CountedWorker extends threadsModule.Worker {
  constructor(...args) {
    super(...args);
    liveWorkers.add(this);
    this.once('exit', () => liveWorkers.delete(this));
  }
};

test('a cancelled split run ends its workers and frees the rows this thread kept; the next run starts anew', async () => {
  const fixture = makeCheckpoint({ family: 'qwen3', dtype: 'F16', seed: 13 });
  const path = join(dir, 'cancel.safetensors');
  writeFileSync(path, fixture.files['model.safetensors']);
  const usedBefore = lab.memoryBudget().usedBytes;
  const ckpt = await lab.openCheckpoint({ ...fixture.files, 'model.safetensors': path }, { workers: 3 });
  const threads = () => liveWorkers.size;
  const used = () => lab.memoryBudget().usedBytes - usedBefore;
  try {
    const whole = await ckpt.run(IDS);
    // three shares: this thread's and two workers'; each keeps its rows (the fixture fits the residency budget)
    assert.equal(threads(), 2, 'two worker threads while the checkpoint is open');
    const [ownShare, ...workerShares] = ckpt.residency().workerKeptBytes;
    assert.equal(workerShares.length, 2);
    assert.ok(ownShare > 0 && workerShares.every((b) => b > 0), 'every share kept its rows');
    assert.ok(used() >= ownShare, "this thread's heap holds its share");
    const usedWarm = used();
    const controller = new AbortController();
    await assert.rejects(
      () => ckpt.run(IDS, { signal: controller.signal, onProgress: () => controller.abort() }),
      (error) => error.name === 'AbortError',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(threads(), 0, 'the cancelled run ended its workers');
    assert.ok(used() <= usedWarm - ownShare, `this thread's share freed: ${used()} of ${usedWarm} bytes still used`);
    assert.deepEqual((await ckpt.run(IDS)).logits, whole.logits);
  } finally {
    ckpt.dispose();
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(threads(), 0, 'dispose ended the workers');
  assert.equal(used(), 0, 'dispose freed every block this thread kept');
  await assert.rejects(
    () => lab.openCheckpoint(fixture.files, { workers: 0 }),
    (error) => error.code === 'invalid_input' && /workers/.test(error.message),
  );
});

test("normWeights reads the norms' bytes once: a later call reads the headers alone and gives the same rows", async () => {
  const fixture = makeCheckpoint({ family: 'llama', dtype: 'BF16', sharded: true, seed: 6 });
  const { files, logs } = countedFiles(fixture.files);
  const ckpt = await lab.openCheckpoint(files, { workers: 1 });
  try {
    const headerOf = (bytes) => 8 + Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
    const dataReads = () =>
      [...logs].flatMap(([name, log]) => log.filter(([begin]) => begin >= headerOf(fixture.files[name])));
    for (const log of logs.values()) log.length = 0;
    const first = await ckpt.normWeights();
    const norms = ckpt.tensors.filter((t) => /norm/.test(t.name));
    assert.equal(dataReads().length, norms.length, 'the first call reads every norm tensor');
    assert.equal(first.length, norms.length);
    first[0].mean = NaN; // what a caller does to its rows stays with it
    for (const log of logs.values()) log.length = 0;
    const again = await ckpt.normWeights();
    assert.deepEqual(dataReads(), [], 'a later call reads no tensor');
    assert.ok(
      [...logs.values()].every((log) => log.length > 0),
      'a later call still checks every file is unchanged',
    );
    const fromBytes = await lab.openCheckpoint(fixture.files);
    try {
      assert.deepEqual(again, await fromBytes.normWeights());
    } finally {
      fromBytes.dispose();
    }
  } finally {
    ckpt.dispose();
  }
});
