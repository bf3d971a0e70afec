#!/usr/bin/env node
// Serves dist/ on 127.0.0.1 with the strict Content-Security-Policy the lab is built to run under (the policy
// lives in scripts/lib/csp.mjs; the pages carry it as a meta element too). GET and HEAD only; others get 405.
// Sends the build's precompressed .br / .gz files by Accept-Encoding, content-hashed names as immutable (no ETag:
// nothing revalidates them), and the rest (pages, stable entry points) as no-cache with an ETag, answering
// If-None-Match with 304.
//   node scripts/serve.mjs [--port N] [--host H] [--connect ORIGIN]... [--help]   (SERVE_USAGE below)
// --connect (startServer's connectSrc) serves the pages with a wider policy, the meta rewritten to match (a page
// enforces both): a local mirror, or the tests' mock Hub. dist/ itself is never changed.
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CONTENT_SECURITY_POLICY, CSP_META, FRAMING_POLICY, contentSecurityPolicy, cspMeta } from './lib/csp.mjs';
import { HASHED_NAME } from './lib/hashed-name.mjs';

export { CONTENT_SECURITY_POLICY, FRAMING_POLICY };

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ALLOWED_METHODS = 'GET, HEAD';

// Cross-origin use: a course page on another origin loads components/index.js from here as a module script, and
// the widgets then fetch the CSS, the glue and the .wasm and import the worker's modules, all in CORS mode. The
// lab's files are public and need no credentials, so any origin may read them.
const CROSS_ORIGIN_HEADERS = { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

function resolveFile(siteRoot, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath.split('?')[0].split('#')[0]);
  } catch {
    return null;
  }
  const full = normalize(join(siteRoot, path));
  if (full !== siteRoot && !full.startsWith(siteRoot + sep)) return null; // no escaping the site
  try {
    const st = statSync(full);
    if (st.isDirectory()) return resolveFile(siteRoot, join(path, 'index.html'));
    return st.isFile() ? { full, stat: st } : null;
  } catch {
    return null;
  }
}

// The build writes <file>.br and <file>.gz beside every compressible file (scripts/lib/site-assets.mjs).
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
];

/** The encodings the request accepts (q > 0), from its Accept-Encoding header. */
function acceptedEncodings(header = '') {
  const accepted = new Set();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  return accepted;
}

