// docs/checkpoints.md's sizes of the two benched shapes are what lab.openCheckpoint's cost() computes for them: the
// model's bytes, and the bytes a run of 16 tokens reads (with a tied head, as Qwen2.5-0.5B's, the whole embedding
// matrix: the head reads all of it). The shapes are bench/synthetic-checkpoints.mjs's; only their headers are
// made here (cost() reads no tensor), behind a Blob-like source whose data is never read.
//   node --test tests/js/checkpoints-doc-cost.test.mjs     after `node scripts/build.mjs`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from '../../dist/lib/residual-lab.js';
import { SHAPES, tensorList } from '../../bench/synthetic-checkpoints.mjs';

const doc = readFileSync(join(import.meta.dirname, '../../docs/checkpoints.md'), 'utf8');

/** The shape's checkpoint as one BF16 file whose header alone is real. */
function headerOnly(key) {
  const header = {};
  let offset = 0;
  for (const [name, shape] of tensorList(SHAPES[key])) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(8 + json.length);
  new DataView(head.buffer).setBigUint64(0, BigInt(json.length), true);
  head.set(json, 8);
  const weights = {
    size: head.length + offset,
    slice: (begin, end) => {
      assert.ok(end <= head.length, `only the header is read (asked ${begin}-${end})`);
      return new Blob([head.subarray(begin, end)]);
    },
  };
  return { 'config.json': JSON.stringify(SHAPES[key].config), 'model.safetensors': weights };
}

/** `value` written with as many decimals as `shown` has. */
const asShown = (value, shown) => value.toFixed(shown.split('.')[1]?.length ?? 0);

test("the Qwen2.5-0.5B and Llama-3.1-8B rows: the model's bytes and a run's reads, as cost() gives them", async () => {
  const lab = await load();
  const rows = [
    ['qwen2.5-0.5b', /\| Qwen2\.5-0\.5B \((\d+) MB, (\d+) MB read a run\)/, 1e6],
    ['llama-3.1-8b', /\| Llama-3\.1-8B \(([\d.]+) GB, four shards, ([\d.]+) GB read a run\)/, 1e9],
  ];
  for (const [key, pattern, unit] of rows) {
    const [, size, read] = pattern.exec(doc) ?? [];
    assert.ok(size, `docs/checkpoints.md has the ${key} row`);
    const ckpt = await lab.openCheckpoint(headerOnly(key), { workers: 1 });
    try {
      const { modelBytes, bytesRead } = ckpt.cost(16);
      assert.equal(size, asShown(modelBytes / unit, size), `${key}: the model's size`);
      assert.equal(read, asShown(bytesRead / unit, read), `${key}: what a run reads`);
    } finally {
      ckpt.dispose();
    }
  }
});
