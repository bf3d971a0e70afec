// The lab as a teacher gets it, without building: the packed npm tarball installed into a clean directory whose
// PATH holds node and a shell but no compiler; `npx residual-lab` serving the chapter; the package unpacked
// behind a stand-in CDN on one origin, used by a course page on another with one script tag; an esbuild project
// that bundles `residual-lab` and `residual-lab/components`; the release zip served from a subfolder.
// Needs dist/ built (the browser suite's build step); `npm pack --ignore-scripts` packs it as it is.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, dirname, extname, join, normalize, sep } from 'node:path';
import * as esbuild from 'esbuild';
import { unzipSync } from 'fflate';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { ASSET_BASE_GLOBAL } from '../../scripts/lib/site-assets.mjs';
import { zipSite } from '../../scripts/release.mjs';
import { FLAVOURS, chooseFlavour } from '../../web/lib/wasm-module.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, watchFailedRequests } from './harness.mjs';
import { eventually, expectText } from './widget-helpers.mjs';

const root = join(import.meta.dirname, '../..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const PACKED_LIMIT = 6e6; // bytes: what a CDN and `npx` download

// RMSNorm of the chapter's vector [2, -1, 3, 0]: x / sqrt(mean(x^2) + 1e-5), mean(x^2) = 14 / 4 = 3.5.
const RMS = Math.sqrt(3.5 + 1e-5);
const RMSNORM_2_M1_3_0 = [2 / RMS, -1 / RMS, 3 / RMS, 0];
const SHOWN_2_M1_3_0 = '[1.069, -0.535, 1.604, 0]';
const COMPILERS = ['emcc', 'em++', 'cmake', 'g++', 'gcc', 'c++', 'clang', 'clang++', 'cc'];

let work; // the temporary directory of this file
let packed; // npm pack's record of the tarball
let app; // the clean project that installed it
let installed; // app/node_modules/residual-lab
let env; // PATH with node, npm, npx and sh only
let browser;
const closers = [];

/** Where `name` is on the current PATH, or null. */
function which(name, path = process.env.PATH) {
  for (const dir of path.split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return null;
}

/** A directory with node, npm, npx and sh and nothing else: the PATH of a machine with node alone. */
function toolFreeBin(dir) {
  mkdirSync(dir);
  const npmCli = realpathSync(which('npm'));
  const npmBin = dirname(npmCli);
  symlinkSync(process.execPath, join(dir, 'node'));
  symlinkSync(realpathSync('/bin/sh'), join(dir, 'sh'));
  for (const [name, cli] of [
    ['npm', join(npmBin, 'npm-cli.js')],
    ['npx', join(npmBin, 'npx-cli.js')],
  ]) {
    writeFileSync(join(dir, name), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, { mode: 0o755 });
  }
  return dir;
}

const run = (command, args, options = {}) =>
  execFileSync(command, args, { cwd: app, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'rl-package-'));
  [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
  const bin = toolFreeBin(join(work, 'bin'));
  env = {
    PATH: bin,
    HOME: join(work, 'home'),
    npm_config_cache: join(work, 'npm-cache'), // an empty cache: nothing comes from this machine's
    npm_config_update_notifier: 'false',
  };
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'course', private: true, type: 'module' }));
  // The package has no dependencies: the install needs nothing from the registry.
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, packed.filename)]);
  installed = join(app, 'node_modules/residual-lab');
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  for (const close of closers.reverse()) await close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Opens `url` in a fresh context recording every request and every problem (as harness.mjs's pages do). */
async function openPage(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  context.on('request', (req) => requests.push(req.url())); // the page's and its workers'
  watchFailedRequests(page, problems);
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  await page.goto(url);
  return { page, problems, requests, close: () => context.close() };
}

/** Types the chapter's vector into a vector lab and waits for its RMSNorm row. */
async function vectorLabComputes(page, selector = 'rl-vector-lab') {
  const widget = page.locator(selector).first();
  await widget.scrollIntoViewIfNeeded();
  await eventually(
    () => widget.getAttribute('data-ready'),
    (ready) => ready !== null,
    'the vector lab draws',
    20000,
  );
  const field = widget.locator('#field-x');
  await field.fill('2, -1, 3, 0');
  await expectText(widget.locator('output[aria-labelledby="row-rms"]'), SHOWN_2_M1_3_0, 'RMSNorm of [2, -1, 3, 0]');
}

/** Waits for a gradient-flow widget's worker run; its plain stack's ratio is gain^L (its own settings by default). */
async function gradientFlowComputes(page, layers, gain) {
  const flow = page.locator('rl-gradient-flow').first();
  layers ??= await flow.evaluate((el) => el.state.layers);
  gain ??= await flow.evaluate((el) => el.state.gain);
  await flow.scrollIntoViewIfNeeded();
  await eventually(
    () => flow.getAttribute('data-status'),
    (status) => status === 'done',
    'the gradient flow runs in its worker',
    30000,
  );
  const plain = Number(await flow.locator('[data-readout="plain"] data').first().getAttribute('value'));
  assert.ok(Math.abs(plain / gain ** layers - 1) < 1e-3, `gain^L = ${gain}^${layers}: shown ${plain}`);
}

test(`the tarball is under ${PACKED_LIMIT / 1e6} MB and holds the built lab, its bin and types, no sources or tests`, () => {
  console.log(
    `# ${packed.filename}: ${(packed.size / 1e6).toFixed(2)} MB packed, ${(packed.unpackedSize / 1e6).toFixed(2)} MB unpacked, ${packed.entryCount} files`,
  );
  assert.ok(packed.size < PACKED_LIMIT, `${packed.size} bytes packed`);
  const paths = packed.files.map((f) => f.path);
  for (const path of [
    'dist/lib/residual-lab.js',
    'dist/lib/worker-client.js',
    'dist/lib/lab-worker.js',
    'dist/components/index.js',
    'dist/index.html',
    'dist/en/index.html',
    'dist/offline/parts/page-code.js',
    'bin/residual-lab.mjs',
    'types/residual-lab.d.ts',
    'README.md',
    'CHANGELOG.md',
    'LICENSE',
  ])
    assert.ok(paths.includes(path), `the package holds ${path}`);
  for (const flavour of FLAVOURS)
    assert.ok(paths.some((p) => new RegExp(`^dist/lib/wasm/residual_lab_${flavour}-[A-Z2-7]{8}\\.wasm$`).test(p)));
  // the one source file the bin needs beside dist/: the Hub's hosts, which the served pages' policy names
  // (scripts/lib/csp.mjs imports it, as the probe's fetch does)
  const NEEDED_SOURCES = ['web/lib/hub/hub-hosts.js'];
  const stray = paths.filter(
    (p) =>
      !NEEDED_SOURCES.includes(p) &&
      (/^(web|wasm|tests|content\/(?!LICENSE)|examples|bench|tools)\//.test(p) || /\.(cpp|hpp|gz|br)$/.test(p)),
  );
  assert.deepEqual(stray, [], 'no sources, tests or precompressed copies');
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  assert.equal(manifest.private, undefined);
  assert.equal(manifest.dependencies, undefined, 'nothing to install beside it');
  assert.ok(
    readFileSync(join(root, 'CHANGELOG.md'), 'utf8').includes(`## ${version}`),
    'CHANGELOG.md has this version',
  );
});

test('no compiler on the PATH; node imports residual-lab: RMSNorm of [2, -1, 3, 0] and a trained toy run', () => {
  for (const tool of COMPILERS) assert.equal(which(tool, env.PATH), null, `${tool} is not on the PATH`);
  // The toy's probe text, its logits at every position, the mean next-token loss: toys.json's probeLoss.
  const script = `
import { readFileSync } from 'node:fs';
import { load } from 'residual-lab';
const lab = await load();
const rms = Array.from(lab.rmsNorm([2, -1, 3, 0], null, { eps: 1e-5 }));
const dist = new URL('./node_modules/residual-lab/dist/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('asset-manifest.json', dist)));
const read = (name) => new Uint8Array(readFileSync(new URL(manifest['models/toy-llama/' + name], dist)));
const ckpt = await lab.openCheckpoint({ 'config.json': read('config.json'), 'model.safetensors': read('model.safetensors'), 'tokenizer.json': read('tokenizer.json') });
const ids = ckpt.tokenize(process.argv[2]);
const { logits } = await ckpt.run(ids.slice(0, -1), { logits: 'all' });
const V = logits.length / (ids.length - 1);
let loss = 0;
for (let t = 0; t + 1 < ids.length; t++) {
  const row = logits.subarray(t * V, (t + 1) * V);
  const max = Math.max(...row);
  let sum = 0;
  for (const v of row) sum += Math.exp(v - max);
  loss += Math.log(sum) + max - row[ids[t + 1]];
}
ckpt.dispose();
console.log(JSON.stringify({ flavour: lab.flavour, rms, loss: loss / (ids.length - 1), T: ids.length }));
`;
  writeFileSync(join(app, 'check.mjs'), script);
  const toy = JSON.parse(readFileSync(join(root, 'web/models/toys.json'), 'utf8')).toys.find(
    (t) => t.name === 'toy-llama',
  );
  const out = JSON.parse(run('node', ['check.mjs', toy.probeText]));
  assert.equal(out.flavour, chooseFlavour(), 'the build this node validates');
  out.rms.forEach((v, i) => assert.ok(Math.abs(v - RMSNORM_2_M1_3_0[i]) < 1e-6, `rmsNorm[${i}] = ${v}`));
  assert.equal(out.T, toy.probeText.length, 'one token per character');
  assert.ok(Math.abs(out.loss - toy.probeLoss) < 1e-3, `the probe's loss ${out.loss}, trained as ${toy.probeLoss}`);
});

test('npx residual-lab --offline zh writes the single-file chapter the build writes', () => {
  const target = join(work, 'chapter-zh.html');
  const said = run('npx', ['residual-lab', '--offline', 'zh', '--out', target]);
  const built = readFileSync(join(root, 'dist/offline/residual-lab-zh.html'));
  assert.match(
    said,
    new RegExp(`wrote .*chapter-zh\\.html \\(${(built.length / 1e6).toFixed(1).replace('.', '\\.')} MB\\)`),
  );
  assert.ok(readFileSync(target).equals(built));
});

test('npx residual-lab --port 0 serves the chapter; a widget computes and no request fails', async () => {
  // A process group of its own: npx runs the bin through sh, and stopping the group stops all three.
  const server = spawn(join(env.PATH, 'npx'), ['residual-lab', '--port', '0'], {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  closers.push(async () => {
    if (server.exitCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    process.kill(-server.pid);
    await exited;
  });
  let printed = '';
  server.stderr.on('data', (chunk) => (printed += chunk));
  const url = await new Promise((resolve, reject) => {
    server.stdout.on('data', (chunk) => {
      printed += chunk;
      const found = printed.match(/is served at (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (found) resolve(found[1]);
    });
    server.once('exit', (code) => reject(new Error(`npx residual-lab exited (${code}): ${printed}`)));
  });
  assert.match(printed, new RegExp(`^Residual Lab ${version.replaceAll('.', '\\.')} is served at`));
  const view = await openPage(`${url}en/index.html`);
  await vectorLabComputes(view.page);
  assert.deepEqual(view.problems, []);
  await view.close();
});

// A stand-in for jsDelivr or unpkg: files under /npm/residual-lab@<version>/ as the package holds them, read in
// CORS mode from any origin, typed by extension, no compression, no policies, no isolation headers.
const CDN_TYPES = {
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
};

function stopServer(server) {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
}

function listen(handler) {
  const server = createServer(handler);
  closers.push(() => stopServer(server));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

async function startCdn(packageDir) {
  const prefix = `/npm/residual-lab@${version}/`;
  const port = await listen((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://cdn').pathname);
    const file = path.startsWith(prefix) ? normalize(join(packageDir, path.slice(prefix.length))) : null;
    if (!file || !file.startsWith(packageDir + sep) || !existsSync(file)) {
      res.writeHead(404, { 'Access-Control-Allow-Origin': '*' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'Access-Control-Allow-Origin': '*',
      'Content-Type': CDN_TYPES[extname(file)] ?? 'application/octet-stream',
      'Cache-Control': 'public, max-age=31536000',
    });
    res.end(readFileSync(file));
  });
  return `http://127.0.0.1:${port}${prefix}`;
}

test('from a CDN: one script tag on a course page of another origin; three widgets compute, no lab file from the page origin', async () => {
  const cdn = await startCdn(realpathSync(installed));
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Week 3: normalization</title><link rel="icon" href="data:,">
<script type="module" src="${cdn}dist/components/index.js"></script></head>
<body><h1>Week 3</h1>
<rl-vector-lab x="3, 4" url-state="off">RMSNorm of a vector.</rl-vector-lab>
<rl-gradient-flow layers="8" gain="0.8" url-state="off">Gradient flow.</rl-gradient-flow>
<rl-checkpoint-probe url-state="off">A trained toy's residual stream.</rl-checkpoint-probe>
</body></html>`;
  // The course site is on "localhost", the CDN on "127.0.0.1": two origins.
  const coursePort = await listen((req, res) => {
    if (req.url === '/week3/') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
    else res.writeHead(404).end('not found');
  });
  const course = `http://localhost:${coursePort}`;
  const view = await openPage(`${course}/week3/`);
  await vectorLabComputes(view.page);
  await gradientFlowComputes(view.page, 8, 0.8);
  const probe = view.page.locator('rl-checkpoint-probe');
  await probe.scrollIntoViewIfNeeded();
  await eventually(
    () => probe.getAttribute('data-status'),
    (status) => status === 'done' || status === 'error',
    'the probe runs its toy',
    60000,
  );
  assert.equal(await probe.getAttribute('data-status'), 'done');
  const fromCdn = view.requests.filter((url) => url.startsWith(cdn));
  for (const kind of [/\.wasm$/, /\.css$/, /lab-worker/, /\/models\/toy-[a-z0-9]+\/model-[A-Z2-7]{8}\.safetensors$/])
    assert.ok(
      fromCdn.some((url) => kind.test(url)),
      `${kind} comes from the CDN`,
    );
  assert.deepEqual(
    view.requests.filter((url) => url.startsWith(course)),
    [`${course}/week3/`],
    'the course origin serves its page only',
  );
  assert.deepEqual(view.problems, []);
  await view.close();
});

test(`a bundler: esbuild bundles residual-lab and residual-lab/components into an application (${ASSET_BASE_GLOBAL} set by define)`, async () => {
  const src = join(app, 'src');
  const site = join(app, 'site');
  mkdirSync(src);
  writeFileSync(
    join(src, 'main.js'),
    `import { load } from 'residual-lab';
import 'residual-lab/components';
const lab = await load();
document.querySelector('#rms').textContent = JSON.stringify(Array.from(lab.rmsNorm([2, -1, 3, 0], null, { eps: 1e-5 })));
`,
  );
  await esbuild.build({
    absWorkingDir: app,
    entryPoints: ['src/main.js'],
    outdir: join(site, 'js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    define: { [`globalThis.${ASSET_BASE_GLOBAL}`]: JSON.stringify('/lab/') }, // the one setting (docs/embedding.md)
    logLevel: 'silent',
  });
  cpSync(join(installed, 'dist'), join(site, 'lab'), { recursive: true }); // the files the bundle fetches
  writeFileSync(
    join(site, 'index.html'),
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>An application</title><link rel="icon" href="data:,">
<script type="module" src="js/main.js"></script></head>
<body><p id="rms"></p>
<rl-vector-lab url-state="off"></rl-vector-lab>
<rl-gradient-flow layers="6" gain="0.5" url-state="off"></rl-gradient-flow>
</body></html>`,
  );
  const { server, url } = await startServer({ siteRoot: site, port: 0 });
  closers.push(() => stopServer(server));
  const view = await openPage(url);
  await eventually(
    async () => (await view.page.locator('#rms').textContent()) || null,
    (text) => text !== null,
    'the bundle computes',
    20000,
  );
  const rms = JSON.parse(await view.page.locator('#rms').textContent());
  rms.forEach((v, i) => assert.ok(Math.abs(v - RMSNORM_2_M1_3_0[i]) < 1e-6, `rmsNorm[${i}] = ${v}`));
  await vectorLabComputes(view.page);
  await gradientFlowComputes(view.page, 6, 0.5);
  assert.ok(
    view.requests.some((u) => /\/lab\/lib\/wasm\/residual_lab_relaxed-[A-Z2-7]{8}\.wasm$/.test(u)),
    'the WASM from /lab/',
  );
  assert.deepEqual(view.problems, []);
  await view.close();
});

test('the release zip, unpacked and served from a subfolder (/course/lab/), runs the chapter', async () => {
  const served = join(work, 'school');
  const folder = join(served, 'course/lab');
  for (const [path, bytes] of Object.entries(unzipSync(zipSite(join(root, 'dist'))))) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), bytes);
  }
  assert.ok(existsSync(join(folder, 'offline/residual-lab-zh.html')), 'the offline files are in the site');
  const { server, url } = await startServer({ siteRoot: served, port: 0 });
  closers.push(() => stopServer(server));
  const view = await openPage(`${url}course/lab/`);
  assert.equal(await view.page.locator('html').getAttribute('lang'), 'zh-CN');
  await vectorLabComputes(view.page);
  await gradientFlowComputes(view.page); // the chapter's own example
  assert.ok(
    view.requests.every((u) => u.startsWith(`${url}course/lab/`) || !u.startsWith(url)),
    'every file from the subfolder',
  );
  assert.deepEqual(view.problems, []);
  await view.close();
});
