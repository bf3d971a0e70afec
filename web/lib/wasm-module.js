// The WebAssembly under the API: which build runs (the relaxed build, SIMD with the fused multiply-add, where the
// engine validates relaxed SIMD; the SIMD build where it validates WASM SIMD; the scalar build of the same C++
// elsewhere), its .wasm fetched and compiled once per page (so the Emscripten glue never
// fetches and never needs node's __dirname, and lab workers instantiate the page's compiled module instead of
// compiling their own), and its instance. Every failure here is a ResidualLabError with a code.
import { ResidualLabError } from './errors.js';
import { nextTask } from './next-task.js';
import { importNodeModule } from './node-module.js';

// (module (func (result v128) (f32x4.splat (f32.const 0)))): validates only where WASM SIMD is supported.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 11, 1, 9, 0, 67, 0, 0, 0, 0, 253, 19, 11,
]);

// (module (func (param v128) (result v128) (f32x4.relaxed_madd (local.get 0) (local.get 0) (local.get 0)))):
// validates only where relaxed SIMD is supported, with the standard opcode the relaxed build is given.
const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 0, 32, 0, 253, 133,
  2, 11,
]);

const validates = (bytes) => {
  try {
    return WebAssembly.validate(bytes);
  } catch {
    return false;
  }
};

export const simdSupported = () => validates(SIMD_PROBE);
export const relaxedSimdSupported = () => validates(RELAXED_SIMD_PROBE);

const isNode =
  typeof process === 'object' && typeof process.versions?.node === 'string' && typeof window === 'undefined';

// The builds, in the order 'auto' prefers them, each with what the engine must validate to run it (scripts/build.mjs
// builds one CMake tree per flavour, build/wasm-<flavour>).
const SUPPORTED = { relaxed: relaxedSimdSupported, simd: simdSupported, scalar: () => true };
export const FLAVOURS = Object.keys(SUPPORTED);

// The one place that names the files of a build (a build step that renames them maps these URLs).
const glueUrl = (flavour) =>
  ({
    relaxed: new URL('./wasm/residual_lab_relaxed.mjs', import.meta.url),
    simd: new URL('./wasm/residual_lab_simd.mjs', import.meta.url),
    scalar: new URL('./wasm/residual_lab_scalar.mjs', import.meta.url),
  })[flavour];
const wasmUrl = (flavour) =>
  ({
    relaxed: new URL('./wasm/residual_lab_relaxed.wasm', import.meta.url),
    simd: new URL('./wasm/residual_lab_simd.wasm', import.meta.url),
    scalar: new URL('./wasm/residual_lab_scalar.wasm', import.meta.url),
  })[flavour];

/** 'relaxed', 'simd' or 'scalar' for a flavour option ('auto': the first the engine validates). */
export function chooseFlavour(flavour = 'auto') {
  if (flavour !== 'auto' && !FLAVOURS.includes(flavour))
    throw new ResidualLabError(`Residual Lab: unknown flavour "${flavour}" (auto, ${FLAVOURS.join(', ')})`, {
      code: 'invalid_options',
    });
  return flavour === 'auto' ? FLAVOURS.find((name) => SUPPORTED[name]()) : flavour;
}

/** The flavour a load runs, with a precompiled `module` checked: it needs its flavour named. */
export function checkLoadOptions({ flavour = 'auto', module } = {}) {
  const chosen = chooseFlavour(flavour);
  if (module !== undefined) {
    if (!(module instanceof WebAssembly.Module))
      throw new ResidualLabError('Residual Lab: module must be a WebAssembly.Module (from compileWasm)', {
        code: 'invalid_options',
      });
    if (flavour === 'auto')
      throw new ResidualLabError(`Residual Lab: a precompiled module needs its flavour (${FLAVOURS.join(', ')})`, {
        code: 'invalid_options',
      });
  }
  return chosen;
}

const compileFailed = (url, error) =>
  new ResidualLabError(`Residual Lab: could not compile ${url.href} (${error?.message ?? error})`, {
    code: 'unavailable',
  });

/** The WebAssembly.Module at `url`: offline (unreachable), http_error (an error status), unavailable (not WASM). */
export async function compileFrom(url) {
  if (isNode && url.protocol === 'file:') {
    const { readFile } = await importNodeModule('node:fs/promises');
    const bytes = await readFile(url).catch((error) => {
      throw new ResidualLabError(`Residual Lab: could not read ${url.href} (${error.message})`, {
        code: 'unavailable',
      });
    });
    return WebAssembly.compile(bytes).catch((error) => Promise.reject(compileFailed(url, error)));
  }
  const response = await fetch(url).catch((error) => {
    throw new ResidualLabError(`Residual Lab: could not fetch ${url.href} (${error?.message ?? error})`, {
      code: 'offline',
    });
  });
  if (!response.ok)
    throw new ResidualLabError(`Residual Lab: could not fetch ${url.href} (HTTP ${response.status})`, {
      code: 'http_error',
    });
  // Streaming compilation overlaps the download; it needs the application/wasm type, else the bytes are compiled.
  const compiling =
    typeof WebAssembly.compileStreaming === 'function' &&
    response.headers.get('content-type')?.split(';')[0].trim() === 'application/wasm'
      ? WebAssembly.compileStreaming(response)
      : response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes));
  return compiling.catch((error) => Promise.reject(compileFailed(url, error)));
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
/**
 * The Emscripten module of `flavour` over an instance of `givenModule` (else of compileWasm(flavour)). A module
 * given is this context's compileWasm(flavour) from then on, so the workers it starts (a split run's) get it too.
 */
export async function instantiate(flavour, givenModule) {
  if (givenModule && !compiled.has(flavour)) compiled.set(flavour, Promise.resolve(givenModule));
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
        .catch((error) =>
          instantiationFailed(
            new ResidualLabError(
              `Residual Lab: could not instantiate the ${flavour} build (${error?.message ?? error})`,
              {
                code: 'unavailable',
              },
            ),
          ),
        );
      return {};
    },
  });
  return Promise.race([ready, failure]);
}
