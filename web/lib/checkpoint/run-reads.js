// A run's reads from the weights' files and its own account of them: the bytes read, how many reads, the JS memory
// held by reads not yet copied into the heap (and its peak, held to options.memoryLimit before the run starts), and
// the milliseconds this thread waited for reads and for the workers.

/** { account, read(w, from, to, into), release(bytes), waited(what, pending), readLayer(i) } of one run. */
export function runReads(byLayer, largestLayerRead) {
  const account = { bytesRead: 0, held: 0, peakHeld: 0, reads: 0, readWait: 0, exchangeWait: 0 };
  // milliseconds this thread waits on `pending`, added to account[what]
  const waited = async (what, pending) => {
    const t0 = performance.now();
    try {
      return await pending;
    } finally {
      account[what] += performance.now() - t0;
    }
  };
  const read = async (w, from = 0, to = w.byteLength, into = undefined) => {
    account.held += to - from;
    account.peakHeld = Math.max(account.peakHeld, account.held);
    try {
      const bytes = await w.source.read(w.offset + from, w.offset + to, into);
      account.bytesRead += bytes.length;
      account.reads += 1;
      return bytes;
    } catch (error) {
      account.held -= to - from;
      throw error;
    }
  };
  const release = (bytes) => {
    account.held -= bytes.length;
  };
  // One layer's tensors, read together (the reads run concurrently) into one reused buffer where the source
  // can: resolves to Map slot -> [w, bytes]; a rejected read is kept for the await.
  let scratch = null;
  const readLayer = (i) => {
    scratch ??= new Uint8Array(largestLayerRead);
    let at = 0;
    const pending = Promise.all(
      [...byLayer[i].entries()].map(([slot, w]) => {
        const into = scratch.subarray(at, at + w.byteLength);
        at += w.byteLength;
        return read(w, 0, w.byteLength, into).then((bytes) => [slot, [w, bytes]]);
      }),
    ).then((entries) => new Map(entries));
    pending.catch(() => {});
    return pending;
  };
  return { account, read, release, waited, readLayer };
}
