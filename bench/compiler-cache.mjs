#!/usr/bin/env node
// The compiler cache changes no output: the committed tree is exported twice into a temporary folder and the WASM
// SIMD module built in each with one fresh, empty cache directory: cold in the first copy (every object a miss),
// warm in the second (a clone at another path, as a fresh clone meets the cache). The .wasm and the JS glue of
// both must be byte for byte the same. Prints the two build times, ccache's counts and the verdict (exit 1 on a
// difference). `npm run bench -- --only=compiler-cache`; about four minutes on two cores.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compilerCacheCounts, describeCacheUse, findCompilerCache } from '../scripts/lib/compiler-cache.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ccache = findCompilerCache();
if (!ccache) {
  console.log('no ccache on PATH (or RL_CCACHE=0): nothing to compare');
  process.exit(0);
}
const work = mkdtempSync(join(tmpdir(), 'rl-ccache-'));
const env = { ...process.env, CCACHE_DIR: join(work, 'cache') };

function exportTree(dir) {
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync('git', ['archive', 'HEAD'], { cwd: root, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive failed: ${archive.stderr}`);
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules')); // build.mjs imports the site's bundler
}

function buildModule(dir) {
  const before = compilerCacheCounts(ccache, env);
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [join(dir, 'scripts/build.mjs'), '--steps=wasm-simd'], {
    cwd: dir,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (result.status !== 0) throw new Error(`build in ${dir} failed:\n${result.stdout}\n${result.stderr}`);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const out = join(dir, 'build/wasm-simd');
  return {
    seconds,
    cache: describeCacheUse(before, compilerCacheCounts(ccache, env)),
    wasm: readFileSync(join(out, 'residual_lab.wasm')),
    glue: readFileSync(join(out, 'residual_lab.mjs')),
  };
}

try {
  const builds = [];
  for (const name of ['cold', 'warm']) {
    exportTree(join(work, name));
    builds.push({ name, ...buildModule(join(work, name)) });
  }
  for (const b of builds)
    console.log(`${b.name}: the WASM SIMD module in ${b.seconds.toFixed(1)} s (${b.cache}), ${b.wasm.length} bytes`);
  const same = builds[0].wasm.equals(builds[1].wasm) && builds[0].glue.equals(builds[1].glue);
  console.log(
    same
      ? 'the .wasm and its JS glue are byte-identical cold and warm'
      : 'DIFFERENT: the warm build is not the cold one',
  );
  process.exitCode = same ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
