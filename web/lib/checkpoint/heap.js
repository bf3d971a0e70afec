// The WASM heap blocks of a checkpoint run, for the runner, the backward and the split runs' workers alike: each
// block reserved against the memory budget first (rl_ckpt_alloc, core/memory_budget.hpp), so a run that does not
// fit is refused with a ResidualLabError, never aborted.
import { ResidualLabError } from '../errors.js';

// The output head's rows are read and multiplied in pieces of this many bytes (a whole head is V x d: 1.2 GB for
// an 8B model's in BF16), by this thread and by each worker for its share.
export const HEAD_CHUNK_BYTES = 16 << 20;

export const align16 = (bytes) => Math.ceil(bytes / 16) * 16;

// What a thread's heap keeps free for a run's own blocks (the stream, one layer, a head chunk, the logits) when
// the weights stay in it.
export const RESIDENCY_HEADROOM_BYTES = 256 << 20;

/** Whether `bytes` more can stay in the heap between runs, leaving RESIDENCY_HEADROOM_BYTES of its budget free. */
export const roomToKeep = (Module, bytes) =>
  Module._rl_memory_budget_bytes() - Module._rl_memory_used_bytes() - bytes >= RESIDENCY_HEADROOM_BYTES;

/** The ResidualLabError of the C++ side's last refusal (rl_error_message, rl_error_code). */
export function moduleError(Module) {
  const message = Module.UTF8ToString(Module._rl_error_message());
  const code = Module.UTF8ToString(Module._rl_error_code());
  return new ResidualLabError(message, { code });
}

/**
 * A set of blocks: alloc(bytes, what) reserves one (`what` names it in a refusal) or throws; tryAlloc the same but
 * returns 0 when refused; freeAll() gives every block back; freeSince(mark()) those reserved since the mark;
 * fail() is the last refusal as a ResidualLabError.
 */
export function heapAllocator(Module) {
  const blocks = [];
  const fail = () => moduleError(Module);
  const alloc = (bytes, what) => {
    const size = Module.lengthBytesUTF8(what) + 1;
    const name = Module._malloc(size);
    Module.stringToUTF8(what, name, size);
    const p = Module._rl_ckpt_alloc(bytes, name);
    Module._free(name);
    if (!p) throw fail();
    blocks.push(p);
    return p;
  };
  const tryAlloc = (bytes, what) => {
    try {
      return alloc(bytes, what);
    } catch {
      return 0;
    }
  };
  const freeSince = (mark) => {
    for (const p of blocks.splice(mark)) Module._rl_ckpt_free(p);
  };
  return { alloc, tryAlloc, freeAll: () => freeSince(0), mark: () => blocks.length, freeSince, fail };
}
