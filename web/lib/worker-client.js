// Runs lab calls in a module Web Worker so long experiments never freeze the page.
//   const worker = createLabWorker();
//   const result = await worker.call('experiments.warmup', [{ steps: 300 }], { onProgress, signal });
//   const model = await worker.call('createDecoder', [{ nLayers: 2 }]);   // a proxy: await model.forward(...)
//   await model.dispose();
//   worker.terminate();
// Arguments go to the worker exactly as given (structured clone). `onProgress` is a call option: methods that
// report progress (worker-methods.js) get it as their `{ onProgress }` argument in the worker. Objects that cannot
// be copied (a decoder, a warmup run) stay in the worker; the page gets a proxy with the same methods, async,
// their plain fields and dispose(). A worker cannot be interrupted inside a synchronous WASM call, so `signal`
// aborts by terminating the worker: every call in flight on it rejects with an AbortError, the objects it held
// are gone (their proxies reject with code 'disposed') and the next call starts a fresh worker.
// The WebAssembly is compiled once per page (wasm-module.js compileWasm) and the compiled module is posted to
// every worker started here: a worker instantiates it without fetching or compiling the .wasm again.
import { ResidualLabError } from './errors.js';
import { chooseFlavour, compileWasm } from './wasm-module.js';
import { HANDLE_KINDS } from './api.js';
import { transferables } from './worker-methods.js';

/** The page-side twin of an error thrown in the worker: same name, message, code and position. */
function toError({ name, message, code, position }) {
  const error = new ResidualLabError(message, { code, position });
  if (name && name !== error.name) error.name = name;
  return error;
}

const abortError = (message) => new DOMException(message, 'AbortError');

/**
 * A module worker running `url`. A page may not start a worker from another origin (new Worker throws), so when
 * the lab is served from elsewhere than the page (one script tag on a course site) the worker is a same-origin
 * Blob module that loads the lab's worker module with import(): a dynamic import is fetched as a script (the
 * host page's script-src already allows the lab), where a static one would be fetched as a worker and need the
 * lab's origin in worker-src as well. The host page's CSP must allow `worker-src blob:`. Messages that arrive
 * while the module loads are held and replayed; a module that fails to load is thrown again, so it reaches
 * the page's worker.onerror.
 */
export function createWorkerFor(url) {
  if (typeof Worker === 'undefined' && globalThis.process?.getBuiltinModule) return nodeWorker(url);
  if (url.origin === location.origin) return new Worker(url, { type: 'module' });
  const bootstrap = `const held = [];
const hold = (event) => held.push(event.data);
addEventListener('message', hold);
import(${JSON.stringify(url.href)}).then(() => {
  removeEventListener('message', hold);
  for (const data of held) dispatchEvent(new MessageEvent('message', { data }));
}, (error) => setTimeout(() => { throw error; }));
`;
  const blobUrl = URL.createObjectURL(new Blob([bootstrap], { type: 'text/javascript' }));
  const worker = new Worker(blobUrl, { type: 'module' });
  setTimeout(() => URL.revokeObjectURL(blobUrl), 60_000); // long after the worker has read it
  return worker;
}

/**
 * In node: a worker_threads Worker running `url` behind node-lab-worker.js (which gives it the `self` of a Web
 * Worker), with the Web Worker's interface: postMessage, onmessage, onerror, terminate.
 */
