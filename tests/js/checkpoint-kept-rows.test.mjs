// The block a split run's worker keeps its rows in (kept-rows.js touchedArena): handed out from the bottom, 16-byte
// aligned, and written over with zeros a slice at a time above what is handed out, never below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { touchedArena } from '../../web/lib/checkpoint/kept-rows.js';

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
