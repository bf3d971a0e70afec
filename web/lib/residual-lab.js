// Residual Lab's public JS API: `const lab = await load()`. The same module runs in browsers, workers and node 20.
// It picks the WASM SIMD build where the engine supports it and the scalar build of the same C++ elsewhere,
// fetches and compiles the .wasm itself, once per page (so the Emscripten glue never fetches and never needs
// node's __dirname, and lab workers instantiate the page's compiled module instead of compiling their own),
// and wraps the raw exports in functions that take and return Float32Arrays and throw readable Errors.
import { createKernelApi } from './kernels.js';
import { createDecoderApi } from './decoder.js';
import { createExperimentsApi } from './experiments.js';
import { freezeTables } from './options.js';
import { inspectConfig } from './inspect-config.js';
import { deleteStoredCheckpoint, fetchCheckpoint, storedCheckpoints } from './hub/fetch.js';
import { nextTask } from './next-task.js';
import { importNodeModule } from './node-module.js';

// (module (func (result v128) (f32x4.splat (f32.const 0)))): validates only where WASM SIMD is supported.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 11, 1, 9, 0, 67, 0, 0, 0, 0, 253, 19, 11,
]);

export function simdSupported() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

const isNode =
  typeof process === 'object' && typeof process.versions?.node === 'string' && typeof window === 'undefined';

const FLAVOURS = ['simd', 'scalar'];
// The one place that names the files of a build (a build step that renames them maps these URLs).
const glueUrl = (flavour) =>
  flavour === 'simd'
    ? new URL('./wasm/residual_lab_simd.mjs', import.meta.url)
    : new URL('./wasm/residual_lab_scalar.mjs', import.meta.url);
const wasmUrl = (flavour) =>
  flavour === 'simd'
    ? new URL('./wasm/residual_lab_simd.wasm', import.meta.url)
    : new URL('./wasm/residual_lab_scalar.wasm', import.meta.url);

/** 'simd' or 'scalar' for a flavour option ('auto' picks SIMD when the engine validates it). */
export function chooseFlavour(flavour = 'auto') {
  if (flavour !== 'auto' && !FLAVOURS.includes(flavour))
    throw new Error(`Residual Lab: unknown flavour "${flavour}" (auto, simd or scalar)`);
  return flavour === 'auto' ? (simdSupported() ? 'simd' : 'scalar') : flavour;
}

