// Small process helpers shared by the build, test and bench scripts.
import { spawnSync, spawn } from 'node:child_process';

export const EMSCRIPTEN_ENV = { ...process.env, NODE_PATH: '/usr/share/nodejs' }; // else em++: "Cannot find module 'acorn'"
// emcmake's default emulator passes --experimental-wasm-threads, which node 20 rejects.
export const NODE_EMULATOR = '/usr/bin/node;--no-experimental-fetch';

// The sanitized test binary and the fuzz targets: any ASan or UBSan report stops the program with a stack trace
// and a failing exit (abort), so it cannot scroll past inside a passing run.
const SANITIZER_FLAGS = 'halt_on_error=1:abort_on_error=1:print_stacktrace=1';
export const SANITIZER_ENV = { ...process.env, ASAN_OPTIONS: SANITIZER_FLAGS, UBSAN_OPTIONS: SANITIZER_FLAGS };

/** Runs a command with inherited stdio; throws with the command line if it fails. */
export function run(cmd, args, { env = process.env, cwd } = {}) {
  const result = spawnSync(cmd, args, { stdio: 'inherit', env, cwd });
  if (result.error) throw new Error(`${cmd}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`command failed (exit ${result.status}): ${cmd} ${args.join(' ')}`);
}

/** Runs a command, echoing its output live, and resolves to { status, output } without throwing. */
export function runCaptured(cmd, args, { env = process.env, cwd, quiet = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (stream, sink) =>
      stream.on('data', (chunk) => {
        output += chunk;
        if (!quiet) sink.write(chunk);
      });
    take(child.stdout, process.stdout);
    take(child.stderr, process.stderr);
    child.on('error', (err) => resolve({ status: 127, output: output + String(err) }));
    child.on('close', (status) => resolve({ status: status ?? 1, output }));
  });
}
