#!/usr/bin/env node
// Builds Residual Lab from named steps (STEPS below), each an incremental CMake build of one tree or the site:
//   node scripts/build.mjs            what the page needs: the native library, the WASM module in its three builds
//                                     (FLAVOURS: relaxed SIMD, SIMD, scalar) and the static site in dist/ (four
//                                     CMake trees)
//   node scripts/build.mjs --tests    also the Catch2 suite natively, with ASan + UBSan (build/native-sanitize),
//                                     in the three WASM builds, and the libFuzzer targets of tests/fuzz (clang++,
//                                     build/fuzz): six CMake trees
//   node scripts/build.mjs --bench    also the benchmark binary natively, in the WASM builds and in a native tree
//                                     without -march=native (build/native-4lane)
//   node scripts/build.mjs --site-only  the site alone, from the C++ builds as they are
//   node scripts/build.mjs --steps=site,native-tests   just those steps (and the steps they need)
// Every step is incremental (CMake, and the copy into dist/ is cheap), so a second run takes seconds.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compilerCacheEnv, findCompilerCache, launcherArgs } from './lib/compiler-cache.mjs';
import { EMSCRIPTEN_ENV, NODE_EMULATOR, run } from './lib/run.mjs';
import { buildSiteAssets } from './lib/site-assets.mjs';
import { withoutCustomSections } from './lib/wasm-sections.mjs';
import { FLAVOURS } from '../web/lib/wasm-module.js';
import { buildOffline } from './offline.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const jobs = process.env.RL_JOBS ?? '2';

