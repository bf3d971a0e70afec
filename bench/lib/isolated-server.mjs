// A server for the browser benches that compare engines: cross-origin isolated (COOP same-origin, COEP
// require-corp), so a page may use SharedArrayBuffer and the threads of a WebAssembly build that needs it (wllama's
// multi-thread llama.cpp). It serves the built lab under /dist/, a folder of packages under /pkg/ and `files`
// (name -> path) under /files/<name>, streamed from disk; every response uncached. The site's own server
// (scripts/serve.mjs) stays as readers get it: not isolated.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};
const ISOLATED = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};
const PAGE =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>bench</title><input type="file" multiple>';

/**
 * Starts it on 127.0.0.1 at a free port: { url, close() }. roots: { prefix: folder }, e.g. { dist, pkg }.
 * isolated: false leaves out COOP and COEP, for a page as a reader's is.
 */
export async function startIsolatedServer({ roots, files = {}, isolated = true }) {
  const headers = isolated ? ISOLATED : { 'Cache-Control': 'no-store' };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let full = null;
    if (path === '/') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html' });
      return res.end(PAGE);
    }
    const [, prefix, ...rest] = path.split('/');
    if (prefix === 'files') full = files[rest.join('/')] ?? null;
    else if (roots[prefix]) {
      full = normalize(join(roots[prefix], ...rest));
      if (!full.startsWith(normalize(roots[prefix]) + sep)) full = null;
    }
    let size;
    try {
      size = full && statSync(full).isFile() ? statSync(full).size : null;
    } catch {
      size = null;
    }
    if (size === null) {
      res.writeHead(404, headers);
      return res.end();
    }
    res.writeHead(200, {
      ...headers,
      'Content-Type': TYPES[extname(full)] ?? 'application/octet-stream',
      'Content-Length': size,
    });
    createReadStream(full).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((ok) => (server.closeAllConnections(), server.close(ok))),
  };
}