/** The file to send for `file` under the request's Accept-Encoding: a precompressed sibling where one fits. */
function chooseRepresentation(file, acceptEncoding) {
  const accepted = acceptedEncodings(acceptEncoding);
  for (const { name, suffix } of ENCODINGS) {
    if (!accepted.has(name) && !accepted.has('*')) continue;
    try {
      const stat = statSync(file.full + suffix);
      if (stat.isFile()) return { full: file.full + suffix, stat, encoding: name };
    } catch {
      /* none of this encoding */
    }
  }
  return { ...file, encoding: null };
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

// The responses that carry the policies: what can become a document (a page, an SVG opened by itself) and the
// lab's worker script, whose response sets the worker's policy. A module a page or worker imports, a stylesheet,
// the WASM or a font is governed by its importer's policy; its own would go unread.
const carriesPolicies = (file) =>
  ['.html', '.svg'].includes(extname(file)) || basename(file).replace(HASHED_NAME, '.js') === 'lab-worker.js';

// A strong ETag per representation: the SHA-256 of the bytes sent, remembered while the file is unchanged.
const etags = new Map();
function etagOf({ full, stat }) {
  const known = etags.get(full);
  if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known.etag;
  const etag = `"${createHash('sha256').update(readFileSync(full)).digest('base64url').slice(0, 27)}"`;
  etags.set(full, { mtimeMs: stat.mtimeMs, size: stat.size, etag });
  return etag;
}

/**
 * Every header a response carries, decided in one place. `file` is the resolved file (null for a 404),
 * `representation` what is sent for it (its encoding, its ETag).
 *   - the two policies, both enforced: the page policy (the same text as each page's meta) and the framing
 *     policy, which only a header can carry, on the pages, the worker script and errors (carriesPolicies);
 *   - content-hashed names (isImmutable) are cached for good, without an ETag: their bytes never change;
 *     everything else (the pages, the stable entry points, the favicon) is revalidated: no-cache with an ETag;
 *   - Vary: Accept-Encoding wherever the bytes depend on it;
 *   - CORS on everything (CROSS_ORIGIN_HEADERS), for pages on other origins that embed the widgets.
 */
export function responseHeaders({
  file = null,
  representation = null,
  status = 200,
  policy = CONTENT_SECURITY_POLICY,
} = {}) {
  const policies = { 'Content-Security-Policy': [policy, FRAMING_POLICY] };
  const headers = { 'X-Content-Type-Options': 'nosniff', ...CROSS_ORIGIN_HEADERS };
  if (!file || status >= 400)
    return { ...policies, ...headers, 'Cache-Control': 'no-cache', 'Content-Type': 'text/plain; charset=utf-8' };
  if (carriesPolicies(file.full)) Object.assign(headers, policies);
  headers['Content-Type'] = MIME[extname(file.full)] ?? 'application/octet-stream';
  if (isImmutable(file)) headers['Cache-Control'] = IMMUTABLE;
  else Object.assign(headers, { 'Cache-Control': 'no-cache', ETag: representation.etag });
  headers.Vary = 'Accept-Encoding';
  if (representation.encoding) headers['Content-Encoding'] = representation.encoding;
  if (status === 200) headers['Content-Length'] = representation.body?.length ?? representation.stat.size;
  return headers;
}

/** A content-hashed name (HASHED_NAME, as the build writes them): its bytes never change, so it is never revalidated. */
function isImmutable(file) {
  return HASHED_NAME.test(basename(file.full));
}

/** True when the request's If-None-Match names `etag` (or is *). */
function notModified(req, etag) {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * A page's bytes under a wider policy: its CSP meta (the lab's, as pages.mjs writes it) replaced by `policy`'s, sent
 * uncompressed. Null for anything else, which is sent as built.
 */
function widenedPage(file, policy) {
  if (policy === CONTENT_SECURITY_POLICY || extname(file.full) !== '.html') return null;
  const html = readFileSync(file.full, 'utf8');
  if (!html.includes(CSP_META)) return null;
  const body = Buffer.from(html.replace(CSP_META, cspMeta(policy)));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { ...file, encoding: null, body, etag };
}

/**
 * Starts the static server; resolves to { server, url }. Port 0 picks any free port. connectSrc: origins the pages
 * may also connect to (a local mirror, a mock Hub), added to the header and to the pages' meta policy.
 */
export function startServer({
  siteRoot = join(root, 'dist'),
  port = 8080,
  host = '127.0.0.1',
  tries = 20,
  connectSrc = [],
} = {}) {
  const policy = connectSrc.length ? contentSecurityPolicy({ connect: connectSrc }) : CONTENT_SECURITY_POLICY;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...responseHeaders({ status: 405, policy }), Allow: ALLOWED_METHODS });
      res.end('method not allowed\n');
      return;
    }
    const file = resolveFile(siteRoot, req.url ?? '/');
    if (!file) {
      res.writeHead(404, responseHeaders({ status: 404, policy }));
      res.end('not found\n');
      return;
    }
    const representation = widenedPage(file, policy) ?? chooseRepresentation(file, req.headers['accept-encoding']);
    if (!isImmutable(file)) representation.etag ??= etagOf(representation);
    if (representation.etag && notModified(req, representation.etag)) {
      res.writeHead(304, responseHeaders({ file, representation, status: 304, policy }));
      res.end();
      return;
    }
    res.writeHead(200, responseHeaders({ file, representation, policy }));
    if (req.method === 'HEAD') res.end();
    else if (representation.body) res.end(representation.body);
    else createReadStream(representation.full).pipe(res);
  });
  return listenOnFreePort(server, { port, host, tries }).then((bound) => ({ server, url: `http://${host}:${bound}/` }));
}

