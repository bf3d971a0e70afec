// The npm package's description, without packing it (tests/e2e/package.test.mjs packs, installs and runs it): the
// version has one home (package.json) that the docs and the changelog follow, every export names a built file,
// the offline chapter's parts make the files the build wrote, and CI runs the README's commands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LANGUAGES } from '../../web/languages.js';
import { offlineName, readOffline } from '../../scripts/lib/offline-file.mjs';

const root = join(import.meta.dirname, '../..');
const read = (path) => readFileSync(join(root, path), 'utf8');
const pkg = JSON.parse(read('package.json'));

test("every residual-lab@<version> in the README and docs/ is package.json's version, and CHANGELOG.md has it", () => {
  const pages = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  let pinned = 0;
  for (const page of pages) {
    for (const [, version] of read(page).matchAll(/residual-lab@(\d+\.\d+\.\d+[^/\s"'`]*)/g)) {
      pinned += 1;
      assert.equal(version, pkg.version, `${page} pins residual-lab@${version}`);
    }
  }
  assert.ok(pinned >= 3, `the CDN snippets pin a version (${pinned} found)`);
  assert.match(read('CHANGELOG.md'), new RegExp(`^## ${pkg.version.replaceAll('.', '\\.')}$`, 'm'));
});

test('publishable: not private, a bin, the components export, no runtime dependency', () => {
  assert.equal(pkg.private, undefined);
  assert.deepEqual(Object.keys(pkg.dependencies ?? {}), [], 'dist/ is bundled: an install needs nothing else');
  assert.equal(pkg.bin['residual-lab'], 'bin/residual-lab.mjs');
  assert.equal(pkg.exports['./components'], './dist/components/index.js');
  assert.ok(pkg.repository?.url && pkg.keywords?.length && pkg.scripts.prepack);
  const targets = Object.values(pkg.exports).flatMap((entry) =>
    typeof entry === 'string' ? [entry] : Object.values(entry),
  );
  for (const target of targets.filter((t) => !t.includes('*')))
    assert.ok(existsSync(join(root, target)), `the export ${target} exists`);
  assert.ok(existsSync(join(root, pkg.bin['residual-lab'])));
});

test('the offline parts put together are the offline files the build wrote, in every language', () => {
  for (const { code } of LANGUAGES) {
    const whole = readFileSync(join(root, 'dist/offline', offlineName(code)), 'utf8');
    assert.equal(readOffline(join(root, 'dist/offline/parts'), code), whole, code);
  }
  assert.equal(readOffline(join(root, 'dist/offline/parts'), 'xx'), null);
});

test("the CI workflow runs the README's commands", () => {
  const workflow = read('.github/workflows/ci.yml');
  const readme = read('README.md');
  const commands = [...workflow.matchAll(/^\s+run: (npm [a-z -]+)$/gm)].map((m) => m[1].trim());
  assert.deepEqual(commands, ['npm test']); // a tag's release is release.yml's (below)
  for (const command of commands) assert.ok(readme.includes(`\`${command}\``) || readme.includes(command), command);
});

test("the release workflow's npm and gh commands are the README's, in order, and it publishes what it says", () => {
  const workflow = read('.github/workflows/release.yml');
  // every command on one line, so that this list is all of them
  assert.doesNotMatch(workflow, /^\s+run:\s*[|>]/m, 'no block scalars');
  // the commands that build, test and publish (the rest set up the container and check the tag and the sums)
  const commands = [...workflow.matchAll(/^\s+run: ((?:npm|gh) .+)$/gm)].map((m) => m[1].trim());
  const block = /<!-- release-commands -->\n+```sh\n([\s\S]*?)\n```/.exec(read('README.md'));
  assert.ok(block, "README's release-commands block");
  assert.deepEqual(commands, block[1].split('\n'));
  assert.ok(commands.includes('npm publish --provenance --access public release/residual-lab-*.tgz'));
  assert.ok(commands.some((c) => c.startsWith('gh release create "$GITHUB_REF_NAME" release/*')));
  assert.match(workflow, /^ {4}tags: \['v\*'\]$/m, 'runs on a version tag');
  assert.match(workflow, /id-token: write/, 'provenance needs the OIDC token');
  assert.match(workflow, /uses: actions\/deploy-pages@v4/, 'the site to GitHub Pages');
  assert.match(workflow, /NODE_AUTH_TOKEN: \$\{\{ secrets\.NPM_TOKEN \}\}/);
});
