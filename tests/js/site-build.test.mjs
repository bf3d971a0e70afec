// The served site (scripts/lib/site-assets.mjs, scripts/serve.mjs): content-hashed names whose bytes never change,
// every reference resolving, precompressed files equal to their originals, the documented entry points under
// their stable names, and the headers that let a browser (or a CDN) download each file once.
// The first tests read dist/ as `node scripts/build.mjs` left it; the hashing itself is also checked on a small
// site built here, where one asset changes between two builds.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { HASHED_NAME, STABLE_ENTRIES, buildSiteAssets, contentHash } from '../../scripts/lib/site-assets.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { CONTENT_SECURITY_POLICY, CSP_META, contentSecurityPolicy, cspMeta } from '../../scripts/lib/csp.mjs';

const rootDir = join(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = join(rootDir, 'dist');
assert.ok(existsSync(join(dist, 'asset-manifest.json')), 'dist/ is missing or old: run `node scripts/build.mjs` first');

const toPosix = (path) => path.split(sep).join('/');
const filesUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => toPosix(relative(dir, join(entry.parentPath ?? entry.path, entry.name))));
// dist/offline/ holds the single-file chapters: self-contained by design (they refer to no file; offline.test.mjs
// opens them from disk) and made to be downloaded whole, not served by this site's precompression.
const served = (dir) => filesUnder(dir).filter((path) => !/\.(gz|br)$/.test(path) && !path.startsWith('offline/'));
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The relative references a built JS file makes: static and dynamic imports, and new URL('...', import.meta.url). */
function jsReferences(code) {
  const specifiers = [
    ...code.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["']([^"']+)["']/g),
    // beside the code, or under the setting for re-bundled code (ASSET_BASE_GLOBAL)
    ...code.matchAll(/new URL\(\s*["']([^"']+)["']\s*,\s*(?:import\.meta\.url\s*\)|\(?globalThis\.RESIDUAL_LAB_BASE)/g),
  ].map((m) => m[1]);
  return specifiers.filter((s) => s.startsWith('./') || s.startsWith('../'));
}

test('every asset outside the bundles is named by the hash of its bytes', () => {
  const hashed = served(dist).filter((path) => HASHED_NAME.test(path) && !path.startsWith('assets/'));
  assert.ok(
    hashed.some((p) => p.endsWith('.wasm')) && hashed.some((p) => p.endsWith('.css')),
    `hashed assets: ${hashed.join(', ')}`,
  );
  for (const path of hashed) {
    const hash = path.match(/-([A-Z2-7]{8})\.[a-z0-9]+$/)[1];
    assert.equal(contentHash(readFileSync(join(dist, path))), hash, path);
  }
});

