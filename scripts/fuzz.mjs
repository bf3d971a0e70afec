#!/usr/bin/env node
// Runs the fuzz targets of tests/fuzz one after another: the libFuzzer targets of the C++ (ASan + UBSan, built with
// clang++ into build/fuzz) and the JS targets (JS_TARGETS: node scripts over the built dist/, same options).
//   node scripts/fuzz.mjs                   every target for 1 minute (npm run fuzz)
//   node scripts/fuzz.mjs --minutes 30      30 minutes each
//   node scripts/fuzz.mjs --seconds 5       5 seconds each (the suite npm test runs)
//   node scripts/fuzz.mjs --target norms    one target (repeatable)
//   node scripts/fuzz.mjs --no-build        skip the incremental build (test.mjs has just built)
//   node scripts/fuzz.mjs --seeds-only      start from the committed seeds alone, keep nothing (npm test: the same
//                                           work on every machine, however large the local corpus has grown)
// Each run starts from the committed seeds (tests/fuzz/corpus/<target>/, read only) and the local corpus
// (build/fuzz-corpus/<target>/, where new inputs go; copy a small, useful one into the seeds by hand). A crash or a
// failed invariant stops the target, leaves the input in build/fuzz-artifacts/ and fails the run; the output names
// the command that replays it. Ends with "fuzz targets: N passed | N failed". A JS target has no corpus: it mutates
// seeds it writes itself, from a seed that --seeds-only fixes (1) and that is otherwise new each run and printed.
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildFuzz, FUZZ_TARGETS as CPP_TARGETS, fuzzBinary, runSteps } from './build.mjs';
import { runCaptured, SANITIZER_ENV } from './lib/run.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** JS targets by name: the script that fuzzes (and, given files, replays them). */
export const JS_TARGETS = { gguf_header: 'tests/fuzz/gguf_header_fuzz.mjs' };
export const FUZZ_TARGETS = [...CPP_TARGETS, ...Object.keys(JS_TARGETS)];

// Longest input per target: enough for every structure the target reads, short enough to keep runs fast.
const MAX_LEN = { parse_vector: 1024, norms: 2048, decoder_config: 512 };

/** libFuzzer's final statistics (-print_final_stats=1): executions and wall time. */
export function fuzzStats(output) {
  const runs = output.match(/stat::number_of_executed_units:\s*(\d+)/);
  const done = output.match(/Done (\d+) runs in (\d+) second/);
  if (!runs && !done) return null;
  return { runs: Number(runs ? runs[1] : done[1]), seconds: done ? Number(done[2]) : null };
}

/** The last line of a fuzz run: "fuzz targets: P passed | F failed". */
export function countFuzz(output) {
  const m = output.match(/fuzz targets: (\d+) passed \| (\d+) failed/);
  return m ? { passed: Number(m[1]), failed: Number(m[2]) } : null;
}

export async function fuzz({ seconds = 60, targets = FUZZ_TARGETS, build = true, seedsOnly = false } = {}) {
  if (build && targets.some((t) => CPP_TARGETS.includes(t))) buildFuzz();
  if (build && targets.some((t) => t in JS_TARGETS)) await runSteps(['site']);
  const artifacts = join(root, 'build/fuzz-artifacts');
  mkdirSync(artifacts, { recursive: true });
  const results = [];
  for (const target of targets) {
    const script = JS_TARGETS[target];
    const corpus = join(root, seedsOnly ? 'build/fuzz-scratch' : 'build/fuzz-corpus', target);
    if (seedsOnly) rmSync(corpus, { recursive: true, force: true });
    if (!script) mkdirSync(corpus, { recursive: true });
    const jsArgs = () => [
      join(root, script),
      '--seconds',
      String(seconds),
      '--artifacts',
      artifacts,
      '--seed',
      String(seedsOnly ? 1 : Date.now() % 2 ** 31),
    ];
    const cppArgs = () => [
      `-max_total_time=${seconds}`,
      '-timeout=30', // one input taking this long is a hang, reported like a crash
      '-rss_limit_mb=2048',
      `-max_len=${MAX_LEN[target] ?? 1024}`,
      `-artifact_prefix=${artifacts}/${target}-`,
      '-print_final_stats=1',
      corpus, // first folder: where new inputs are written
      join(root, 'tests/fuzz/corpus', target), // the committed seeds, read only
    ];
    console.log(`\n--- fuzz ${target} (${seconds} s) ---`);
    const [cmd, args] = script ? [process.execPath, jsArgs()] : [fuzzBinary(target), cppArgs()];
    const { status, output } = await runCaptured(cmd, args, {
      env: SANITIZER_ENV,
      cwd: root,
      quiet: true,
    });
    const stats = fuzzStats(output);
    const ok = status === 0 && stats !== null;
    const rate = stats?.seconds ? Math.round(stats.runs / stats.seconds) : null;
    if (ok) {
      console.log(
        `fuzz ${target}: ok, ${stats.runs} executions in ${stats.seconds} s${rate === null ? '' : ` (${rate}/s)`}`,
      );
    } else {
      // The report (FUZZ_CHECK, sanitizer, libFuzzer) and the top of its stack; the rest is progress noise.
      const lines = output.split('\n');
      const first = lines.findIndex((l) => /FUZZ_CHECK failed|==\d+==\s*ERROR|runtime error:|ERROR: libFuzzer/.test(l));
      console.log(lines.slice(first < 0 ? -40 : first, first < 0 ? undefined : first + 24).join('\n'));
      const crash = output.match(/Test unit written to (\S+)/);
      console.log(
        `fuzz ${target}: FAILED (exit ${status})` +
          (crash
            ? `; replay: ${script ? `node ${script}` : relative(root, fuzzBinary(target))} ${relative(root, crash[1])}`
            : ''),
      );
    }
    results.push({ target, ok, ...stats, rate });
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(`fuzz targets: ${results.length - failed} passed | ${failed} failed`);
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  let seconds = 60;
  const targets = [];
  let build = true;
  let seedsOnly = false;
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--minutes') seconds = Math.round(Number(argv[++i]) * 60);
    else if (a === '--seconds') seconds = Math.round(Number(argv[++i]));
    else if (a === '--target') targets.push(argv[++i]);
    else if (a === '--no-build') build = false;
    else if (a === '--seeds-only') seedsOnly = true;
    else {
      console.error(
        `fuzz: unknown argument ${a} (use --minutes N, --seconds N, --target NAME, --no-build, --seeds-only)`,
      );
      process.exit(2);
    }
  }
  for (const t of targets) {
    if (!FUZZ_TARGETS.includes(t)) {
      console.error(`fuzz: no target ${t} (targets: ${FUZZ_TARGETS.join(', ')})`);
      process.exit(2);
    }
  }
  if (!(seconds >= 1)) {
    console.error('fuzz: the time per target must be at least 1 second');
    process.exit(2);
  }
  try {
    const results = await fuzz({ seconds, targets: targets.length ? targets : FUZZ_TARGETS, build, seedsOnly });
    process.exit(results.every((r) => r.ok) ? 0 : 1);
  } catch (err) {
    console.error(`fuzz: ${err.message}`);
    console.log('fuzz targets: 0 passed | 1 failed');
    process.exit(1);
  }
}
