// The shipped WASM SIMD module, raw: its Emscripten glue and binary in dist/lib/wasm/ (content-hashed names), and
// an instance of it for the tests that call its raw exports (Module._rl_*) with no lab around them.
// Needs `node scripts/build.mjs` (dist/).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';

const WASM_DIR = new URL('../../dist/lib/wasm/', import.meta.url);

/** The shipped SIMD build's glue ('mjs') or binary ('wasm'), as a file URL. */
export function simdModuleFile(extension) {
  const name = readdirSync(WASM_DIR).find((f) => f.startsWith('residual_lab_simd-') && f.endsWith(`.${extension}`));
  assert.ok(name, `no residual_lab_simd-*.${extension} in dist/lib/wasm/: run \`node scripts/build.mjs\` first`);
  return new URL(name, WASM_DIR);
}

/** A new instance of the shipped SIMD module (its own heap), compiled from its binary and made by its glue. */
export async function instantiateSimdModule() {
  const { default: createModule } = await import(simdModuleFile('mjs').href);
  return createModule({ wasmBinary: readFileSync(simdModuleFile('wasm')) });
}
