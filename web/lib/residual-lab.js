// Residual Lab's public JS API: `const lab = await load()`. The same module runs in browsers, workers and node 20.
// It picks the WASM SIMD build where the engine supports it and the scalar build of the same C++ elsewhere,
// reads the .wasm bytes itself (so the Emscripten glue never fetches and never needs node's __dirname),
// and wraps the raw exports in functions that take and return Float32Arrays and throw readable Errors.
import { createKernelApi } from './kernels.js';
import { createDecoderApi } from './decoder.js';
import { createExperimentsApi } from './experiments.js';
import { freezeTables } from './options.js';
import { inspectConfig } from './inspect-config.js';

// (module (func (result v128) (f32x4.splat (f32.const 0)))): validates only where WASM SIMD is supported.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 11, 1, 9, 0, 67, 0, 0, 0, 0, 253, 19, 11,
]);

export function simdSupported() {
  try { return WebAssembly.validate(SIMD_PROBE); } catch { return false; }
}

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string' && typeof window === 'undefined';

async function readBytes(url) {
  if (isNode && url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Residual Lab: could not fetch ${url.href} (HTTP ${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}

async function instantiate(flavour) {
  const glueUrl = new URL(`./wasm/residual_lab_${flavour}.mjs`, import.meta.url);
  const wasmUrl = new URL(`./wasm/residual_lab_${flavour}.wasm`, import.meta.url);
  const [{ default: createModule }, wasmBinary] = await Promise.all([import(glueUrl.href), readBytes(wasmUrl)]);
  return createModule({ wasmBinary });
}

async function createLab({ flavour }) {
  const Module = await instantiate(flavour);
  const tables = freezeTables(Module.describeOptions());
  return Object.freeze({
    flavour,
    /** Every option table: { decoder, train, experiments: { warmup, ... }, kernels: { rmsNorm, ... } }. */
    describe: () => tables,
    ...createKernelApi(Module, tables),
    ...createDecoderApi(Module, tables),
    experiments: Object.freeze(createExperimentsApi(Module, tables)),
    inspectConfig,
  });
}

const cache = new Map();

/**
 * Loads the lab once per flavour and caches it.
 * @param {{ flavour?: 'auto' | 'simd' | 'scalar' }} [options]  'auto' picks SIMD when the engine validates it.
 */
export function load({ flavour = 'auto' } = {}) {
  if (!['auto', 'simd', 'scalar'].includes(flavour)) throw new Error(`Residual Lab: unknown flavour "${flavour}" (auto, simd or scalar)`);
  const chosen = flavour === 'auto' ? (simdSupported() ? 'simd' : 'scalar') : flavour;
  if (!cache.has(chosen)) {
    const pending = createLab({ flavour: chosen });
    pending.catch(() => cache.delete(chosen));  // a failed load may be retried
    cache.set(chosen, pending);
  }
  return cache.get(chosen);
}

export { ResidualLabError } from './errors.js';
