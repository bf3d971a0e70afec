#!/usr/bin/env node
// The tree's formatting: Prettier for JS, CSS, JSON and Markdown (README, docs/, the chapters), clang-format for C++.
//   node scripts/format.mjs           rewrite every file that differs
//   node scripts/format.mjs --check   change nothing; one check per formatter, and the files that differ
// The last line of --check is "format: N passed | N failed" (one per formatter), which the test suite reads.
// The files each formatter owns are chosen by .prettierignore and CPP_GLOBS below; .prettierrc.mjs says how the
// Markdown is kept (the authors' line breaks; the chapters' wide tables compact).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CPP_GLOBS = ['*.cpp', '*.hpp', '*.h'];
const CLANG_FORMAT = 'clang-format';

/** The tracked C++ sources (git ls-files, so build trees and vendored headers stay out). */
function cppFiles() {
  const listed = spawnSync('git', ['ls-files', '--', ...CPP_GLOBS], { cwd: root, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout.split('\n').filter(Boolean);
}

function runTool(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.error) return { ok: false, output: `${cmd}: ${result.error.message}` };
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

const prettierBin = join(root, 'node_modules/.bin/prettier');

export const FORMATTERS = [
  {
    name: 'prettier',
    check: () => runTool(prettierBin, ['--check', '.']),
    write: () => runTool(prettierBin, ['--write', '--log-level', 'warn', '.']),
  },
  {
    name: 'clang-format',
    check: () => runTool(CLANG_FORMAT, ['--dry-run', '-Werror', ...cppFiles()]),
    write: () => runTool(CLANG_FORMAT, ['-i', ...cppFiles()]),
  },
];

/** "format: 2 passed | 0 failed" -> { passed, failed } (the test runner's reader). */
export function countFormat(output) {
  const m = output.match(/format: (\d+) passed \| (\d+) failed/);
  return m ? { passed: Number(m[1]), failed: Number(m[2]) } : null;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const check = process.argv.includes('--check');
  let passed = 0;
  let failed = 0;
  for (const formatter of FORMATTERS) {
    const { ok, output } = check ? formatter.check() : formatter.write();
    if (ok) passed += 1;
    else failed += 1;
    console.log(`${formatter.name}: ${ok ? 'ok' : check ? 'files differ (run npm run format)' : 'failed'}`);
    if (!ok) console.log(output.trim().split('\n').slice(0, 40).join('\n'));
  }
  console.log(`format: ${passed} passed | ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