export const BUILDS = {
  native: { dir: join(root, 'build/native'), wasm: false, simd: true },
  // SIMD with relaxed SIMD's fused multiply-add, for engines that validate it (wasm-module.js picks it first).
  'wasm-relaxed': { dir: join(root, 'build/wasm-relaxed'), wasm: true, simd: true, relaxed: true },
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

// ccache, or null (scripts/lib/compiler-cache.mjs): RL_CCACHE=0 builds without it.
const ccache = findCompilerCache();
const buildEnv = compilerCacheEnv(EMSCRIPTEN_ENV, ccache, root);

/** The compiler launcher a configured native tree uses ('' for none), read from its CMakeCache.txt. */
function configuredLauncher(build) {
  const cache = readFileSync(join(build.dir, 'CMakeCache.txt'), 'utf8');
  return cache.match(/^CMAKE_CXX_COMPILER_LAUNCHER:[A-Z]+=(.*)$/m)?.[1] ?? '';
}

function configure(build) {
  if (existsSync(join(build.dir, 'CMakeCache.txt'))) {
    // CMake re-runs itself when CMakeLists changes; a native tree is reconfigured when ccache came or went.
    if (!build.wasm && configuredLauncher(build) !== (ccache ?? '')) run('cmake', [build.dir, ...launcherArgs(ccache)]);
    return;
  }
  const args = ['-S', root, '-B', build.dir, '-DCMAKE_BUILD_TYPE=Release', `-DRL_SIMD=${build.simd ? 'ON' : 'OFF'}`];
  if (build.relaxed) args.push('-DRL_RELAXED_SIMD=ON');
  if (build.nativeArch === false) args.push('-DRL_NATIVE_ARCH=OFF');
  if (build.sanitize) args.push('-DRL_SANITIZE=ON', '-DRL_BUILD_BENCH=OFF');
  if (build.fuzz)
    args.push('-DCMAKE_CXX_COMPILER=clang++', '-DRL_FUZZ=ON', '-DRL_BUILD_TESTS=OFF', '-DRL_BUILD_BENCH=OFF');
  if (build.wasm)
    run('emcmake', ['cmake', ...args, `-DCMAKE_CROSSCOMPILING_EMULATOR=${NODE_EMULATOR}`], { env: buildEnv });
  else run('cmake', [...args, ...launcherArgs(ccache)]);
}

function compile(build, targets) {
  configure(build);
  run('cmake', ['--build', build.dir, '-j', jobs, '--target', ...targets], { env: buildEnv });
}

/**
 * The site: web/ with the WASM builds, uPlot and the rendered pages is assembled in .dist-site/ (a plain tree
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
    for (const flavour of FLAVOURS) {
      const dir = BUILDS[`wasm-${flavour}`].dir;
      cpSync(join(dir, 'residual_lab.mjs'), join(wasmOut, `residual_lab_${flavour}.mjs`));
      // Function names stay in build/ (profiles, stack traces, the SIMD test's disassembly); readers are sent the
      // code without them, about a sixth of the file.
      writeFileSync(
        join(wasmOut, `residual_lab_${flavour}.wasm`),
        withoutCustomSections(readFileSync(join(dir, 'residual_lab.wasm'))),
      );
    }
    // Formulas are typeset to MathML at build time (scripts/pages.mjs): the page needs no KaTeX at run time.
    cpSync(join(root, 'node_modules/uplot/dist'), join(site, 'vendor/uplot'), { recursive: true });
    const { renderPages } = await import(pathToFileURL(join(root, 'scripts/pages.mjs')));
    await renderPages({ rootDir: root, outDir: site });
    rmSync(dist, { recursive: true, force: true }); // dist/ is all generated: no stale file survives a build
    mkdirSync(dist, { recursive: true });
    await buildSiteAssets({ siteDir: site, outDir: dist });
    await buildOffline({ siteDir: site, outDir: dist }); // dist/offline/residual-lab-<lang>.html
  } finally {
    rmSync(site, { recursive: true, force: true });
  }
}

export function buildFuzz() {
  compile(
    BUILDS.fuzz,
    FUZZ_TARGETS.map((name) => `fuzz_${name}`),
  );
}

/**
 * The build steps, in the order they run. `needs`: steps that must run first (planBuild adds them). A test suite
 * names the steps it needs (scripts/lib/test-suites.mjs), so running one suite builds only those.
 */
export const STEPS = {
  native: { needs: [], run: () => compile(BUILDS.native, ['residual_lab']) },
  'native-tests': { needs: [], run: () => compile(BUILDS.native, ['residual_lab_tests']) },
  'native-bench': { needs: [], run: () => compile(BUILDS.native, ['residual_lab_bench']) },
  'wasm-relaxed': { needs: [], run: () => compile(BUILDS['wasm-relaxed'], ['residual_lab_module']) },
  'wasm-relaxed-tests': { needs: [], run: () => compile(BUILDS['wasm-relaxed'], ['residual_lab_tests']) },
  'wasm-relaxed-bench': { needs: [], run: () => compile(BUILDS['wasm-relaxed'], ['residual_lab_bench']) },
  'wasm-simd': { needs: [], run: () => compile(BUILDS['wasm-simd'], ['residual_lab_module']) },
  'wasm-simd-tests': { needs: [], run: () => compile(BUILDS['wasm-simd'], ['residual_lab_tests']) },
  'wasm-simd-bench': { needs: [], run: () => compile(BUILDS['wasm-simd'], ['residual_lab_bench']) },
  'wasm-scalar': { needs: [], run: () => compile(BUILDS['wasm-scalar'], ['residual_lab_module']) },
  'wasm-scalar-tests': { needs: [], run: () => compile(BUILDS['wasm-scalar'], ['residual_lab_tests']) },
  'wasm-scalar-bench': { needs: [], run: () => compile(BUILDS['wasm-scalar'], ['residual_lab_bench']) },
  'native-4lane-bench': { needs: [], run: () => compile(BUILDS['native-4lane'], ['residual_lab_bench']) },
  'native-sanitize-tests': { needs: [], run: () => compile(BUILDS['native-sanitize'], ['residual_lab_tests']) },
  fuzz: { needs: [], run: buildFuzz },
  site: { needs: FLAVOURS.map((flavour) => `wasm-${flavour}`), run: assembleSite },
};

/** The steps to run for `wanted` (step names): those and what they need, in STEPS order. Throws on an unknown name. */
export function planBuild(wanted) {
  const chosen = new Set();
  const add = (name) => {
    if (!Object.hasOwn(STEPS, name))
      throw new Error(`unknown build step "${name}" (the steps: ${Object.keys(STEPS).join(', ')})`);
    if (chosen.has(name)) return;
    chosen.add(name);
    STEPS[name].needs.forEach(add);
  };
  wanted.forEach(add);
  return Object.keys(STEPS).filter((name) => chosen.has(name));
}

export async function runSteps(names) {
  for (const name of planBuild(names)) await STEPS[name].run();
}

/** The steps of `node scripts/build.mjs` with those flags. */
export function stepsOf({ tests = false, bench = false } = {}) {
  const wasm = FLAVOURS.map((flavour) => `wasm-${flavour}`);
  const steps = ['native', ...wasm, 'site'];
  if (tests) steps.push('native-tests', ...wasm.map((step) => `${step}-tests`), 'native-sanitize-tests', 'fuzz');
  if (bench) steps.push('native-bench', ...wasm.map((step) => `${step}-bench`), 'native-4lane-bench');
  return steps;
}

export async function build({ tests = false, bench = false, siteOnly = false } = {}) {
  if (siteOnly) return assembleSite(); // the C++ builds as they are (web/ and content/ changes only)
  return runSteps(stepsOf({ tests, bench }));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const named = args.find((a) => a.startsWith('--steps='));
  try {
    if (named) await runSteps(named.slice('--steps='.length).split(',').filter(Boolean));
    else
      await build({
        tests: args.includes('--tests'),
        bench: args.includes('--bench'),
        siteOnly: args.includes('--site-only'),
      });
    console.log(`residual-lab: built ${dist}`);
  } catch (err) {
    console.error(`residual-lab: build failed: ${err.message}`);
    process.exit(1);
  }
}
