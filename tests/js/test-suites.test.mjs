// Which build steps `npm test -- --only=<suite>` runs: each suite builds what it needs and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planBuild, stepsOf, STEPS } from '../../scripts/build.mjs';
import { buildsFor, countCatch2, countNodeTest, selectSuites, SUITES } from '../../scripts/lib/test-suites.mjs';

const only = (...names) => buildsFor(selectSuites(names));

test('the JS suite builds the three WASM modules and the site, and no C++ test tree', () => {
  assert.deepEqual(only('js'), ['wasm-relaxed', 'wasm-simd', 'wasm-scalar', 'site']);
});

test('the browser suite needs the site, which needs the three WASM modules', () => {
  assert.deepEqual(only('browser'), ['wasm-relaxed', 'wasm-simd', 'wasm-scalar', 'site']);
});

test('each C++ suite builds its own tree only', () => {
  assert.deepEqual(only('cpp-native'), ['native-tests']);
  assert.deepEqual(only('cpp-sanitized'), ['native-sanitize-tests']);
  assert.deepEqual(only('cpp-wasm-relaxed'), ['wasm-relaxed-tests']);
  assert.deepEqual(only('cpp-wasm-simd'), ['wasm-simd-tests']);
  assert.deepEqual(only('cpp-wasm-scalar'), ['wasm-scalar-tests']);
});

test('the fuzz suite builds its libFuzzer tree, and the site its JS target opens GGUF files with', () => {
  assert.deepEqual(only('fuzz'), ['wasm-relaxed', 'wasm-simd', 'wasm-scalar', 'fuzz', 'site']);
});

test('two suites build the union of their steps once each, in build order', () => {
  assert.deepEqual(only('browser', 'cpp-native'), ['native-tests', 'wasm-relaxed', 'wasm-simd', 'wasm-scalar', 'site']);
  assert.deepEqual(only('js', 'browser'), only('js'));
});

test('the whole run builds what `build.mjs --tests` builds, less the native library the test binary links itself', () => {
  const all = only();
  assert.deepEqual(
    all,
    planBuild(stepsOf({ tests: true })).filter((step) => step !== 'native'),
  );
  assert.ok(!only('js').includes('native-sanitize-tests'));
});

test('suites run in table order whatever order --only names them in', () => {
  assert.deepEqual(
    selectSuites(['browser', 'js']).map((s) => s.name),
    ['js', 'browser'],
  );
  assert.equal(selectSuites([]).length, SUITES.length);
});

test('an unknown suite or build step is refused with the list of names', () => {
  assert.throws(
    () => selectSuites(['js', 'jss']),
    /unknown suite "jss" \(the suites: cpp-native, .*, js, browser, format\)/,
  );
  assert.throws(() => planBuild(['sitee']), /unknown build step "sitee" \(the steps: native, /);
});

test('every step a suite or another step names exists; names are unique', () => {
  for (const suite of SUITES)
    for (const step of suite.builds) assert.ok(Object.hasOwn(STEPS, step), `${suite.name}: ${step}`);
  for (const [name, step] of Object.entries(STEPS))
    for (const need of step.needs) assert.ok(Object.hasOwn(STEPS, need), `${name}: ${need}`);
  assert.equal(new Set(SUITES.map((s) => s.name)).size, SUITES.length);
});

test('the counts are read from Catch2 and node --test summaries', () => {
  assert.deepEqual(countCatch2('All tests passed (1234 assertions in 129 test cases)'), { passed: 129, failed: 0 });
  assert.deepEqual(countCatch2('test cases: 129 | 127 passed | 2 failed'), { passed: 127, failed: 2 });
  assert.deepEqual(countCatch2('test cases: 3 | 3 failed'), { passed: 0, failed: 3 });
  assert.equal(countCatch2('Segmentation fault'), null);
  assert.deepEqual(countNodeTest('ℹ tests 9\nℹ pass 8\nℹ fail 1\n'), { passed: 8, failed: 1 });
  // a test that runs a child suite prints the child's summary first; the run's own summary is the last
  assert.deepEqual(countNodeTest('ℹ pass 3\nℹ fail 0\n✔ more\nℹ tests 285\nℹ pass 285\nℹ fail 0\n'), {
    passed: 285,
    failed: 0,
  });
});

test("the runner prints each suite's duration and ends with the closing line; a silent or crashing suite fails", async () => {
  const { runSuites } = await import('../../scripts/test.mjs');
  const node = (script) => () => [process.execPath, ['-e', script]];
  const suites = [
    {
      name: 'a',
      title: 'Passing',
      builds: ['site'],
      command: node("console.log('ℹ pass 3'); console.log('ℹ fail 0')"),
      count: countNodeTest,
    },
    {
      name: 'b',
      title: 'Failing',
      builds: ['fuzz'],
      command: node("console.log('ℹ pass 1'); console.log('ℹ fail 2'); process.exit(1)"),
      count: countNodeTest,
    },
    { name: 'c', title: 'Silent', builds: [], command: node('process.exit(0)'), count: countNodeTest },
    {
      name: 'd',
      title: 'Crashing',
      builds: [],
      command: node("console.log('ℹ pass 4'); console.log('ℹ fail 0'); process.exit(3)"),
      count: countNodeTest,
    },
  ];
  const lines = [];
  let built = null;
  const code = await runSuites(suites, {
    build: async (steps) => {
      built = steps;
    },
    log: (line) => lines.push(line),
  });
  assert.deepEqual(built, ['wasm-relaxed', 'wasm-simd', 'wasm-scalar', 'fuzz', 'site']);
  assert.equal(code, 1);
  for (const title of ['Passing', 'Failing', 'Silent', 'Crashing'])
    assert.ok(
      lines.some((l) => new RegExp(`^--- ${title}: \\d+\\.\\d s$`).test(l)),
      title,
    );
  assert.match(
    lines.find((l) => l.startsWith('Passing ')),
    /^Passing\s+3 passed\s+0 failed\s+\d+\.\d s$/,
  );
  assert.match(
    lines.find((l) => l.startsWith('Silent ')),
    /0 passed\s+1 failed .*\(ran no test\)$/,
  );
  assert.match(
    lines.find((l) => l.startsWith('Crashing ')),
    /4 passed\s+1 failed .*\(exit 3\)$/,
  );
  assert.equal(lines.at(-1), '8 passed, 4 failed');
});

test('a failed build ends the run with one failure', async () => {
  const { runSuites } = await import('../../scripts/test.mjs');
  const lines = [];
  const code = await runSuites(SUITES, {
    build: async () => {
      throw new Error('cmake says no');
    },
    log: (line) => lines.push(line),
  });
  assert.equal(code, 1);
  assert.deepEqual(lines, ['0 passed, 1 failed']);
});
