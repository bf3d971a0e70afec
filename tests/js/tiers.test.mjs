// The C++ tiers hold and are the ones the includes give. The table (CMakeLists.txt's RL_TIERS) links each tier to
// the tiers its sources include, less those reached through another; and in a throwaway native CMake tree, for
// every tier, a file including a header of a tier it does not sit on fails to compile (that header not found) and
// one including a header of each tier it links compiles, each with the include directories that tier's library
// gives its own sources (ctest -L tiers; docs/architecture.md).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TIERS } from './cpp-tiers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const names = TIERS.map((tier) => tier.name);
let tree;

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: root });
  if (r.error) throw r.error;
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** name -> the set of tiers under it, following `edges` (name -> the tiers it reaches directly). */
function closures(edges) {
  const under = new Map();
  const visit = (name) => {
    if (!under.has(name)) {
      const set = new Set();
      under.set(name, set);
      for (const next of edges.get(name)) for (const x of [next, ...visit(next)]) set.add(x);
    }
    return under.get(name);
  };
  for (const name of edges.keys()) visit(name);
  return under;
}

/** The other tiers a tier's sources include (`#include "<tier>/..."`). */
function includedTiers(name) {
  const dir = join(root, 'wasm/src', name);
  const found = new Set();
  for (const file of readdirSync(dir).filter((f) => /\.(cpp|hpp)$/.test(f)))
    for (const [, tier] of readFileSync(join(dir, file), 'utf8').matchAll(/^#include "(\w+)\//gm))
      if (tier !== name && names.includes(tier)) found.add(tier);
  return found;
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

test('the tier table: core and kernels at the bottom, checkpoint and decoder beside each other on both', () => {
  assert.deepEqual(
    TIERS.map(({ name, links }) => (links.length ? `${name}:${links}` : name)),
    [
      'core',
      'kernels',
      'checkpoint:core,kernels',
      'decoder:core,kernels',
      'train:decoder',
      'experiments:train',
      'api:experiments',
    ],
  );
});

test("each tier links what its includes need and no more: the includes' graph less the edges reached another way", () => {
  const includes = new Map(names.map((name) => [name, includedTiers(name)]));
  const reach = closures(includes);
  TIERS.forEach(({ name, links }, i) => {
    const direct = [...includes.get(name)].filter(
      (tier) => ![...includes.get(name)].some((other) => other !== tier && reach.get(other).has(tier)),
    );
    assert.deepEqual([...links].sort(), direct.sort(), `${name}/ links the tiers its includes reach first`);
    for (const link of links) assert.ok(names.indexOf(link) < i, `${name}/ sits above ${link}/ in the table`);
  });
});

/** name -> the tiers under it, through the table's links. */
const under = closures(new Map(TIERS.map(({ name, links }) => [name, links])));
const expectedProbes = TIERS.flatMap(({ name, links }) => [
  ...names.filter((other) => other !== name && !under.get(name).has(other)).map((o) => `tier_${name}_rejects_${o}`),
  ...(links.length ? links : [name]).map((other) => `tier_${name}_accepts_${other}`),
]);

test('every tier has a probe for each tier it does not sit on and one for each tier it links', () => {
  const listed = run('ctest', ['--test-dir', tree, '-N', '-L', 'tiers']).output;
  const probes = [...listed.matchAll(/Test +#\d+: (\S+)/g)].map((m) => m[1]);
  assert.deepEqual(probes.sort(), [...expectedProbes].sort());
  assert.ok(probes.includes('tier_checkpoint_rejects_decoder') && probes.includes('tier_decoder_rejects_checkpoint'));
});

test('an include of a tier not under it fails to build, one of a tier it links builds', () => {
  const ctest = run('ctest', ['--test-dir', tree, '-L', 'tiers', '-j', '2', '--output-on-failure']);
  assert.equal(ctest.status, 0, ctest.output);
  assert.match(ctest.output, new RegExp(`100% tests passed, 0 tests failed out of ${expectedProbes.length}\\b`));
  // The rejection is the compiler's, not a stand-in: the header is named as not found.
  for (const [lower, upper] of [
    ['kernels', 'core'],
    ['checkpoint', 'decoder'],
    ['decoder', 'checkpoint'],
  ]) {
    const probe = run('ctest', ['--test-dir', tree, '-R', `^tier_${lower}_rejects_${upper}$`, '-V']);
    assert.match(probe.output, new RegExp(`${upper}/\\w+\\.hpp: No such file|'${upper}/\\w+\\.hpp' file not found`));
  }
});
