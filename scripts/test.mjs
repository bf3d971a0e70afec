#!/usr/bin/env node
// Runs the test suites (scripts/lib/test-suites.mjs: C++ natively, sanitized and in both WASM builds, fuzz, the JS
// API, the browser) and ends with one line: "N passed, N failed" (test cases across the suites run).
//   node scripts/test.mjs                  every suite (npm test)
//   node scripts/test.mjs --only=js,fuzz   those suites, after building only the steps they need
//   node scripts/test.mjs --list           the suites' names, what each builds first
// Suites run even when an earlier one fails, so one run shows everything; the exit code is the verdict. Each
// suite's duration is printed after it and in the summary.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runSteps } from './build.mjs';
import { buildsFor, selectSuites, SUITES } from './lib/test-suites.mjs';
import { runCaptured } from './lib/run.mjs';
import { compilerCacheCounts, describeCache, describeCacheUse, findCompilerCache } from './lib/compiler-cache.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const seconds = (since) => (Number(process.hrtime.bigint() - since) / 1e9).toFixed(1);

/**
 * Builds what `suites` need (`build(steps)`), runs them one after another and prints each one's duration, then the
 * summary and the closing line; resolves to the exit code. `log` takes each line printed.
 */
export async function runSuites(suites, { build = runSteps, log = console.log } = {}) {
  const buildStart = process.hrtime.bigint();
  const ccache = findCompilerCache();
  const cacheBefore = compilerCacheCounts(ccache);
  try {
    await build(buildsFor(suites));
  } catch (err) {
    console.error(`\nresidual-lab: build failed: ${err.message}`);
    log('0 passed, 1 failed');
    return 1;
  }
  const buildSeconds = seconds(buildStart);
  const cacheUse = describeCacheUse(cacheBefore, compilerCacheCounts(ccache));
  const results = [];
  for (const suite of suites) {
    log(`\n=== ${suite.title} ===`);
    const start = process.hrtime.bigint();
    const [cmd, cmdArgs] = suite.command();
    const { status, output } = await runCaptured(cmd, cmdArgs, { cwd: root, env: suite.env });
    let counts = suite.count(output);
    if (!counts || counts.passed + counts.failed === 0) counts = { passed: 0, failed: 1, note: 'ran no test' };
    else if (status !== 0 && counts.failed === 0) counts = { ...counts, failed: 1, note: `exit ${status}` };
    const took = seconds(start);
    log(`--- ${suite.title}: ${took} s`);
    results.push({ suite: suite.title, seconds: took, ...counts });
  }
  log('\n=== Summary ===');
  log(`${'Build'.padEnd(16)} ${' '.repeat(26)}${buildSeconds.padStart(8)} s  (${cacheUse})`);
  for (const r of results) {
    log(
      `${r.suite.padEnd(16)} ${String(r.passed).padStart(4)} passed  ${String(r.failed).padStart(3)} failed  ${r.seconds.padStart(8)} s${r.note ? `  (${r.note})` : ''}`,
    );
  }
  const passed = results.reduce((s, r) => s + r.passed, 0);
  const failed = results.reduce((s, r) => s + r.failed, 0);
  log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

async function main(args) {
  if (args.includes('--list')) {
    console.log(`${'(builds)'.padEnd(16)} ${describeCache(findCompilerCache())}`);
    for (const suite of SUITES)
      console.log(`${suite.name.padEnd(16)} ${suite.title.padEnd(16)} builds: ${buildsFor([suite]).join(', ')}`);
    return 0;
  }
  const only = args.find((a) => a.startsWith('--only='));
  try {
    return await runSuites(selectSuites(only ? only.slice('--only='.length).split(',').filter(Boolean) : []));
  } catch (err) {
    console.error(`residual-lab: ${err.message}`);
    return 2;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.exit(await main(process.argv.slice(2)));
