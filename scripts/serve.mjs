#!/usr/bin/env node
// Serves dist/ on 127.0.0.1 with the strict Content-Security-Policy the lab is built to run under (the policy
// lives in scripts/lib/csp.mjs; the pages carry it as a meta element too). GET and HEAD only; others get 405.
//   node scripts/serve.mjs [--port N]     (PORT in the environment works too; default 8080, next free one if taken)
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CONTENT_SECURITY_POLICY, FRAMING_POLICY } from './lib/csp.mjs';

export { CONTENT_SECURITY_POLICY, FRAMING_POLICY };

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ALLOWED_METHODS = 'GET, HEAD';

// Cross-origin use: a course page on another origin loads components/index.js from here as a module script, and
// the widgets then fetch the CSS, the glue and the .wasm and import the worker's modules, all in CORS mode. The
// lab's files are public and need no credentials, so any origin may read them.
const CROSS_ORIGIN_HEADERS = { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf',
  '.md': 'text/markdown; charset=utf-8', '.txt': 'text/plain; charset=utf-8',
};

function resolveFile(siteRoot, urlPath) {
  let path;
  try { path = decodeURIComponent(urlPath.split('?')[0].split('#')[0]); } catch { return null; }
  const full = normalize(join(siteRoot, path));
  if (full !== siteRoot && !full.startsWith(siteRoot + sep)) return null;  // no escaping the site
  try {
    const st = statSync(full);
    if (st.isDirectory()) return resolveFile(siteRoot, join(path, 'index.html'));
    return st.isFile() ? { full, size: st.size } : null;
  } catch { return null; }
}

/** Starts the static server; resolves to { server, url }. Port 0 picks any free port. */
export function startServer({ siteRoot = join(root, 'dist'), port = 8080, host = '127.0.0.1', tries = 20 } = {}) {
  const server = createServer((req, res) => {
    // Two policies, both enforced: the page policy (the same text as each page's meta) and the framing policy,
    // which only a header can carry.
    const headers = { 'Content-Security-Policy': [CONTENT_SECURITY_POLICY, FRAMING_POLICY], 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache', ...CROSS_ORIGIN_HEADERS };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, Allow: ALLOWED_METHODS, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('method not allowed\n');
      return;
    }
    const file = resolveFile(siteRoot, req.url ?? '/');
    if (!file) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('not found\n');
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': MIME[extname(file.full)] ?? 'application/octet-stream', 'Content-Length': file.size });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file.full).pipe(res);
  });
  return new Promise((resolve, reject) => {
    const attempt = (p, left) => {
      server.once('error', (err) => (err.code === 'EADDRINUSE' && left > 0 && p !== 0 ? attempt(p + 1, left - 1) : reject(err)));
      server.listen(p, host, () => resolve({ server, url: `http://${host}:${server.address().port}/` }));
    };
    attempt(port, tries);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const flag = process.argv.indexOf('--port');
  const port = Number(flag > 0 ? process.argv[flag + 1] : process.env.PORT ?? 8080);
  const { url } = await startServer({ port });
  console.log(`Residual Lab is served at ${url}  (Ctrl+C stops it)`);
}
