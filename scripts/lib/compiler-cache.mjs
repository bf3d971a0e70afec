// The compiler cache under every build tree: ccache when it is installed, unless RL_CCACHE=0.
//   native trees (g++, clang++): CMAKE_<LANG>_COMPILER_LAUNCHER, set when the tree is configured
//   WASM trees (em++): EM_COMPILER_WRAPPER, which emcc puts in front of its own clang calls (Emscripten 3.1.6
//   tools/config.py), so ccache sees a plain clang command line
// The cache lives outside the clone (ccache's default, ~/.cache/ccache, or CCACHE_DIR), and base_dir is the
// clone's root: ccache rewrites the absolute paths under it to relative ones before hashing, so a fresh clone
// at another path hits the objects an earlier clone compiled. hash_dir off: the build folder's absolute path
// does not enter the hash of a -g compile either (only the debug info's compilation directory differs).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** ccache's path when it is on PATH and not turned off with RL_CCACHE=0, else null. */
export function findCompilerCache(env = process.env) {
  if (env.RL_CCACHE === '0') return null;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'ccache');
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}

/** The environment a build runs in: `env` plus, when `ccache` is set, the settings above for `root`. */
export function compilerCacheEnv(env, ccache, root) {
  if (!ccache) return env;
  return { ...env, EM_COMPILER_WRAPPER: ccache, CCACHE_BASEDIR: root, CCACHE_NOHASHDIR: '1' };
}

/** The CMake arguments that put `ccache` (or nothing, when null) in front of a native tree's compilers. */
export const launcherArgs = (ccache) => [
  `-DCMAKE_CXX_COMPILER_LAUNCHER=${ccache ?? ''}`,
  `-DCMAKE_C_COMPILER_LAUNCHER=${ccache ?? ''}`,
];

/** ccache's hit and miss counters (`ccache --print-stats`), or null without ccache. */
export function compilerCacheCounts(ccache, env = process.env) {
  if (!ccache) return null;
  const result = spawnSync(ccache, ['--print-stats'], { encoding: 'utf8', env });
  if (result.status !== 0) return null;
  const value = (key) => Number(result.stdout.match(new RegExp(`^${key}\\t(\\d+)`, 'm'))?.[1] ?? 0);
  return {
    hits: value('direct_cache_hit') + value('preprocessed_cache_hit'),
    misses: value('cache_miss'),
  };
}

/** "ccache: 412 hits, 3 misses" for the counts between `before` and `after`, or "no compiler cache". */
export function describeCacheUse(before, after) {
  if (!before || !after) return 'no compiler cache';
  return `ccache: ${after.hits - before.hits} hits, ${after.misses - before.misses} misses`;
}

/** Whether the next build compiles cold or warm: ccache's directory and size, or why there is no cache. */
export function describeCache(ccache, env = process.env) {
  if (!ccache)
    return env.RL_CCACHE === '0'
      ? 'no compiler cache (RL_CCACHE=0): every build compiles cold'
      : 'no compiler cache (ccache is not installed): every build compiles cold';
  const dir = spawnSync(ccache, ['--get-config', 'cache_dir'], { encoding: 'utf8', env }).stdout.trim();
  const stats = spawnSync(ccache, ['--print-stats'], { encoding: 'utf8', env }).stdout;
  const kib = Number(stats.match(/^cache_size_kibibyte\t(\d+)/m)?.[1] ?? 0);
  const files = Number(stats.match(/^files_in_cache\t(\d+)/m)?.[1] ?? 0);
  return files
    ? `ccache in ${dir}: ${files} files, ${(kib / 1024).toFixed(0)} MB; sources compiled before build warm (RL_CCACHE=0: off)`
    : `ccache in ${dir}, empty: the next build compiles cold (RL_CCACHE=0: off)`;
}