function nodeWorker(url) {
  const { Worker: NodeWorker } = globalThis.process.getBuiltinModule('node:worker_threads');
  const worker = new NodeWorker(new URL('./node-lab-worker.js', import.meta.url), { workerData: { url: url.href } });
  const adapter = {
    onmessage: null,
    onerror: null,
    postMessage: (message, transfer) => worker.postMessage(message, transfer),
    terminate: () => worker.terminate(),
    // an idle worker does not keep node's process alive; one with a request in flight does
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
  worker.unref();
  worker.on('message', (data) => adapter.onmessage?.({ data }));
  worker.on('error', (error) => adapter.onerror?.({ message: error.message, preventDefault() {} }));
  return adapter;
}

/**
 * A handle method's arguments without the onProgress and signal of its options argument (kind.progressArgs), which
 * cannot cross to the worker: progress comes back as messages, a cancel terminates it. Returns { args, callbacks }.
 */
function withoutCallbacks(kind, method, args) {
  const at = kind?.progressArgs?.[method];
  if (at === undefined || !args[at] || typeof args[at] !== 'object') return { args, callbacks: {} };
  const { onProgress, signal, ...rest } = args[at];
  const copy = args.slice();
  copy[at] = rest;
  return { args: copy, callbacks: { onProgress, signal } };
}

export function createLabWorker() {
  let worker = null;
  let nextId = 1;
  const pending = new Map(); // id -> { resolve, reject, onProgress }
  const held = new Set(); // records of the proxies whose objects live in the current worker

  function start() {
    worker = createWorkerFor(new URL('./lab-worker.js', import.meta.url));
    const started = worker;
    // Requests posted meanwhile wait in the worker for this message (a failed compile: the worker loads by itself).
    const flavour = chooseFlavour();
    compileWasm(flavour).then(
      (module) => started.postMessage({ init: { flavour, module } }),
      () => started.postMessage({ init: null }),
    );
    worker.onmessage = ({ data }) => {
      const entry = pending.get(data.id);
      if (!entry) return;
      if ('progress' in data) {
        entry.onProgress?.(data.progress);
        return;
      }
      pending.delete(data.id);
      if (!pending.size) started.unref?.();
      if (data.error) entry.reject(toError(data.error));
      else entry.resolve(data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      // No message: the script did not load (a network or CSP failure) or the browser ended the worker.
      const detail = event.message || '';
      const error = new ResidualLabError(
        `the lab worker failed: ${detail || 'its script did not load, or the browser ended it (for instance when memory ran out)'}`,
        { code: 'worker_failed' },
      );
      failAll(Object.assign(error, { detail }));
    };
  }

  function failAll(error) {
    for (const entry of pending.values()) entry.reject(error);
    pending.clear();
    for (const record of held) record.dropped = true;
    held.clear();
    worker?.terminate();
    worker = null;
  }

  /** Posts one request; resolves to the worker's reply message. */
  function send(request, { onProgress, signal, transfer = [] } = {}) {
    if (signal?.aborted) return Promise.reject(abortError('cancelled'));
    if (!worker) start();
    const id = nextId++;
    const onAbort = () => failAll(abortError('cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, onProgress });
      worker.ref?.();
      worker.postMessage({ id, ...request }, transfer);
    }).finally(() => signal?.removeEventListener('abort', onAbort));
  }

  function proxy({ id, kind, data, state }) {
    const record = { dropped: false, disposed: false, state: { ...state } };
    held.add(record);
    const gone = () =>
      new ResidualLabError(
        record.disposed
          ? `this ${kind} has been disposed`
          : `this ${kind} is gone: the lab worker that held it was terminated`,
        { code: 'disposed' },
      );
    const invoke = async (method, allArgs) => {
      if (record.disposed || record.dropped) throw gone();
      const { args, callbacks } = withoutCallbacks(HANDLE_KINDS[kind], method, allArgs);
      const progress = typeof callbacks.onProgress === 'function';
      const transfer = HANDLE_KINDS[kind]?.givenArgs?.includes(method) ? transferables(args) : [];
      const reply = await send({ handle: id, method, args, progress }, { ...callbacks, transfer });
      Object.assign(record.state, reply.state);
      return reply.result;
    };
    const target = { ...data };
    for (const key of Object.keys(state))
      Object.defineProperty(target, key, { enumerable: true, get: () => record.state[key] });
    for (const method of HANDLE_KINDS[kind]?.methods ?? []) target[method] = (...args) => invoke(method, args);
    /** Frees the object in the worker; resolves once it is freed (or was already gone). */
    target.dispose = async () => {
      if (record.disposed) return;
      record.disposed = true;
      held.delete(record);
      if (!record.dropped) await send({ handle: id, method: 'dispose', args: [] }).catch(() => {});
    };
    return Object.freeze(target);
  }

  /**
   * Runs `lab[method](...args)` in the worker ('experiments.warmup' names lab.experiments.warmup). Resolves to the
   * result (typed arrays transferred), or to a proxy for an object that stays in the worker.
   */
  async function call(method, args = [], { onProgress, signal } = {}) {
    if (!Array.isArray(args))
      throw new ResidualLabError(`args must be an array of the call's arguments (got ${typeof args})`, {
        code: 'invalid_request',
      });
    if (onProgress !== undefined && typeof onProgress !== 'function')
      throw new ResidualLabError('onProgress must be a function', { code: 'invalid_request' });
    const reply = await send({ method, args, progress: typeof onProgress === 'function' }, { onProgress, signal });
    return reply.handle ? proxy(reply.handle) : reply.result;
  }

  return { call, terminate: () => failAll(abortError('terminated')) };
}
