// A weights Blob shorter than its header says: the error names the likely cause. node 20's fs.openAsBlob reports a
// file over 4 GiB with its size modulo 2^32, so a Blob exactly k x 4 GiB short of its header is that; the path has
// no such limit, and the message says to give it.
//   node --test tests/js/checkpoint-blob-size.test.mjs     after `node scripts/build.mjs`
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { makeCheckpoint, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';

const GIB4 = 2 ** 32;
let lab;
before(async () => {
  lab = await load();
});

/** The first bytes of a safetensors file whose one tensor takes `dataBytes` bytes (none of them written). */
function headerOnly(dataBytes) {
  const json = new TextEncoder().encode(
    JSON.stringify({ 'model.embed_tokens.weight': { dtype: 'U8', shape: [dataBytes], data_offsets: [0, dataBytes] } }),
  );
  const bytes = new Uint8Array(8 + json.length);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
  bytes.set(json, 8);
  return bytes;
}

test('a Blob exactly 4 GiB short of its header: the message names fs.openAsBlob and the path', async () => {
  const data = GIB4 + 1000; // a 4.3 GB file, as the Blob node 20's openAsBlob makes of it reports 1000 data bytes
  const head = headerOnly(data);
  const bytes = new Uint8Array(head.length + 1000);
  bytes.set(head);
  const wrapped = new Blob([bytes]); // what the Blob can read: its size is the true size modulo 2^32
  assert.equal(wrapped.size, (head.length + data) % GIB4);
  const config = JSON.stringify(makeConfig('llama'));
  await assert.rejects(lab.openCheckpoint({ 'config.json': config, 'model.safetensors': wrapped }), (error) => {
    assert.equal(error.code, 'safetensors_truncated');
    assert.match(
      error.message,
      new RegExp(
        `describes ${head.length + data} bytes, exactly 1 x 4 GiB more than this Blob's size, as node's ` +
          "fs\\.openAsBlob reports a file over 4 GiB \\(its size modulo 2\\^32\\): give the file's path instead",
      ),
    );
    return true;
  });
});

test('any other short Blob in node: the message suggests the path; the same bytes in memory do not', async () => {
  const { files } = makeCheckpoint({ family: 'llama', dtype: 'F32', seed: 2 });
  const weights = files['model.safetensors'];
  const cut = weights.subarray(0, weights.length - 10);
  await assert.rejects(lab.openCheckpoint({ ...files, 'model.safetensors': new Blob([cut]) }), {
    code: 'safetensors_truncated',
    message: /past the file's \d+ data bytes \(a Blob from node's fs\.openAsBlob of a file over 4 GiB .*path instead\)/,
  });
  await assert.rejects(lab.openCheckpoint({ ...files, 'model.safetensors': cut }), (error) => {
    assert.equal(error.code, 'safetensors_truncated');
    assert.doesNotMatch(error.message, /openAsBlob/);
    return true;
  });
});
