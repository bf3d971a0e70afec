// The rows a split run's share keeps in its heap between runs (shards.js). Memory written for the first time costs
// a page fault per 4 KB (node, this VM: 494 MB copied into fresh WASM memory in 307 ms, into memory already written
// in 43 ms), so a worker about to keep its rows reserves one block for all of them and writes zeros over its free
// part a slice at a time whenever it waits (for its reads, for the next call): the first run's copies land in
// memory already mapped.
import { align16, heapAllocator, roomToKeep } from './heap.js';
import { PROJECTIONS } from './layer-weights.js';

const SLICE_BYTES = 4 << 20;

/**
 * The bytes a worker keeps when it holds `part` ({ slot, begin, end } of layer `layer`'s tensor) and the same share
 * of every projection and of the output head: its share of what the workers keep.
 */
export function keptShareBytes(model, weightOf, layer, { slot, begin, end }) {
  const share = (end - begin) / weightOf(layer, slot).shape[0];
  let bytes = weightOf(null, 'head').byteLength;
  for (let i = 0; i < model.sizes.L; i++)
    for (const projection of PROJECTIONS) bytes += weightOf(i, projection)?.byteLength ?? 0;
  return Math.ceil(share * bytes * 1.01); // 1% over: a share's ranges are rounded to the panel rows
}

/**
 * The block [start, start + size) handed out from its bottom, take(bytes) (0 when it is full), while a task at a
 * time writes zeros over the next SLICE_BYTES above what is handed out, up to its end.
 */
export function touchedArena(Module, start, size) {
  let used = 0,
    touched = 0;
  const slice = () => {
    if (touched < 0) return; // stopped: the block is freed
    const from = Math.max(touched, used);
    touched = Math.min(size, from + SLICE_BYTES);
    Module.HEAPU8.fill(0, start + from, start + touched);
    if (touched < size) setTimeout(slice, 0);
  };
  setTimeout(slice, 0);
  return {
    /** Ends the writes (before the block is freed). */
    stop() {
      touched = -1;
    },
    take(bytes) {
      const p = start + used;
      const taken = align16(bytes);
      if (used + taken > size) return 0;
      used += taken;
      return p;
    },
  };
}

/**
 * The rows a share keeps in its heap between runs (calls with `keep`): kept (key -> heap address), held until the
 * worker ends (the checkpoint's dispose, or a cancelled run) or release() frees them (the share the coordinator's
 * own thread computes, whose heap outlives the pool); reserve(bytes) takes one block for the rows to come
 * (touchedArena; none where the budget refuses it); keepBlock(bytes, what) is a block from it or from the heap, 0
 * when the budget is spent (that share is then read per run, as without residency); bytes: what they hold. What
 * stays leaves RESIDENCY_HEADROOM_BYTES of the heap's budget to the runs (the coordinator's own among them).
 */
export function keptRows(Module) {
  const heap = heapAllocator(Module);
  const store = { kept: new Map(), bytes: 0, arena: undefined };
  const tryKeep = (bytes, what) => (roomToKeep(Module, bytes) ? heap.tryAlloc(bytes, what) : 0);
  store.reserve = (bytes) => {
    const p = tryKeep(bytes, 'the rows this share keeps');
    store.arena = p ? touchedArena(Module, p, bytes) : null;
  };
  store.keepBlock = (bytes, what) => {
    const p = store.arena?.take(bytes) || tryKeep(bytes, what);
    if (p) store.bytes += bytes;
    return p;
  };
  store.release = () => {
    store.arena?.stop();
    heap.freeAll();
    store.kept.clear();
    Object.assign(store, { bytes: 0, arena: undefined });
  };
  return store;
}
