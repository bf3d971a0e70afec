// The C++ tiers hold: in a throwaway native CMake tree, for every tier of CMakeLists.txt's RL_TIERS but the
// top, a file including a header of the tier above fails to compile (that header not found) and one including
// a header of the tier below compiles, each with the include directories that tier's library gives its own
// sources (ctest -L tiers; docs/architecture.md).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const tiers = readFileSync(join(root, 'CMakeLists.txt'), 'utf8')
  .match(/^set\(RL_TIERS ([^)]*)\)/m)[1]
  .split(/\s+/);
let tree;

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: root });
  if (r.error) throw r.error;
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

before(() => {
  tree = mkdtempSync(join(tmpdir(), 'rl-tiers-'));
  const configure = run('cmake', [
    '-S',
    root,
    '-B',
    tree,
    '-DRL_BUILD_TESTS=OFF',
    '-DRL_BUILD_BENCH=OFF',
    '-DRL_NATIVE_ARCH=OFF',
  ]);
  assert.equal(configure.status, 0, configure.output);
});
after(() => rmSync(tree, { recursive: true, force: true }));

test('the tier table is core, kernels, checkpoint, decoder, train, experiments, api', () => {
  assert.deepEqual(tiers, ['core', 'kernels', 'checkpoint', 'decoder', 'train', 'experiments', 'api']);
});

test('every tier but the top has a probe reaching up and one reaching down', () => {
  const listed = run('ctest', ['--test-dir', tree, '-N', '-L', 'tiers']).output;
  const names = [...listed.matchAll(/Test +#\d+: (\S+)/g)].map((m) => m[1]);
  const expected = tiers
    .slice(0, -1)
    .flatMap((tier, i) => [
      `tier_${tier}_rejects_${tiers[i + 1]}`,
      `tier_${tier}_accepts_${tiers[Math.max(i - 1, 0)]}`,
    ]);
  assert.deepEqual(names.sort(), expected.sort());
});

test('an upward include fails to build, a downward one builds', () => {
  const ctest = run('ctest', ['--test-dir', tree, '-L', 'tiers', '-j', '2', '--output-on-failure']);
  assert.equal(ctest.status, 0, ctest.output);
  const probes = 2 * (tiers.length - 1);
  assert.match(ctest.output, new RegExp(`100% tests passed, 0 tests failed out of ${probes}\\b`));
  // The rejection is the compiler's, not a stand-in: the header is named as not found.
  const [, lower, upper] = tiers;
  const probe = run('ctest', ['--test-dir', tree, '-R', `^tier_${lower}_rejects_${upper}$`, '-V']);
  assert.match(probe.output, new RegExp(`${upper}/\\w+\\.hpp: No such file|'${upper}/\\w+\\.hpp' file not found`));
});
