#!/usr/bin/env node
// Serves the examples next to the lab, on a second origin, as a course site would:
//   node examples/serve.mjs      the lab on http://127.0.0.1:8080/ (npm run serve) and the examples on
//                                http://localhost:8081/ (a different origin: another host name and port);
//                                a port in use (a running `npm start`) moves each to the next free one, and
//                                the addresses are printed. PORT=N and EXAMPLES_PORT=N choose the first tried.
// The example pages name the lab as http://127.0.0.1:8080; when the lab runs elsewhere (a test picks free ports),
// that text is replaced by the lab's real address as the pages are served. /vendor/reveal.js/ is the npm
// package's dist/ folder, for the slide deck.
import { createServer } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { listenOnFreePort, startServer } from '../scripts/serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
export const LAB_ORIGIN_IN_EXAMPLES = 'http://127.0.0.1:8080';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.ipynb': 'application/x-ipynb+json',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};
const MOUNTS = [
  ['/vendor/reveal.js/', join(root, 'node_modules/reveal.js/dist')],
  ['/', here],
];

function resolve(urlPath) {
  let path;
  try {
    path = decodeURIComponent(new URL(urlPath, 'http://x').pathname);
  } catch {
    return null;
  }
  const [prefix, dir] = MOUNTS.find(([p]) => path.startsWith(p));
  let full = normalize(join(dir, path.slice(prefix.length)));
  if (full !== dir && !full.startsWith(dir + sep)) return null;
  try {
    if (statSync(full).isDirectory()) full = join(full, 'index.html');
    return statSync(full).isFile() ? full : null;
  } catch {
    return null;
  }
}

/** Starts the examples server; `labOrigin` replaces LAB_ORIGIN_IN_EXAMPLES in the pages. Resolves to { server, url }. */
export function startExamplesServer({
  labOrigin = LAB_ORIGIN_IN_EXAMPLES,
  port = 8081,
  host = '127.0.0.1',
  urlHost = 'localhost',
} = {}) {
  const server = createServer((req, res) => {
    const file = resolve(req.url ?? '/');
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(file ? 405 : 404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(file ? 'method not allowed\n' : 'not found\n');
      return;
    }
    const type = MIME[extname(file)] ?? 'application/octet-stream';
    let body = readFileSync(file);
    if (file.startsWith(here) && /^(text|application\/(x-ipynb|json))/.test(type))
      body = Buffer.from(body.toString('utf8').replaceAll(LAB_ORIGIN_IN_EXAMPLES, labOrigin));
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length, 'Cache-Control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  return listenOnFreePort(server, { port, host }).then((bound) => ({ server, url: `http://${urlHost}:${bound}/` }));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const lab = await startServer({ port: Number(process.env.PORT ?? 8080) });
    const labOrigin = new URL(lab.url).origin;
    // The examples' first port is the one after the lab's, wherever the lab landed.
    const examples = await startExamplesServer({
      labOrigin,
      port: Number(process.env.EXAMPLES_PORT ?? Number(new URL(lab.url).port) + 1),
    });
    console.log(
      `The lab: ${lab.url}\nThe examples: ${examples.url}course-page/  ${examples.url}slides/  ${examples.url}lms/  ${examples.url}notebook/residual-lab.html`,
    );
  } catch (error) {
    console.error(`examples/serve.mjs: ${error.message}`);
    process.exit(1);
  }
}
