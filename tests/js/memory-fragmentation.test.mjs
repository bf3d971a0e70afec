// A heap whose free memory lies in pieces: a decoder that fits the budget but no free block is refused with
// out_of_memory, not an abort. Its own file, so its own process: the holes it makes are laid out on a fresh heap,
// whatever other tests allocated and freed before.
//   node --test tests/js/memory-fragmentation.test.mjs     after `node scripts/build.mjs` (uses dist/lib/)
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { load, ResidualLabError } = await import(new URL('../../dist/lib/residual-lab.js', import.meta.url).href);
const lab = await load();
lab.rmsNorm([1, 2]); // the kernels' small scratch block, reserved from here on

const MB = 2 ** 20;
const MAX_HEAP = 1024 * MB; // -sMAXIMUM_MEMORY=1GB

function refusal(fn) {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.fail('expected a ResidualLabError, nothing was thrown');
}

test('a heap whose free memory lies in pieces refuses a decoder it cannot place, with out_of_memory, not an abort', () => {
  const layers = (nLayers) => ({ dModel: 256, nHeads: 4, nLayers, contextLength: 256 });
  const used = lab.memoryBudget().usedBytes;
  // six 107 MB decoders with a 13 MB one after each, then the large ones freed: 640 MB free in 107 MB holes
  const large = [],
    small = [];
  for (let i = 0; i < 6; i++) {
    large.push(lab.createDecoder(layers(8)));
    small.push(lab.createDecoder(layers(1)));
  }
  for (const m of large) m.dispose();
  const kept = lab.createDecoder(layers(16)); // 207 MB: placed above the holes, the heap near its maximum
  const left = 768 * MB - lab.memoryBudget().usedBytes;
  const err = refusal(() => lab.createDecoder(layers(16)));
  assert.ok(err instanceof ResidualLabError);
  assert.equal(err.code, 'out_of_memory');
  assert.match(
    err.message,
    /^out of memory: a decoder \(parameters, gradients and activations\) needs 207\.4 MB, and the WASM heap has no free block that large \((\d+\.\d) MB of the 768\.0 MB memory budget is left, in pieces\)/,
  );
  assert.ok(left > 400 * MB, `${left / MB} MB of the budget left`);
  assert.ok(lab.wasmHeapBytes() <= MAX_HEAP);
  assert.ok(Number.isFinite(kept.forward([1, 2, 3], [2, 3, 4]).loss));

  for (const m of [kept, ...small]) m.dispose();
  assert.equal(lab.memoryBudget().usedBytes, used);
  const again = [lab.createDecoder(layers(16)), lab.createDecoder(layers(16)), lab.createDecoder(layers(16))];
  assert.ok(Number.isFinite(again[1].forward([1, 2], [2, 3]).loss));
  for (const m of again) m.dispose();
});
