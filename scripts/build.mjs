#!/usr/bin/env node
// Builds Residual Lab: the native library, the WASM module (SIMD and scalar), and the static site in dist/.
//   node scripts/build.mjs            what the page needs
//   node scripts/build.mjs --tests    also the Catch2 suite, natively (plain and with ASan + UBSan) and in both WASM
//                                     builds, and the libFuzzer targets of tests/fuzz (clang++)
//   node scripts/build.mjs --bench    also the benchmark binary in the three builds
//   node scripts/build.mjs --site-only  the site alone, from the C++ builds as they are
// Every step is incremental (CMake, and the copy into dist/ is cheap), so a second run takes seconds.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EMSCRIPTEN_ENV, NODE_EMULATOR, run } from './lib/run.mjs';
import { buildSiteAssets } from './lib/site-assets.mjs';
import { withoutCustomSections } from './lib/wasm-sections.mjs';
import { buildOffline } from './offline.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const jobs = process.env.RL_JOBS ?? '2';

export const BUILDS = {
  native: { dir: join(root, 'build/native'), wasm: false, simd: true },
  'wasm-simd': { dir: join(root, 'build/wasm-simd'), wasm: true, simd: true },
  'wasm-scalar': { dir: join(root, 'build/wasm-scalar'), wasm: true, simd: false },
  // Benchmark only: g++ for plain x86-64 (SSE2, no -march=native), where f32x4 is one 4-lane SSE register as in
  // WASM SIMD: the speed 4-lane code reaches natively, the yardstick for the WASM SIMD build.
  'native-4lane': { dir: join(root, 'build/native-4lane'), wasm: false, simd: true, nativeArch: false },
  // The Catch2 suite again under AddressSanitizer and UBSan (Release: the sanitizers' checks, the suite's speed).
  'native-sanitize': { dir: join(root, 'build/native-sanitize'), wasm: false, simd: true, sanitize: true },
  // libFuzzer needs clang; the main native build stays g++.
  fuzz: { dir: join(root, 'build/fuzz'), wasm: false, simd: true, fuzz: true },
};

// tests/fuzz/<name>_fuzz.cpp builds build/fuzz/tests/fuzz/fuzz_<name>; seeds in tests/fuzz/corpus/<name>/.
export const FUZZ_TARGETS = ['parse_vector', 'norms', 'decoder_config'];
export const fuzzBinary = (name) => join(BUILDS.fuzz.dir, 'tests/fuzz', `fuzz_${name}`);

function configure(build) {
  if (existsSync(join(build.dir, 'CMakeCache.txt'))) return;  // CMake re-runs itself when CMakeLists changes
  const args = ['-S', root, '-B', build.dir, '-DCMAKE_BUILD_TYPE=Release', `-DRL_SIMD=${build.simd ? 'ON' : 'OFF'}`];
  if (build.nativeArch === false) args.push('-DRL_NATIVE_ARCH=OFF');
  if (build.sanitize) args.push('-DRL_SANITIZE=ON', '-DRL_BUILD_BENCH=OFF');
  if (build.fuzz) args.push('-DCMAKE_CXX_COMPILER=clang++', '-DRL_FUZZ=ON', '-DRL_BUILD_TESTS=OFF', '-DRL_BUILD_BENCH=OFF');
  if (build.wasm) run('emcmake', ['cmake', ...args, `-DCMAKE_CROSSCOMPILING_EMULATOR=${NODE_EMULATOR}`], { env: EMSCRIPTEN_ENV });
  else run('cmake', args);
}

function compile(build, targets) {
  configure(build);
  run('cmake', ['--build', build.dir, '-j', jobs, '--target', ...targets], { env: EMSCRIPTEN_ENV });
}

/**
 * The site: web/ with the two WASM builds, uPlot and the rendered pages is assembled in .dist-site/ (a plain tree
 * of ES modules, as the source reads), then bundled, minified, content-hashed and precompressed into dist/
 * (scripts/lib/site-assets.mjs). Always the same place beside dist/: esbuild's hashes depend on the path from the
 * output to the sources, so the same sources then get the same names in every build.
 */
async function assembleSite() {
  const site = join(root, '.dist-site');
  rmSync(site, { recursive: true, force: true });
  try {
    cpSync(join(root, 'web'), site, { recursive: true });
    const wasmOut = join(site, 'lib/wasm');
    mkdirSync(wasmOut, { recursive: true });
    for (const flavour of ['simd', 'scalar']) {
      const dir = BUILDS[`wasm-${flavour}`].dir;
      cpSync(join(dir, 'residual_lab.mjs'), join(wasmOut, `residual_lab_${flavour}.mjs`));
      // Function names stay in build/ (profiles, stack traces, the SIMD test's disassembly); readers are sent the
      // code without them, about a sixth of the file.
      writeFileSync(join(wasmOut, `residual_lab_${flavour}.wasm`), withoutCustomSections(readFileSync(join(dir, 'residual_lab.wasm'))));
    }
    // Formulas are typeset to MathML at build time (scripts/pages.mjs): the page needs no KaTeX at run time.
    cpSync(join(root, 'node_modules/uplot/dist'), join(site, 'vendor/uplot'), { recursive: true });
    const { renderPages } = await import(pathToFileURL(join(root, 'scripts/pages.mjs')));
    await renderPages({ rootDir: root, outDir: site });
    rmSync(dist, { recursive: true, force: true });  // dist/ is all generated: no stale file survives a build
    mkdirSync(dist, { recursive: true });
    await buildSiteAssets({ siteDir: site, outDir: dist });
    await buildOffline({ siteDir: site, outDir: dist });  // dist/offline/residual-lab-<lang>.html
  } finally {
    rmSync(site, { recursive: true, force: true });
  }
}

export function buildFuzz() {
  compile(BUILDS.fuzz, FUZZ_TARGETS.map((name) => `fuzz_${name}`));
}

export async function build({ tests = false, bench = false, siteOnly = false } = {}) {
  if (siteOnly) return assembleSite();  // the C++ builds as they are (web/ and content/ changes only)
  const extra = [...(tests ? ['residual_lab_tests'] : []), ...(bench ? ['residual_lab_bench'] : [])];
  compile(BUILDS.native, ['residual_lab', ...extra]);
  compile(BUILDS['wasm-simd'], ['residual_lab_module', ...extra]);
  compile(BUILDS['wasm-scalar'], ['residual_lab_module', ...extra]);
  if (bench) compile(BUILDS['native-4lane'], ['residual_lab_bench']);
  if (tests) {
    compile(BUILDS['native-sanitize'], ['residual_lab_tests']);
    buildFuzz();
  }
  await assembleSite();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = new Set(process.argv.slice(2));
  try {
    await build({ tests: args.has('--tests'), bench: args.has('--bench'), siteOnly: args.has('--site-only') });
    console.log(`residual-lab: built ${dist}`);
  } catch (err) {
    console.error(`residual-lab: build failed: ${err.message}`);
    process.exit(1);
  }
}
