// A copy of the repository as the work tree has it, for the tests that add something the way docs/extending.md
// says and build or test the result there (widget-stub.test.mjs, language-stub.test.mjs).
import { execFileSync } from 'node:child_process';
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

export const rootDir = join(import.meta.dirname, '../..');

/** Copies the files of the repository (tracked and new, not ignored) to `to`, with node_modules and build/ linked. */
export function copyRepository(to) {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: rootDir,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    try {
      cpSync(join(rootDir, file), join(to, file));
    } catch (error) {
      if (error.code !== 'ENOENT') throw error; // a file deleted in the work tree and not yet committed
    }
  }
  symlinkSync(join(rootDir, 'node_modules'), join(to, 'node_modules'), 'dir');
  symlinkSync(join(rootDir, 'build'), join(to, 'build'), 'dir'); // the WASM builds, as they are
}

/** Runs node with `args` in `cwd`, without NODE_TEST_CONTEXT: with it an inner node --test reports to the outer run
 * and exits 0 whatever fails. */
export function nodeIn(cwd, ...args) {
  const { NODE_TEST_CONTEXT, ...env } = process.env;
  return execFileSync(process.execPath, args, { cwd, env, stdio: 'pipe', encoding: 'utf8', maxBuffer: 1 << 28 });
}