test('the manifest names every source file under a file dist/ holds, and every reference in dist/ resolves', () => {
  const manifest = JSON.parse(readFileSync(join(dist, 'asset-manifest.json'), 'utf8'));
  for (const source of [
    'lib/wasm/residual_lab_simd.wasm',
    'lib/wasm/residual_lab_scalar.mjs',
    'styles/page.css',
    'shell/page.js',
    ...STABLE_ENTRIES,
  ]) {
    assert.ok(manifest[source], `the manifest names ${source}`);
  }
  for (const [source, target] of Object.entries(manifest))
    assert.ok(existsSync(join(dist, target)), `${source} -> ${target} exists`);

  let references = 0;
  for (const path of served(dist).filter((p) => p.endsWith('.js'))) {
    for (const specifier of jsReferences(readFileSync(join(dist, path), 'utf8'))) {
      references += 1;
      const target = posix.normalize(posix.join(posix.dirname(path), specifier));
      assert.ok(existsSync(join(dist, target)), `${path} refers to ${specifier}: ${target} is missing`);
    }
  }
  assert.ok(references > 20, `references checked: ${references}`);
  for (const page of served(dist).filter((p) => p.endsWith('.html'))) {
    const html = readFileSync(join(dist, page), 'utf8');
    const local = [...html.matchAll(/\b(?:src|href)="([^"#?:]+)"/g)].map((m) => m[1]).filter((p) => !p.startsWith('/'));
    assert.ok(local.length >= 2, `${page} refers to its files`);
    for (const path of local) {
      const target = posix.normalize(posix.join(posix.dirname(page), path));
      assert.ok(
        existsSync(join(dist, target)) || existsSync(join(dist, target, 'index.html')),
        `${page} refers to ${path}: missing`,
      );
    }
  }
  const zh = readFileSync(join(dist, 'index.html'), 'utf8');
  assert.match(zh, /href="styles\/page-[A-Z2-7]{8}\.css"/, 'the page loads its stylesheet under the hashed name');
  assert.match(zh, /src="components\/index\.js"/, 'and the widgets through the documented entry point');
  assert.ok(
    zh.includes(`<link rel="preload" href="${manifest['lib/wasm/residual_lab_relaxed.wasm']}" as="fetch" crossorigin>`),
    'the page asks for the WASM module Chromium runs at once',
  );
  // Preloaded modules are fetched and compiled while the first screen is laid out, and hold that layout up.
  assert.doesNotMatch(zh, /rel="modulepreload"/, 'but not for its modules: they load as their imports ask');
});

test('every .gz and .br file decompresses to the file beside it, and the text, WASM and weights files all have both', () => {
  const files = filesUnder(dist);
  let checked = 0;
  for (const path of files.filter((p) => /\.(gz|br)$/.test(p))) {
    const original = readFileSync(join(dist, path.slice(0, -3)));
    const packed = readFileSync(join(dist, path));
    const unpacked = path.endsWith('.gz') ? gunzipSync(packed) : brotliDecompressSync(packed);
    assert.ok(unpacked.equals(original), `${path} decompresses to the original`);
    assert.ok(packed.length < original.length, `${path} is smaller than the original`);
    checked += 1;
  }
  for (const path of served(dist).filter(
    (p) => /\.(html|js|mjs|css|wasm|safetensors)$/.test(p) && readFileSync(join(dist, p)).length > 4096,
  )) {
    assert.ok(files.includes(`${path}.br`) && files.includes(`${path}.gz`), `${path} is precompressed`);
  }
  assert.ok(checked > 30, `compressed files checked: ${checked}`);
});

test('the documented entry points keep their names, hold no code of their own, and export the lab', async () => {
  for (const entry of STABLE_ENTRIES) {
    const text = readFileSync(join(dist, entry), 'utf8');
    assert.ok(text.length < 400, `${entry} only re-exports its bundle (${text.length} bytes)`);
    assert.match(text, /export \* from '\.\.?\/[^']*assets\/[\w-]+-[A-Z2-7]{8}\.js';/, entry);
  }
  const lab = await import(pathToFileURL(join(dist, 'lib/residual-lab.js')).href);
  assert.equal(typeof lab.load, 'function');
  assert.equal(typeof lab.ResidualLabError, 'function');
  const { rmsNorm } = await lab.load({ flavour: 'scalar' }); // the hashed glue and WASM found through the rewritten URLs
  const y = rmsNorm(new Float32Array([3, 4]));
  const rms = Math.sqrt((9 + 16) / 2); // the default eps moves it by less than 1e-6
  assert.ok(Math.abs(y[0] - 3 / rms) < 1e-5 && Math.abs(y[1] - 4 / rms) < 1e-5, `rmsNorm([3, 4]) = ${[...y]}`);
  const methods = await import(pathToFileURL(join(dist, 'lib/worker-methods.js')).href);
  assert.ok(methods.METHODS && typeof methods.resolveMethod === 'function', 'lib/worker-methods.js exports its table');
});

// A small site: a stable entry, a module in a shared chunk finding a WASM file by a template, a stylesheet by a
// literal, a page entry, and a page.
const FIXTURE = {
  'lib/api.js':
    "import { asset } from './assets.js';\nexport const wasmUrl = (flavour) => asset(flavour);\nexport const sheetUrl = () => new URL('../styles/look.css', import.meta.url);\n",
  'lib/assets.js': 'export const asset = (flavour) => new URL(`./wasm/m_${flavour}.wasm`, import.meta.url);\n',
  'shell/page.js': "import { sheetUrl } from '../lib/api.js';\nconsole.log(sheetUrl());\n",
  'lib/wasm/m_simd.wasm': 'simd bytes, first version',
  'lib/wasm/m_scalar.wasm': 'scalar bytes',
  'styles/look.css': 'body { color: red; }\n',
  'index.html':
    '<!doctype html>\n<link rel="stylesheet" href="styles/look.css">\n<script type="module" src="shell/page.js"></script>\n<script type="module" src="lib/api.js"></script>\n',
};

let work;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'rl-site-build-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

async function buildFixture(name, overrides = {}) {
  // The same path from the output to the sources in every build, as scripts/build.mjs keeps it.
  const siteDir = join(work, name, 'site');
  const outDir = join(work, name, 'out');
  for (const [path, text] of Object.entries({ ...FIXTURE, ...overrides })) {
    mkdirSync(dirname(join(siteDir, path)), { recursive: true });
    writeFileSync(join(siteDir, path), text);
  }
  const manifest = await buildSiteAssets({
    siteDir,
    outDir,
    stableEntries: ['lib/api.js'],
    pageEntries: ['shell/page.js'],
    copiedAsIs: [],
  });
  return { outDir, manifest };
}

test('a changed asset changes the name of every file that leads to it, and a name never changes its bytes', async () => {
  const first = await buildFixture('first');
  const second = await buildFixture('second', { 'lib/wasm/m_simd.wasm': 'simd bytes, second version' });
  const again = await buildFixture('again');
  assert.deepEqual(again.manifest, first.manifest, 'the same sources build to the same names');

  const { wasmUrl, sheetUrl } = await import(pathToFileURL(join(first.outDir, 'lib/api.js')).href);
  for (const flavour of ['simd', 'scalar']) {
    const url = wasmUrl(flavour);
    assert.equal(
      readFileSync(url, 'utf8'),
      FIXTURE[`lib/wasm/m_${flavour}.wasm`],
      `the template finds the ${flavour} file`,
    );
    assert.match(url.pathname, new RegExp(`/lib/wasm/m_${flavour}-[A-Z2-7]{8}\\.wasm$`));
  }
  assert.match(
    wasmUrl('other').pathname,
    /\/lib\/wasm\/m_other\.wasm$/,
    'an unknown value keeps the plain name (a 404, as before)',
  );
  assert.equal(readFileSync(sheetUrl(), 'utf8'), 'body{color:red}\n', 'the literal finds the minified stylesheet');

  assert.notEqual(second.manifest['lib/wasm/m_simd.wasm'], first.manifest['lib/wasm/m_simd.wasm']);
  assert.equal(second.manifest['lib/wasm/m_scalar.wasm'], first.manifest['lib/wasm/m_scalar.wasm']);
  assert.notEqual(
    second.manifest['shell/page.js'],
    first.manifest['shell/page.js'],
    'the page entry leads to the WASM through lib/api.js',
  );
  assert.equal(second.manifest['lib/api.js'], 'lib/api.js', 'the stable entry keeps its name');
  const firstFiles = new Set(served(first.outDir));
  let shared = 0;
  for (const path of served(second.outDir).filter((p) => HASHED_NAME.test(p) && firstFiles.has(p))) {
    shared += 1;
    assert.ok(
      readFileSync(join(second.outDir, path)).equals(readFileSync(join(first.outDir, path))),
      `${path}: one name, one content`,
    );
  }
  assert.ok(shared >= 2, `unchanged files keep their names across the builds (${shared})`);
  const page = readFileSync(join(second.outDir, 'index.html'), 'utf8');
  assert.match(page, /href="styles\/look-[A-Z2-7]{8}\.css"/);
  assert.ok(
    page.includes(`src="${second.manifest['shell/page.js']}"`),
    'the page loads its entry under the hashed name',
  );
  assert.ok(page.includes('src="lib/api.js"'), 'and a stable entry under its own');
});

test('a new URL the build cannot resolve, or import.meta.url used otherwise, fails the build', async () => {
  await assert.rejects(
    buildFixture('broken', {
      'lib/assets.js': "export const asset = () => new URL('./wasm/missing.wasm', import.meta.url);\n",
    }),
    /missing\.wasm/,
  );
  await assert.rejects(
    buildFixture('computed', { 'lib/assets.js': 'export const asset = (name) => new URL(name, import.meta.url);\n' }),
    /lib\/assets\.js: import\.meta\.url only in new URL/,
  );
});

/** One request to the server: { status, headers, body (Buffer) }. */
function send(url, path, headers = {}, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the server sends precompressed files by Accept-Encoding, hashed names as immutable, the rest no-cache with ETag and 304', async () => {
  const { server, url } = await startServer({ siteRoot: dist, port: 0 });
  try {
    const manifest = JSON.parse(readFileSync(join(dist, 'asset-manifest.json'), 'utf8'));
    const wasm = manifest['lib/wasm/residual_lab_simd.wasm'];
    const original = readFileSync(join(dist, wasm));

    const brotli = await send(url, wasm, { 'Accept-Encoding': 'gzip, deflate, br' });
    assert.equal(brotli.status, 200);
    assert.equal(brotli.headers['content-encoding'], 'br');
    assert.equal(brotli.headers['content-type'], 'application/wasm');
    assert.equal(brotli.headers['cache-control'], IMMUTABLE);
    assert.equal(brotli.headers.etag, undefined, 'an immutable file is never revalidated: no ETag');
    assert.equal(brotli.headers.vary, 'Accept-Encoding');
    assert.equal(Number(brotli.headers['content-length']), brotli.body.length);
    assert.ok(brotliDecompressSync(brotli.body).equals(original), 'the brotli body is the WASM file');
    assert.ok(brotli.body.length < original.length * 0.5, `brotli: ${brotli.body.length} of ${original.length} bytes`);

    const gzip = await send(url, wasm, { 'Accept-Encoding': 'gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.ok(gunzipSync(gzip.body).equals(original));
    const refused = await send(url, wasm, { 'Accept-Encoding': 'br;q=0, gzip;q=0' });
    assert.equal(refused.headers['content-encoding'], undefined);
    assert.ok(refused.body.equals(original), 'an encoding refused with q=0 is not sent');
    const plain = await send(url, wasm);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'Accept-Encoding');
    assert.ok(plain.body.equals(original));
    const plainPage = await send(url, 'index.html');
    const brotliPage = await send(url, 'index.html', { 'Accept-Encoding': 'br' });
    assert.notEqual(plainPage.headers.etag, brotliPage.headers.etag, 'each representation has its own ETag');

    for (const path of ['index.html', 'en/', 'lib/residual-lab.js', 'components/index.js']) {
      const first = await send(url, path, { 'Accept-Encoding': 'br' });
      assert.equal(first.status, 200, path);
      assert.equal(first.headers['cache-control'], 'no-cache', path);
      assert.match(first.headers.etag, /^"[\w-]+"$/, path);
      const again = await send(url, path, { 'Accept-Encoding': 'br', 'If-None-Match': first.headers.etag });
      assert.equal(again.status, 304, `${path}: If-None-Match with the ETag`);
      assert.equal(again.body.length, 0);
      assert.equal(again.headers.etag, first.headers.etag);
      assert.equal(
        again.headers['content-security-policy'],
        first.headers['content-security-policy'],
        `${path}: a 304 carries the policies its 200 does`,
      );
      const stale = await send(url, path, { 'Accept-Encoding': 'br', 'If-None-Match': '"something-else"' });
      assert.equal(stale.status, 200, `${path}: another ETag gets the file`);
    }
    const page = await send(url, 'index.html', { 'Accept-Encoding': 'br' });
    assert.equal(brotliDecompressSync(page.body).toString('utf8'), readFileSync(join(dist, 'index.html'), 'utf8'));
    const head = await send(url, 'index.html', { 'Accept-Encoding': 'gzip' }, 'HEAD');
    assert.equal(
      Number(head.headers['content-length']),
      readFileSync(join(dist, 'index.html.gz')).length,
      'HEAD tells the length of what GET sends',
    );
    assert.equal(head.body.length, 0);
    const missing = await send(url, 'no-such-file.js');
    assert.equal(missing.status, 404);
    assert.notEqual(missing.headers['cache-control'], IMMUTABLE);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('the policies travel with what can be a document or a worker, and with nothing imported into one', async () => {
  const { server, url } = await startServer({ siteRoot: dist, port: 0 });
  try {
    const manifest = JSON.parse(readFileSync(join(dist, 'asset-manifest.json'), 'utf8'));
    const policies = async (path) =>
      (await send(url, path, { 'Accept-Encoding': 'br' })).headers['content-security-policy'];
    const hashed = (suffix) => Object.values(manifest).find((path) => path.endsWith(suffix));
    // The worker the page starts (lib/lab-worker.js) and the bundle it imports (assets/lab-worker-<hash>.js).
    const workerBundle = readdirSync(join(dist, 'assets')).find((name) => /^lab-worker-\w+\.js$/.test(name));
    assert.ok(workerBundle, 'the worker bundle is built');
    for (const path of ['index.html', 'en/', 'favicon.svg', 'lib/lab-worker.js', `assets/${workerBundle}`, 'none.css'])
      assert.match(String(await policies(path)), /script-src 'self' 'wasm-unsafe-eval'.*frame-ancestors \*/, path);
    for (const path of [
      hashed('.css'),
      hashed('.wasm'),
      'components/index.js',
      'lib/residual-lab.js',
      'asset-manifest.json',
    ])
      assert.equal(await policies(path), undefined, path);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('connectSrc widens connect-src in the header and in the pages alike, and only for that server', async () => {
  const mirror = 'http://127.0.0.1:9000';
  const { server, url } = await startServer({ siteRoot: dist, port: 0, connectSrc: [mirror] });
  const plain = await startServer({ siteRoot: dist, port: 0 });
  try {
    const wider = contentSecurityPolicy({ connect: [mirror] });
    assert.match(wider, /connect-src 'self' [^;]* http:\/\/127\.0\.0\.1:9000;/);
    for (const path of ['index.html', 'en/']) {
      const page = await send(url, path, { 'Accept-Encoding': 'br, gzip' });
      assert.equal(page.status, 200, path);
      assert.equal(page.headers['content-encoding'], undefined, `${path}: the rewritten page is sent as it is`);
      assert.equal(Number(page.headers['content-length']), page.body.length);
      assert.equal(String(page.headers['content-security-policy']).split(',')[0].trim(), wider, path);
      const html = page.body.toString('utf8');
      assert.ok(html.includes(cspMeta(wider)) && !html.includes(CSP_META), `${path}: the meta is the wider policy`);
      const again = await send(url, path, { 'If-None-Match': page.headers.etag });
      assert.equal(again.status, 304, `${path}: revalidated by its own ETag`);
      const shipped = await send(plain.url, path);
      assert.ok(shipped.body.toString('utf8').includes(CSP_META), `${path}: another server sends the shipped page`);
      assert.equal(String(shipped.headers['content-security-policy']).split(',')[0].trim(), CONTENT_SECURITY_POLICY);
    }
    assert.ok(readFileSync(join(dist, 'index.html'), 'utf8').includes(CSP_META), 'dist/ is unchanged');
    for (const bad of ['http://127.0.0.1:9000/path', "'unsafe-inline'", 'https://*.example.com', 'ftp://host'])
      assert.throws(() => contentSecurityPolicy({ connect: [bad] }), /is not an origin/, bad);
  } finally {
    await Promise.all([server, plain.server].map((s) => new Promise((resolve) => s.close(resolve))));
  }
});
