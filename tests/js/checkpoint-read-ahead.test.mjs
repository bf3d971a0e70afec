// How far a split run's workers read ahead (split-layer.js readAhead): the calls after the current one in the run's
// order while their bytes stay within READ_AHEAD_BYTES, always the next one, none after the last.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { READ_AHEAD_BYTES, readAhead } from '../../web/lib/checkpoint/split-layer.js';

const SLOTS = { q: ['H', 'd'], k: ['KV', 'd'], v: ['KV', 'd'], o: ['d', 'H'], gate: ['ffn', 'd'], up: ['ffn', 'd'] };
SLOTS.down = ['d', 'ffn'];

// a run's context as readAhead reads it: the sizes, each layer's tensors' file bytes (BF16), the run's order
function runContext({ L, d, H, KV, headDim, ffn }, order) {
  const width = { d, H: H * headDim, KV: KV * headDim, ffn };
  const byLayer = Array.from({ length: L }, () => {
    const layer = new Map();
    for (const [slot, [rows, cols]] of Object.entries(SLOTS))
      layer.set(slot, { slot, byteLength: 2 * width[rows] * width[cols] });
    return layer;
  });
  const nextRun = (i) => order[order.indexOf(i) + 1] ?? null;
  return { model: { sizes: { L, d, H, KV, headDim, ffn } }, weights: { byLayer }, nextRun };
}
const callBytes = (ctx, call) =>
  call.slots.reduce((n, { slot }) => n + ctx.weights.byLayer[call.layer].get(slot).byteLength, 0);
const named = (calls) => calls.map((c) => `${c.layer}:${c.slots.map((s) => s.slot).join('+')}`);

const QWEN = { L: 24, d: 896, H: 14, KV: 2, headDim: 64, ffn: 4864 };
const LLAMA_8B = { L: 32, d: 4096, H: 32, KV: 8, headDim: 128, ffn: 14336 };

test('the workers read ahead in the run order, within READ_AHEAD_BYTES: about two Qwen layers', () => {
  const order = Array.from({ length: QWEN.L }, (_, i) => i).filter((i) => i !== 3); // layer 3 skipped
  const ctx = runContext(QWEN, order);
  const ahead = readAhead(ctx, 2, 'gateUp');
  assert.deepEqual(named(ahead).slice(0, 6), ['2:down', '4:q+k+v', '4:o', '4:gate+up', '4:down', '5:q+k+v']);
  const bytes = ahead.reduce((n, c) => n + callBytes(ctx, c), 0);
  assert.ok(bytes <= READ_AHEAD_BYTES, `${bytes} bytes ahead`);
  const groupOf = { q: 'qkv', o: 'o', gate: 'gateUp', down: 'down' };
  const last = ahead.at(-1);
  const next = readAhead(ctx, last.layer, groupOf[last.slots[0].slot])[0];
  assert.ok(bytes + callBytes(ctx, next) > READ_AHEAD_BYTES, 'one call more would pass the bound');
  assert.deepEqual(readAhead(ctx, 23, 'down'), [], 'nothing after the last layer');
  assert.deepEqual(named(readAhead(ctx, 23, 'gateUp')), ['23:down']);
});

test("a call over the bound is still read ahead, alone: the 8B's MLP", () => {
  const order = Array.from({ length: LLAMA_8B.L }, (_, i) => i);
  const ctx = runContext(LLAMA_8B, order);
  const ahead = readAhead(ctx, 0, 'o');
  assert.deepEqual(named(ahead), ['0:gate+up']);
  assert.ok(callBytes(ctx, ahead[0]) > READ_AHEAD_BYTES);
});
