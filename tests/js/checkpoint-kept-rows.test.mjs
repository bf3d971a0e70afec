// The block a split run's share keeps its rows in (kept-rows.js touchedArena): handed out from the bottom, 16-byte
// aligned, and written over with zeros a slice at a time above what is handed out, never below. And what a share
// keeps (keptRows) leaves a run's headroom of the heap's budget free, and release() gives it all back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { keptRows, touchedArena } from '../../web/lib/checkpoint/kept-rows.js';
import { RESIDENCY_HEADROOM_BYTES } from '../../web/lib/checkpoint/heap.js';

test('an arena hands out aligned blocks from its bottom and zeroes only the memory above them', async () => {
  const size = 10 << 20,
    start = 64;
  const Module = { HEAPU8: new Uint8Array(start + size + 64).fill(0xaa) };
  const arena = touchedArena(Module, start, size);
  const a = arena.take(1000);
  Module.HEAPU8.fill(1, a, a + 1000); // the rows copied in, in the same task
  const b = arena.take(3 << 20);
  Module.HEAPU8.fill(2, b, b + (3 << 20));
  assert.equal(a, start);
  assert.equal(b, start + 1008, 'the next block starts at the 16-byte boundary after the first');
  await sleep(1); // one slice has run
  const c = arena.take(5 << 20);
  Module.HEAPU8.fill(3, c, c + (5 << 20));
  for (let k = 0; k < 40 && Module.HEAPU8[start + size - 1] !== 0; k++) await sleep(1);
  const heap = Module.HEAPU8;
  assert.ok(
    heap.subarray(a, a + 1000).every((v) => v === 1),
    'the first rows unchanged',
  );
  assert.ok(
    heap.subarray(b, b + (3 << 20)).every((v) => v === 2),
    'the second rows unchanged',
  );
  assert.ok(
    heap.subarray(c, c + (5 << 20)).every((v) => v === 3),
    'rows taken after a slice unchanged',
  );
  const free = c + (5 << 20);
  assert.ok(
    heap.subarray(free, start + size).every((v) => v === 0),
    'the rest written over with zeros',
  );
  assert.equal(heap[start - 1], 0xaa, 'nothing below the arena');
  assert.equal(heap[start + size], 0xaa, 'nothing above it');
  assert.equal(arena.take(size), 0, 'a block that does not fit: 0');
});

// A heap with a memory budget, as the module's allocation calls see it (core/memory_budget.hpp): addresses are
// handed out past each other, and every block reserved counts against the budget until freed.
function budgetedHeap(budget, used) {
  const blocks = new Map();
  let next = 1 << 20;
  return {
    HEAPU8: new Uint8Array(1 << 16),
    lengthBytesUTF8: (text) => text.length,
    stringToUTF8() {},
    _malloc: () => 8,
    _free() {},
    _rl_memory_budget_bytes: () => budget,
    _rl_memory_used_bytes: () => used,
    _rl_ckpt_alloc(bytes) {
      if (used + bytes > budget) return 0;
      used += bytes;
      blocks.set(next, bytes);
      next += bytes;
      return next - bytes;
    },
    _rl_ckpt_free(p) {
      used -= blocks.get(p);
      blocks.delete(p);
    },
  };
}

test("a share keeps rows while a run's headroom of the heap's budget stays free; release gives them back", () => {
  const MB = 1 << 20;
  const budget = 1000 * MB;
  // an empty heap: one block for the whole share, then blocks from it
  const empty = budgetedHeap(budget, 0);
  const share = keptRows(empty);
  share.reserve(600 * MB);
  assert.ok(share.arena, 'the share reserved: 400 MB stay free');
  assert.ok(share.keepBlock(500 * MB, 'rows') > 0);
  assert.equal(share.bytes, 500 * MB);
  assert.ok(share.keepBlock(100 * MB, 'rows') > 0, 'the rest of the block');
  assert.equal(share.keepBlock(200 * MB, 'rows'), 0, 'past the block, 200 of 400 MB would be left: refused');
  share.release();
  assert.equal(empty._rl_memory_used_bytes(), 0, 'release frees the block');
  assert.equal(share.kept.size + share.bytes, 0);
  // a heap half used by other blocks (the run's, another checkpoint's): what would cut into the headroom is refused
  const busy = budgetedHeap(budget, 500 * MB);
  const second = keptRows(busy);
  second.reserve(600 * MB);
  assert.equal(second.arena, null, 'no block: it would leave less than the headroom');
  const fits = budget - 500 * MB - RESIDENCY_HEADROOM_BYTES;
  assert.ok(second.keepBlock(fits, 'rows') > 0, 'a block that leaves exactly the headroom');
  assert.equal(second.keepBlock(16, 'rows'), 0, 'one more byte of it refused');
  assert.equal(busy._rl_memory_used_bytes(), budget - RESIDENCY_HEADROOM_BYTES);
  second.release();
  assert.equal(busy._rl_memory_used_bytes(), 500 * MB, 'only its own blocks freed');
});
