// The buffers a split run's share reads its rows into (shards.js).

/**
 * Read buffers kept for the next layer, which asks for the same sizes: fresh memory costs a page fault per 4 KB on
 * first touch (measured: 2.8 million faults and 45 s of system time per 8B run on two workers without them).
 * take(bytes) hands out a free buffer of that size or a new one; give(buffer) returns it once copied to the heap.
 */
export function readBuffers() {
  const free = new Map(); // byteLength -> Uint8Array[]
  const ours = new WeakSet(); // a source that cannot read into a buffer (a Blob, bytes in memory) returns its own
  return {
    take(bytes) {
      const buffer = free.get(bytes)?.pop() ?? new Uint8Array(bytes);
      ours.add(buffer);
      return buffer;
    },
    give(buffer) {
      if (!ours.has(buffer)) return;
      if (!free.has(buffer.length)) free.set(buffer.length, []);
      free.get(buffer.length).push(buffer);
    },
  };
}
