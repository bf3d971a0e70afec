// Residency (docs/checkpoints.md, "Residency"): while the model's bytes fit the residency budget, what a run copies
// into the heap stays there for the next runs (split: each worker keeps its own rows, shards.js; this thread the
// norms and biases), and the embedding's rows stay as read, by token id. A block the heap's budget refuses is
// read per run instead.
import { RESIDENCY_HEADROOM_BYTES, heapAllocator } from './heap.js';

// The device memory assumed where neither navigator.deviceMemory nor node's os tells.
const DEFAULT_DEVICE_BYTES = 4 * 2 ** 30;

/**
 * The default residency budget: half the device's memory, and no more than `threads` heaps can hold besides a
 * run's blocks (each heap's memory budget, core/memory_budget.hpp, less RESIDENCY_HEADROOM_BYTES).
 */
export function defaultResidencyBudget(Module, threads) {
  const device =
    (globalThis.navigator?.deviceMemory ?? 0) * 2 ** 30 ||
    globalThis.process?.getBuiltinModule?.('node:os')?.totalmem?.() ||
    DEFAULT_DEVICE_BYTES;
  const perThread = Math.max(0, Module._rl_memory_budget_bytes() - RESIDENCY_HEADROOM_BYTES);
  return Math.min(device / 2, threads * perThread);
}

/**
 * What this thread keeps between runs of a model of L layers and modelBytes bytes: `kept` (its blocks and what
 * the workers hold), keeps() (the model fits the budget), keepBlock(bytes, what) (a block that stays, or 0 when
 * the heap refuses it), warm(split) (every weight a run reads held), forget(), report(pool).
 */
export function createResidency(Module, { L, modelBytes, residencyBudget }) {
  const heap = heapAllocator(Module);
  const kept = {
    layers: Array(L).fill(null), // { pointers } of a layer copied whole (one thread)
    small: Array(L).fill(null), // { pointers } of a layer's norms and biases (split: the workers hold the rest)
    finalNorm: 0,
    head: 0, // the output head's block, its rows all copied once headFilled
    headFilled: false,
    embedRows: new Map(), // token id -> the row's bytes in the file's dtype
    bytes: 0,
    workerLayers: new Set(), // the layers whose projections the workers hold
    workerHead: false,
  };
  const keeps = () => residencyBudget >= modelBytes;
  const keepBlock = (bytes, what) => {
    const p = heap.tryAlloc(bytes, what);
    if (p) kept.bytes += bytes;
    return p;
  };
  // every weight a run reads held, here (one thread) or in the workers (split)
  const warm = (split) =>
    keeps() &&
    kept.finalNorm !== 0 &&
    (split
      ? kept.workerHead && kept.workerLayers.size === L && kept.small.every((l) => l !== null)
      : kept.headFilled && kept.layers.every((l) => l !== null));
  // a split run cut short ends its workers, and what they kept goes with them
  const forgetWorkers = () => {
    kept.workerLayers.clear();
    kept.workerHead = false;
  };
  const forget = () => {
    heap.freeAll();
    Object.assign(kept, { layers: Array(L).fill(null), small: Array(L).fill(null), finalNorm: 0, head: 0 });
    Object.assign(kept, { headFilled: false, bytes: 0 });
    kept.embedRows.clear();
    forgetWorkers();
  };
  /** Which mode the model runs in and what stays between runs; pool: the workers of the last run, or null. */
  const report = (pool) => ({
    mode: keeps() ? 'resident' : 'streamed',
    budgetBytes: residencyBudget,
    modelBytes,
    keptBytes: kept.bytes + (pool ? pool.keptBytes.reduce((a, b) => a + b, 0) : 0),
    workerKeptBytes: pool ? [...pool.keptBytes] : [],
    embeddingRows: kept.embedRows.size,
    warm: warm(pool !== null),
  });
  return { kept, keeps, keepBlock, warm, forget, forgetWorkers, report };
}
