#!/usr/bin/env node
// `npx residual-lab`: the built chapter of the installed package, served with node alone (no compiler, no build).
//   npx residual-lab [--port N] [--host H] [--connect ORIGIN]... [--open]   serve dist/ and print its URL
//                                                     (serve.mjs's SERVE_USAGE: a --port taken is refused)
//   npx residual-lab --offline zh [--out FILE]        write the single-file chapter of a language (opens from disk)
// The server is the project's own (scripts/serve.mjs): the same Content-Security-Policy, CORS and caching headers
// as `npm start`.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readOffline, offlineName } from '../scripts/lib/offline-file.mjs';
import { SERVE_OPTIONS, SERVE_USAGE, serveWithOptions } from '../scripts/serve.mjs';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(packageRoot, 'dist');
const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));

const USAGE = `residual-lab ${version}: the chapter "Residual connections and normalization", served from this package
  residual-lab [options] [--open]                serve the chapter and print its address (--open: in a browser)
${SERVE_USAGE}
  residual-lab --offline <lang> [--out FILE]     write the single-file chapter (zh or en) to open from disk
  residual-lab --version | --help`;

function fail(message) {
  console.error(`residual-lab: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      ...SERVE_OPTIONS,
      open: { type: 'boolean', default: false },
      offline: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
    },
  }));
} catch (err) {
  fail(err.message);
}

/** Opens `url` in the system's browser; a missing opener is said, not thrown (the URL is printed anyway). */
function openBrowser(url) {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => console.error(`residual-lab: could not open a browser (${command}); open ${url} yourself`));
  child.unref();
}

if (options.help) {
  console.log(USAGE);
} else if (options.version) {
  console.log(version);
} else if (options.offline !== undefined) {
  const html = readOffline(join(dist, 'offline/parts'), options.offline);
  if (html === null) fail(`no offline chapter for the language "${options.offline}"`);
  const target = resolve(options.out ?? offlineName(options.offline));
  writeFileSync(target, html);
  console.log(
    `residual-lab: wrote ${target} (${(Buffer.byteLength(html) / 1e6).toFixed(1)} MB); open it in a browser, no server needed`,
  );
} else {
  let served;
  try {
    served = await serveWithOptions(dist, options);
  } catch (error) {
    fail(error.message);
  }
  const { url, notes } = served;
  for (const note of notes) console.log(`residual-lab: ${note}`);
  console.log(`Residual Lab ${version} is served at ${url}  (Ctrl+C stops it)`);
  if (options.open) openBrowser(url);
}
