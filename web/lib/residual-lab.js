// Residual Lab's public JS API: `const lab = await load()`. The same module runs in browsers, workers and node 20.
// The lab object is assembled from one list, api.js's LAB_API: each function comes from the part that row names
// (the kernels, the lab's decoder, the experiments, the checkpoint reader, the Hub downloader), and a function that
// list and parts disagree on fails the load. The WebAssembly under it (which build, its compilation, its
// instance) is wasm-module.js's.
import { assembleLab, LAB_API } from './api.js';
import { checkLoadOptions, instantiate } from './wasm-module.js';
import { createKernelApi } from './kernels.js';
import { createDecoderApi } from './decoder.js';
import { createExperimentsApi } from './experiments.js';
import { freezeTables } from './options.js';
import { inspectConfig } from './inspect-config.js';
import { deleteStoredCheckpoint, fetchCheckpoint, storedCheckpoints } from './hub/fetch.js';
import { nextTask } from './next-task.js';

export { chooseFlavour, compileWasm, FLAVOURS, relaxedSimdSupported, simdSupported } from './wasm-module.js';

async function createLab({ flavour, module }) {
  const Module = await instantiate(flavour, module);
  await nextTask();
  const tables = freezeTables(JSON.parse(Module.describeOptions()));
  return assembleLab(
    LAB_API,
    {
      /** Every option table: { decoder, train, experiments: { warmup, ... }, kernels: { rmsNorm, ... } }. */
      tables: { describe: () => tables },
      kernels: createKernelApi(Module, tables),
      decoder: createDecoderApi(Module, tables),
      experiments: createExperimentsApi(Module, tables),
      config: { inspectConfig },
      checkpoint: {
        /**
         * Opens a Hugging Face checkpoint the reader has: files maps names to File / Blob / ArrayBuffer /
         * Uint8Array (JSON files also strings): config.json, model.safetensors or model.safetensors.index.json and
         * its shards, optionally tokenizer.json. Resolves to { architecture, config, tensors, normWeights(),
         * run(input, options), tokenize(text), cost(tokens), dispose() } (docs/checkpoints.md). options.workers: how
         * many workers a run is split over.
         */
        // imported on the first call: a page that only draws the widgets (the probe opens models in its worker)
        // does not fetch the checkpoint reader
        openCheckpoint: async (files, options) =>
          (await import('./checkpoint/open.js')).openCheckpoint(Module, files, options),
      },
      hub: {
        /**
         * Fetches a model from the Hugging Face Hub or a mirror into local storage (node: the Hub's cache; a
         * browser: the Origin Private File System), resumable and verified; resolves to { repo, revision, commit,
         * endpoint, bytes, fetched, files }, files being what openCheckpoint takes. A model already stored opens
         * with no request. options: endpoint, revision, onProgress({ file, loaded, total }), signal
         * (docs/checkpoints.md).
         */
        fetchCheckpoint,
        /** The models this browser stores: [{ repo, revision, commit, endpoint, bytes, date }] (node: []). */
        storedCheckpoints,
        /** Deletes a model this browser stores. */
        deleteStoredCheckpoint,
      },
    },
    { flavour },
  );
}

const cache = new Map();

/**
 * Loads the lab once per flavour and caches it.
 * @param {{ flavour?: 'auto' | 'relaxed' | 'simd' | 'scalar', module?: WebAssembly.Module }} [options]
 *   flavour 'auto' picks the first build the engine validates: relaxed SIMD, SIMD, scalar (wasm-module.js).
 *   module: the build's WebAssembly.Module, already compiled (compileWasm(flavour) elsewhere, posted here); it
 *   needs its flavour named.
 */
export function load({ flavour = 'auto', module } = {}) {
  const chosen = checkLoadOptions({ flavour, module });
  if (!cache.has(chosen)) {
    const pending = createLab({ flavour: chosen, module });
    pending.catch(() => cache.delete(chosen)); // a failed load may be retried
    cache.set(chosen, pending);
  }
  return cache.get(chosen);
}

export { ResidualLabError } from './errors.js';
// The chapter's claims about trained models as experiments on an opened checkpoint (docs/checkpoints.md).
export * as checkpointClaims from './checkpoint/claims.js';
