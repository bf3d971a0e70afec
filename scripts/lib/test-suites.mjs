// The test suites of `npm test`, one row each: its name for --only, its title, the build steps it needs
// (scripts/build.mjs STEPS), the command that runs it and the reader of that command's counts. A new suite is one
// row here. Importing this file runs nothing.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILDS, planBuild } from '../build.mjs';
import { countFormat } from '../format.mjs';
import { countFuzz } from '../fuzz.mjs';
import { SANITIZER_ENV } from './run.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Catch2 2.13 console summary: "All tests passed (A assertions in N test cases)" or "test cases: N | P passed | F failed". */
export function countCatch2(output) {
  const allPassed = output.match(/All tests passed \(\d+ assertions? in (\d+) test cases?\)/);
  if (allPassed) return { passed: Number(allPassed[1]), failed: 0 };
  const mixed = output.match(/test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed/);
  if (mixed) return { passed: Number(mixed[2]), failed: Number(mixed[3]) };
  const allFailed = output.match(/test cases:\s*(\d+)\s*\|\s*(\d+) failed/);
  if (allFailed) return { passed: 0, failed: Number(allFailed[2]) };
  return null;
}

/** node --test (spec reporter) summary lines: "ℹ pass N" and "ℹ fail N", the last of each (the run's own summary
 * ends the output; a test may print a child run's summary before it). */
export function countNodeTest(output) {
  const last = (pattern) => [...output.matchAll(pattern)].at(-1);
  const pass = last(/^\S*\s*pass (\d+)$/gm);
  const fail = last(/^\S*\s*fail (\d+)$/gm);
  if (!pass || !fail) return null;
  return { passed: Number(pass[1]), failed: Number(fail[1]) };
}

const testFiles = (dir) =>
  existsSync(join(root, dir))
    ? readdirSync(join(root, dir))
        .filter((f) => f.endsWith('.test.mjs'))
        .sort()
        .map((f) => join(dir, f))
    : [];
const catch2 = ['--use-colour', 'no'];
const nodeTest = ['--test', '--test-reporter=spec'];

export const SUITES = [
  {
    name: 'cpp-native',
    title: 'C++ native',
    builds: ['native-tests'],
    command: () => [join(BUILDS.native.dir, 'residual_lab_tests'), catch2],
    count: countCatch2,
  },
  // The whole default suite ([.figures] stays hidden): about 75 s of CPU under the sanitizers, two thirds of it in
  // the [experiments] tests; kept whole because the experiments' code is sanitized nowhere else.
  {
    name: 'cpp-sanitized',
    title: 'C++ sanitized',
    builds: ['native-sanitize-tests'],
    env: SANITIZER_ENV,
    command: () => [join(BUILDS['native-sanitize'].dir, 'residual_lab_tests'), catch2],
    count: countCatch2,
  },
  {
    name: 'cpp-wasm-simd',
    title: 'C++ WASM SIMD',
    builds: ['wasm-simd-tests'],
    command: () => [
      process.execPath,
      ['--no-experimental-fetch', join(BUILDS['wasm-simd'].dir, 'residual_lab_tests.js'), ...catch2],
    ],
    count: countCatch2,
  },
  // Node 20 runs relaxed SIMD behind its flag (the standard opcodes; browsers that ship it need none).
  {
    name: 'cpp-wasm-relaxed',
    title: 'C++ WASM relaxed SIMD',
    builds: ['wasm-relaxed-tests'],
    command: () => [
      process.execPath,
      [
        '--no-experimental-fetch',
        '--experimental-wasm-relaxed-simd',
        join(BUILDS['wasm-relaxed'].dir, 'residual_lab_tests.js'),
        ...catch2,
      ],
    ],
    count: countCatch2,
  },
  {
    name: 'cpp-wasm-scalar',
    title: 'C++ WASM scalar',
    builds: ['wasm-scalar-tests'],
    command: () => [
      process.execPath,
      ['--no-experimental-fetch', join(BUILDS['wasm-scalar'].dir, 'residual_lab_tests.js'), ...catch2],
    ],
    count: countCatch2,
  },
  // One test per target: it passes when its 5 s run from the committed seeds finds no crash and no failed invariant.
  {
    name: 'fuzz',
    title: 'Fuzz',
    builds: ['fuzz', 'site'],
    command: () => [process.execPath, [join(root, 'scripts/fuzz.mjs'), '--seconds', '5', '--seeds-only', '--no-build']],
    count: countFuzz,
  },
  {
    name: 'js',
    title: 'JS API',
    builds: ['site'],
    command: () => [process.execPath, [...nodeTest, ...testFiles('tests/js')]],
    count: countNodeTest,
  },
  {
    name: 'browser',
    title: 'Browser',
    builds: ['site'],
    command: () => [process.execPath, [...nodeTest, '--test-concurrency=1', ...testFiles('tests/e2e')]],
    count: countNodeTest,
  },
  // Prettier and clang-format with the repository's configurations: one check each, no build.
  {
    name: 'format',
    title: 'Formatting',
    builds: [],
    command: () => [process.execPath, [join(root, 'scripts/format.mjs'), '--check']],
    count: countFormat,
  },
];

/** The suites named in `names` (all when empty), in table order; throws naming the unknown ones and the choices. */
export function selectSuites(names = []) {
  const unknown = names.filter((name) => !SUITES.some((suite) => suite.name === name));
  if (unknown.length)
    throw new Error(
      `unknown suite ${unknown.map((n) => `"${n}"`).join(', ')} (the suites: ${SUITES.map((s) => s.name).join(', ')})`,
    );
  return names.length ? SUITES.filter((suite) => names.includes(suite.name)) : SUITES;
}

/** The build steps that running `suites` takes, with what they need, in build order. */
export const buildsFor = (suites) => planBuild(suites.flatMap((suite) => suite.builds));
