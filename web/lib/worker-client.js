// Runs lab calls in a module Web Worker so long experiments never freeze the page.
//   const worker = createLabWorker();
//   const result = await worker.call('experiments.warmup', [{ steps: 300 }], { onProgress, signal });
//   worker.terminate();
// A worker cannot be interrupted inside a synchronous WASM call, so `signal` aborts by terminating the worker
// (every call in flight on it rejects with an AbortError) and the next call starts a fresh one.
import { ResidualLabError } from './errors.js';

export function createLabWorker() {
  let worker = null;
  let nextId = 1;
  const pending = new Map();

  function start() {
    worker = new Worker(new URL('./lab-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = ({ data }) => {
      const entry = pending.get(data.id);
      if (!entry) return;
      if ('progress' in data) { entry.onProgress?.(data.progress); return; }
      pending.delete(data.id);
      if (data.error) entry.reject(new ResidualLabError(data.error.message, { code: data.error.code }));
      else entry.resolve(data.result);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      failAll(new ResidualLabError(`the lab worker failed: ${event.message || 'unknown error'}`, { code: 'worker_failed' }));
    };
  }

  function failAll(error) {
    for (const entry of pending.values()) entry.reject(error);
    pending.clear();
    worker?.terminate();
    worker = null;
  }

  function call(method, args = [], { onProgress, signal } = {}) {
    if (signal?.aborted) return Promise.reject(new DOMException('cancelled', 'AbortError'));
    if (!worker) start();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, onProgress });
      signal?.addEventListener('abort', () => failAll(new DOMException('cancelled', 'AbortError')), { once: true });
      worker.postMessage({ id, method, args });
    });
  }

  return { call, terminate: () => failAll(new DOMException('terminated', 'AbortError')) };
}
