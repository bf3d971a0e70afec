// The two serving commands as a reader types them: `npx residual-lab` (bin/residual-lab.mjs) and
// `node scripts/serve.mjs`: --help prints and serves nothing, a --port that is taken is refused by name, a default
// port that is taken moves and says so, --connect widens the pages' connect-src.
//   node --test tests/js/serve-cli.test.mjs     after `node scripts/build.mjs`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(root, 'bin', 'residual-lab.mjs');
const SERVE = join(root, 'scripts', 'serve.mjs');
const LIMIT = 20000; // a command that should end, killed if it serves instead

/** A port held by another listener for the length of `body`. */
async function withBusyPort(body) {
  const holder = createServer();
  await new Promise((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    return await body(holder.address().port);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
}

/** Starts a server command; resolves to { child, output } once it printed its address. */
function serving(args, env = {}) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill(), reject(new Error(`no address printed: ${output}`))), LIMIT);
    const read = (chunk) => {
      output += chunk;
      const url = /served at (http:\/\/\S+)/.exec(output)?.[1];
      if (url) (clearTimeout(timer), resolve({ child, output, url }));
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => (clearTimeout(timer), reject(new Error(`exited ${code}: ${output}`))));
  });
}
const stop = (child) => new Promise((resolve) => (child.once('exit', resolve), child.kill()));

test('node scripts/serve.mjs --help prints its options and starts no server', () => {
  const run = spawnSync(process.execPath, [SERVE, '--help'], { encoding: 'utf8', timeout: LIMIT });
  assert.equal(run.status, 0, `exited ${run.status} (${run.signal ?? 'no signal'}): ${run.stdout}${run.stderr}`);
  for (const option of ['--port N', '--host H', '--connect ORIGIN', '--help']) assert.ok(run.stdout.includes(option));
  assert.doesNotMatch(run.stdout, /served at/);
});

for (const [name, args] of [
  ['npx residual-lab', [BIN]],
  ['node scripts/serve.mjs', [SERVE]],
])
  test(`${name} --port N with N taken refuses and names the port`, () =>
    withBusyPort((port) => {
      const run = spawnSync(process.execPath, [...args, '--port', String(port)], { encoding: 'utf8', timeout: LIMIT });
      assert.equal(run.status, 2, `exited ${run.status} (${run.signal ?? 'no signal'}): ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use; choose another with --port N`));
    }));

test('npx residual-lab with PORT taken (no --port) moves to the next free port and says so', () =>
  withBusyPort(async (port) => {
    const { child, output, url } = await serving([BIN], { PORT: String(port) });
    try {
      const bound = Number(new URL(url).port);
      assert.notEqual(bound, port);
      assert.ok(output.includes(`port ${port} was in use, so the lab took ${bound}`), output);
    } finally {
      await stop(child);
    }
  }));

test('npx residual-lab --connect ORIGIN adds the origin to the pages’ connect-src; a non-origin is refused', async () => {
  const mirror = 'http://127.0.0.1:9';
  const { child, url } = await serving([BIN, '--port', '0', '--connect', mirror]);
  try {
    const response = await fetch(url);
    const policy = response.headers.get('content-security-policy');
    const connect = /connect-src ([^;,]*)/.exec(policy)?.[1].split(' ');
    assert.ok(connect?.includes(mirror), policy);
    assert.ok((await response.text()).includes(mirror), 'the page’s meta policy names it too');
  } finally {
    await stop(child);
  }
  const bad = spawnSync(process.execPath, [BIN, '--port', '0', '--connect', 'mirror.example/path'], {
    encoding: 'utf8',
    timeout: LIMIT,
  });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--connect mirror\.example\/path: an origin such as http:\/\/127\.0\.0\.1:9000/);
});