/**
 * Listens on `port`, or the next free one of the `tries` after it (port 0: any free port). Resolves to the port;
 * rejects with an Error that says which ports were taken.
 */
export function listenOnFreePort(server, { port, host = '127.0.0.1', tries = 20 }) {
  return new Promise((resolve, reject) => {
    const attempt = (p, left) => {
      server.once('error', (err) => {
        if (err.code === 'EADDRINUSE' && left > 0 && p !== 0) attempt(p + 1, left - 1);
        else if (err.code === 'EADDRINUSE')
          reject(
            Object.assign(new Error(`ports ${port} to ${p} on ${host} are all in use: set another with PORT=N`), {
              code: p === port ? 'EADDRINUSE' : 'EPORTSINUSE',
            }),
          );
        else reject(err);
      });
      server.listen(p, host, () => resolve(server.address().port));
    };
    attempt(port, tries);
  });
}

/** The serving options `node scripts/serve.mjs` and `npx residual-lab` share (node:util parseArgs rows). */
export const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string', default: '127.0.0.1' },
  connect: { type: 'string', multiple: true, default: [] },
};
export const SERVE_USAGE = `  --port N          serve on port N, and refuse if it is taken (0: any free port); without it PORT, else 8080,
                    or the next free port after it, said when it moves
  --host H          the address to listen on (default 127.0.0.1)
  --connect ORIGIN  also allow the pages to connect to ORIGIN (connect-src), e.g. a Hub mirror; repeatable`;

/**
 * Serves `siteRoot` with the parsed SERVE_OPTIONS; resolves to { server, url, notes }, or throws an Error whose
 * message says what to change (a taken port named with --port, an --connect that is not an origin).
 */
export async function serveWithOptions(siteRoot, { port: portOption, host, connect }, env = process.env) {
  const asked = portOption ?? env.PORT;
  const port = Number(asked ?? 8080);
  if (!/^\d+$/.test(String(asked ?? 8080)) || port > 65535)
    throw new Error(`--port ${asked}: a port number, 0 to 65535`);
  const connectSrc = connect.map((origin) => {
    let url = null;
    try {
      url = new URL(origin);
    } catch {
      // reported below
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== origin.replace(/\/$/, ''))
      throw new Error(`--connect ${origin}: an origin such as http://127.0.0.1:9000 (scheme, host and port only)`);
    return url.origin;
  });
  // A port named with --port is the reader's choice: taken, it is refused, not silently replaced.
  const tries = portOption === undefined ? 20 : 0;
  const { server, url } = await startServer({ siteRoot, port, host, connectSrc, tries }).catch((error) => {
    if (error.code !== 'EADDRINUSE') throw error;
    throw new Error(`port ${port} on ${host} is in use; choose another with --port N (--port 0: any free port)`);
  });
  const notes = [];
  const bound = server.address().port;
  if (port !== 0 && bound !== port) notes.push(`port ${port} was in use, so the lab took ${bound}`);
  if (connectSrc.length) notes.push(`the pages may also connect to ${connectSrc.join(', ')}`);
  return { server, url, notes };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const USAGE = `node scripts/serve.mjs [options]: serves dist/ (build it first: node scripts/build.mjs)
${SERVE_USAGE}
  --help            this text`;
  let options;
  try {
    ({ values: options } = parseArgs({ options: { ...SERVE_OPTIONS, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    console.error(`serve: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(USAGE);
  } else {
    try {
      const { url, notes } = await serveWithOptions(join(root, 'dist'), options);
      for (const note of notes) console.log(`${note[0].toUpperCase()}${note.slice(1)}.`);
      console.log(`Residual Lab is served at ${url}  (Ctrl+C stops it)`);
    } catch (error) {
      console.error(`serve: ${error.message}`);
      process.exit(2);
    }
  }
}