async function compileFrom(url) {
  if (isNode && url.protocol === 'file:') {
    const { readFile } = await importNodeModule('node:fs/promises');
    return WebAssembly.compile(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Residual Lab: could not fetch ${url.href} (HTTP ${response.status})`);
  // Streaming compilation overlaps the download; it needs the application/wasm type, else the bytes are compiled.
  if (
    typeof WebAssembly.compileStreaming === 'function' &&
    response.headers.get('content-type')?.split(';')[0].trim() === 'application/wasm'
  ) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

const compiled = new Map(); // flavour -> Promise<WebAssembly.Module>

/**
 * The lab's WebAssembly.Module of `flavour`, fetched and compiled once per page (or worker, or node process).
 * A WebAssembly.Module can be posted to workers, which then instantiate it without fetching or compiling again:
 * worker-client.js hands this one to every lab worker it starts (`load({ flavour, module })` there).
 */
export function compileWasm(flavour = 'auto') {
  const chosen = chooseFlavour(flavour);
  if (!compiled.has(chosen)) {
    const pending = compileFrom(wasmUrl(chosen));
    pending.catch(() => compiled.delete(chosen)); // a failed fetch may be retried
    compiled.set(chosen, pending);
  }
  return compiled.get(chosen);
}

// Loading is three pieces of main-thread work (the compilation's last step, the instance's start-up, the API's
// tables), each tens of milliseconds on a slow machine: a page runs them in separate tasks, so that input and
// drawing can run between them.
async function instantiate(flavour, givenModule) {
  const [{ default: createModule }, module] = await Promise.all([
    import(glueUrl(flavour).href),
    givenModule ?? compileWasm(flavour),
  ]);
  await nextTask();
  // Emscripten's instantiateWasm hook: the glue uses this instance of the given module instead of fetching.
  let instantiationFailed;
  const failure = new Promise((resolve, reject) => {
    instantiationFailed = reject;
  });
  const ready = createModule({
    instantiateWasm(imports, receiveInstance) {
      WebAssembly.instantiate(module, imports)
        .then(async (instance) => {
          await nextTask();
          receiveInstance(instance, module);
        })
        .catch(instantiationFailed);
      return {};
    },
  });
  return Promise.race([ready, failure]);
}

async function createLab({ flavour, module }) {
  const Module = await instantiate(flavour, module);
  await nextTask();
  const tables = freezeTables(JSON.parse(Module.describeOptions()));
  return Object.freeze({
    flavour,
    /** Every option table: { decoder, train, experiments: { warmup, ... }, kernels: { rmsNorm, ... } }. */
    describe: () => tables,
    ...createKernelApi(Module, tables),
    ...createDecoderApi(Module, tables),
    experiments: Object.freeze(createExperimentsApi(Module, tables)),
    inspectConfig,
    /**
     * Opens a Hugging Face checkpoint the reader has: files maps names to File / Blob / ArrayBuffer /
     * Uint8Array (JSON files also strings): config.json, model.safetensors or model.safetensors.index.json and
     * its shards, optionally tokenizer.json. Resolves to { architecture, config, tensors, normWeights(),
     * run(input, options), tokenize(text), cost(tokens), dispose() } (docs/checkpoints.md). options.workers: how
     * many workers a run is split over.
     */
    // imported on the first call: a page that only draws the widgets (the probe opens models in its worker) does
    // not fetch the checkpoint reader
    openCheckpoint: async (files, options) =>
      (await import('./checkpoint/open.js')).openCheckpoint(Module, files, options),
    /**
     * Fetches a model from the Hugging Face Hub or a mirror into local storage (node: the Hub's cache; a browser:
     * the Origin Private File System), resumable and verified; resolves to { repo, revision, commit, endpoint,
     * bytes, fetched, files }, files being what openCheckpoint takes. A model already stored opens with no request.
     * options: endpoint, revision, onProgress({ file, loaded, total }), signal (docs/checkpoints.md).
     */
    fetchCheckpoint,
    /** The models this browser stores: [{ repo, revision, commit, endpoint, bytes, date }] (node: []). */
    storedCheckpoints,
    /** Deletes a model this browser stores. */
    deleteStoredCheckpoint,
  });
}

const cache = new Map();

/**
 * Loads the lab once per flavour and caches it.
 * @param {{ flavour?: 'auto' | 'simd' | 'scalar', module?: WebAssembly.Module }} [options]
 *   flavour 'auto' picks SIMD when the engine validates it. module: the build's WebAssembly.Module, already
 *   compiled (compileWasm(flavour) elsewhere, posted here); it needs its flavour named, 'simd' or 'scalar'.
 */
export function load({ flavour = 'auto', module } = {}) {
  const chosen = chooseFlavour(flavour);
  if (module !== undefined) {
    if (!(module instanceof WebAssembly.Module))
      throw new Error('Residual Lab: module must be a WebAssembly.Module (from compileWasm)');
    if (flavour === 'auto') throw new Error('Residual Lab: a precompiled module needs its flavour, "simd" or "scalar"');
  }
  if (!cache.has(chosen)) {
    const pending = createLab({ flavour: chosen, module });
    pending.catch(() => cache.delete(chosen)); // a failed load may be retried
    cache.set(chosen, pending);
  }
  return cache.get(chosen);
}

export { ResidualLabError } from './errors.js';
// The chapter's claims about trained models as experiments on an opened checkpoint (docs/checkpoints.md).
export * as checkpointExperiments from './checkpoint/experiments.js';
