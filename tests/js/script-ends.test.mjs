// A node script that forgets dispose() still ends when its work does: a checkpoint opened from paths and run over
// two workers, and a lab worker that ran a call, leave nothing holding the event loop (idle workers are unref'd),
// and a checkpoint collected without dispose() closes its files itself (no DEP0137 FileHandle warning).
//   node --test tests/js/script-ends.test.mjs     after `node scripts/build.mjs`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const lib = (name) => pathToFileURL(join(root, 'dist', 'lib', name)).href;
const LIMIT = 60000; // a script still running then is one that would never end

test('a script that omits dispose() and terminate() ends, its files closed, with no warning', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rl-ends-'));
  try {
    const { files } = makeCheckpoint({ family: 'llama', dtype: 'BF16', sharded: true, seed: 5 });
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
    // the weights as paths (each read through a FileHandle), the JSON files as their text
    const paths = Object.fromEntries(
      Object.entries(files).map(([name, bytes]) => [
        name,
        name.endsWith('.safetensors') ? join(dir, name) : Buffer.from(bytes).toString('utf8'),
      ]),
    );
    const script = join(dir, 'forgets.mjs');
    writeFileSync(
      script,
      `import { load } from ${JSON.stringify(lib('residual-lab.js'))};
import { createLabWorker } from ${JSON.stringify(lib('worker-client.js'))};
const lab = await load();
let ckpt = await lab.openCheckpoint(${JSON.stringify(paths)}, { workers: 2 });
const { finalNorms } = await ckpt.run([3, 17, 5]);
console.log('workers', ckpt.workers, 'norms', finalNorms.length);
const worker = createLabWorker();
console.log('worker', Array.from(await worker.call('rmsNorm', [[3, 4], null, { eps: 0 }])).join(' '));
ckpt = null; // collected, not disposed
for (let i = 0; i < 3; i++) {
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
}
console.log('done');
`,
    );
    const run = spawnSync(process.execPath, ['--expose-gc', script], { encoding: 'utf8', timeout: LIMIT });
    assert.equal(run.signal, null, `still running after ${LIMIT / 1000} s: ${run.stdout}${run.stderr}`);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^workers 2 norms 3\n/);
    // RMSNorm of [3, 4] with ε = 0: x / sqrt((9 + 16) / 2)
    const [a, b] = /worker (\S+) (\S+)/.exec(run.stdout).slice(1).map(Number);
    assert.ok(Math.abs(a - 3 / Math.sqrt(12.5)) < 1e-6 && Math.abs(b - 4 / Math.sqrt(12.5)) < 1e-6, run.stdout);
    assert.match(run.stdout, /done\n$/);
    assert.doesNotMatch(run.stderr, /DEP0137|FileHandle|Warning/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
