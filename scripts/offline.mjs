// The chapter as one self-contained file per language of web/languages.js, dist/offline/residual-lab-<code>.html:
// text, styles, widgets, worker and WebAssembly inlined, so it works opened from disk (file://) or uploaded to an
// LMS as a file. Called by scripts/build.mjs once the site is assembled: `await buildOffline({ siteDir, outDir })`,
// where siteDir is the site as a plain tree of ES modules (web/ with the WASM builds, uPlot and the rendered
// pages) and the files are written to outDir/offline/.
//
// How: esbuild bundles the page's modules (shell/page.js, components/index.js) into one classic inline script and
// the worker (lib/lab-worker.js) into a second bundle kept as a string. The modules find their files through
// `new URL(path, import.meta.url)`; here each file's import.meta.url becomes a virtual https URL under
// OFFLINE_BASE, and a small runtime answers fetch() of those URLs from the inlined files (the widgets' CSS, the
// .wasm bytes as base64). Two calls that cannot go through fetch are rewritten, each checked to match exactly
// once: the glue's dynamic import() (the glue is bundled instead) and the worker's creation (a Blob URL of the
// worker bundle). The page's policy: inline script and style allowed by their sha256 hashes, workers from blob:,
// WebAssembly under 'wasm-unsafe-eval', no 'unsafe-eval' and no network.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { LANGUAGES } from '../web/languages.js';
import { FLAVOURS } from '../web/lib/wasm-module.js';
import { PAGE_STYLES } from './pages.mjs';
import { OFFLINE_CODE_FILE, OFFLINE_CODE_MARK, assembleOffline, offlineName } from './lib/offline-file.mjs';

export const OFFLINE_BASE = 'https://residual-lab.offline/';

const REWRITES = {
  'lib/wasm-module.js': [
    ['import(glueUrl(flavour).href)', "import('rl-offline:glue').then(({ glue }) => glue(flavour))"],
  ],
  'lib/worker-client.js': [
    ["createWorkerFor(new URL('./lab-worker.js', import.meta.url))", 'globalThis.residualLabOffline.createWorker()'],
  ],
};

/** esbuild plugin: virtual import.meta.url per file, the checked rewrites, and the rl-offline: modules. */
function offlinePlugin(site, virtualModules) {
  return {
    name: 'residual-lab-offline',
    setup(builder) {
      builder.onResolve({ filter: /^rl-offline:/ }, (args) => ({ path: args.path, namespace: 'rl-offline' }));
      builder.onLoad({ filter: /.*/, namespace: 'rl-offline' }, (args) => ({
        contents: virtualModules[args.path],
        resolveDir: site,
        loader: 'js',
      }));
      builder.onLoad({ filter: /\.(m?js)$/ }, (args) => {
        const path = relative(site, args.path).split('\\').join('/');
        if (path.startsWith('..')) return undefined;
        let contents = readFileSync(args.path, 'utf8');
        for (const [from, to] of REWRITES[path] ?? []) {
          const count = contents.split(from).length - 1;
          if (count !== 1)
            throw new Error(`offline build: ${path} should contain ${JSON.stringify(from)} once (found ${count})`);
          contents = contents.replace(from, to);
        }
        contents = contents.replaceAll('import.meta.url', JSON.stringify(new URL(path, OFFLINE_BASE).href));
        return { contents, loader: 'js' };
      });
    },
  };
}

// Runs first in the page and in the worker: serves fetch() of OFFLINE_BASE URLs from `files`.
const RUNTIME = `
export function serveOfflineFiles(files) {
  const networkFetch = globalThis.fetch;
  const decode = (base64) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  globalThis.fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.startsWith(${JSON.stringify(OFFLINE_BASE)})) return networkFetch(input, init);
    const file = files[url.slice(${OFFLINE_BASE.length})];
    if (!file) return Promise.resolve(new Response('not in the offline file', { status: 404 }));
    return Promise.resolve(new Response(file.base64 !== undefined ? decode(file.base64) : file.text, { headers: { 'Content-Type': file.type } }));
  };
}
`;

function inlinedFiles(site) {
  const files = {};
  // The widgets' stylesheets, beside their modules (the page's own, PAGE_STYLES, are inlined in its <style>).
  for (const entry of readdirSync(join(site, 'components'), { recursive: true })) {
    const path = `components/${entry.split('\\').join('/')}`;
    if (path.endsWith('.css')) files[path] = { type: 'text/css', text: readFileSync(join(site, path), 'utf8') };
  }
  files['vendor/uplot/uPlot.min.css'] = {
    type: 'text/css',
    text: readFileSync(join(site, 'vendor/uplot/uPlot.min.css'), 'utf8'),
  };
  // The trained toys (1.7 MB): the checkpoint probe opens one by default, and the offline chapter must too.
  for (const toy of readdirSync(join(site, 'models'), { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    for (const name of readdirSync(join(site, 'models', toy.name))) {
      files[`models/${toy.name}/${name}`] = {
        type: 'application/octet-stream',
        base64: readFileSync(join(site, 'models', toy.name, name)).toString('base64'),
      };
    }
  }
  for (const flavour of FLAVOURS) {
    files[`lib/wasm/residual_lab_${flavour}.wasm`] = {
      type: 'application/wasm',
      base64: readFileSync(join(site, `lib/wasm/residual_lab_${flavour}.wasm`)).toString('base64'),
    };
  }
  return files;
}

async function bundle(site, entry, virtualModules) {
  const result = await build({
    stdin: { contents: entry, resolveDir: site, loader: 'js' },
    bundle: true,
    format: 'iife',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
    external: ['node:*'], // residual-lab.js reads files with node:fs only under node
    plugins: [offlinePlugin(site, virtualModules)],
    logLevel: 'silent',
  });
  // A literal "</script" would end the inline script early.
  return result.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
}

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The CSP of the offline file: its inline script and styles by hash, workers from blob:, no network. */
export function offlinePolicy({ scripts, styles }) {
  return [
    "default-src 'none'",
    `script-src ${scripts.map(sha256).join(' ')} 'wasm-unsafe-eval'`,
    `style-src ${styles.map(sha256).join(' ')}`,
    'img-src data: blob:',
    'worker-src blob:',
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export async function buildOffline({ siteDir: site, outDir = site }) {
  const glue =
    FLAVOURS.map((flavour) => `import ${flavour} from './lib/wasm/residual_lab_${flavour}.mjs';\n`).join('') +
    `export const glue = (flavour) => ({ default: { ${FLAVOURS.join(', ')} }[flavour] });\n`;
  // Module bodies run after their imports, in order: the install modules come first so the files are served
  // before any lab module looks for one.
  const workerInstall =
    "import { serveOfflineFiles } from 'rl-offline:runtime';\nserveOfflineFiles(self.residualLabOfflineFiles);\n";
  const workerCode = await bundle(site, "import 'rl-offline:install';\nimport './lib/lab-worker.js';\n", {
    'rl-offline:runtime': RUNTIME,
    'rl-offline:install': workerInstall,
    'rl-offline:glue': glue,
  });
  const files = inlinedFiles(site);
  const pageInstall = `
import { serveOfflineFiles } from 'rl-offline:runtime';
import { FILES, WORKER_CODE } from 'rl-offline:files';
serveOfflineFiles(FILES);
// The worker: its bundle in a Blob, the inlined files handed over in front of it.
globalThis.residualLabOffline = {
  createWorker() {
    const url = URL.createObjectURL(new Blob(['self.residualLabOfflineFiles = ', JSON.stringify(FILES), ';\\n', WORKER_CODE], { type: 'text/javascript' }));
    const worker = new Worker(url);
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    return worker;
  },
};
`;
  const pageEntry = "import 'rl-offline:install';\nimport './shell/page.js';\nimport './components/index.js';\n";
  const filesModule = `export const FILES = ${JSON.stringify(files)};\nexport const WORKER_CODE = ${JSON.stringify(workerCode)};\n`;
  const pageCode = await bundle(site, pageEntry, {
    'rl-offline:runtime': RUNTIME,
    'rl-offline:install': pageInstall,
    'rl-offline:files': filesModule,
    'rl-offline:glue': glue,
  });

  const offlineDir = join(outDir, 'offline');
  const partsDir = join(offlineDir, 'parts');
  mkdirSync(partsDir, { recursive: true });
  const pageCss = PAGE_STYLES.map((file) => readFileSync(join(site, file), 'utf8')).join('\n');
  const themeInit = readFileSync(join(site, 'shell/theme-init.js'), 'utf8');
  const favicon = `data:image/svg+xml;base64,${readFileSync(join(site, 'favicon.svg')).toString('base64')}`;
  const written = [];
  for (const { code, page: source } of LANGUAGES) {
    let html = readFileSync(join(site, source), 'utf8');
    const replaceOnce = (pattern, replacement) => {
      const before = html;
      html = html.replace(pattern, replacement);
      if (html === before) throw new Error(`offline build: ${source} has no ${pattern}`);
    };
    const policy = offlinePolicy({ scripts: [themeInit, pageCode], styles: [pageCss] });
    replaceOnce(
      /<meta http-equiv="Content-Security-Policy"[^>]*>/,
      `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    );
    replaceOnce(/<link rel="icon"[^>]*>/, `<link rel="icon" href="${favicon}" type="image/svg+xml">`);
    // The other languages, and the language menu's links: to their offline files.
    const htmlLangs = new Map(LANGUAGES.map((row) => [row.htmlLang, row.code]));
    html = html.replace(
      /<link rel="alternate" hreflang="([^"]*)" href="[^"]*">/g,
      (whole, htmlLang) =>
        `<link rel="alternate" hreflang="${htmlLang}" href="${offlineName(htmlLangs.get(htmlLang))}">`,
    );
    // the page's stylesheets (PAGE_STYLES), one <style> in their order
    replaceOnce(
      /<link rel="stylesheet" href="[^"]*page\.css">(\s*<link rel="stylesheet" href="[^"]*page-[a-z]+\.css">)*/,
      () => `<style>${pageCss}</style>`,
    );
    replaceOnce(/<script src="[^"]*theme-init\.js"><\/script>/, () => `<script>${themeInit}</script>`);
    replaceOnce(/\s*<script type="module" src="[^"]*page\.js"><\/script>/, '');
    // The bundle is a classic inline script, which runs where it stands: at the end of the body, as the served page's
    // module scripts run once the document is parsed (the shell finds its menu, its toggle and its contents then).
    replaceOnce(/\s*<script type="module" src="[^"]*components\/index\.js"><\/script>/, '');
    replaceOnce(/<\/body>/, () => `<script>${OFFLINE_CODE_MARK}</script>\n</body>`);
    replaceOnce(
      /<a href="[^"]*"([^>]*) data-lang-link="([^"]*)">/g,
      (whole, attributes, linked) => `<a href="${offlineName(linked)}"${attributes} data-lang-link="${linked}">`,
    );
    html = html.replace(/\s*<p class="file-note"[\s\S]*?<\/p>/, ''); // the note that points here
    if (/<(script|link)[^>]+(src|href)="(?!data:|#|residual-lab-)/.test(html))
      throw new Error(`offline build: ${source} still refers to a file`);
    // The page without its 4 MB script, which is the same in every language (scripts/lib/offline-file.mjs): the
    // npm package ships these parts, `npx residual-lab --offline <lang>` puts them together.
    writeFileSync(join(partsDir, offlineName(code)), html);
    const target = join(offlineDir, offlineName(code));
    writeFileSync(target, assembleOffline(html, pageCode));
    written.push(target);
  }
  writeFileSync(join(partsDir, OFFLINE_CODE_FILE), pageCode);
  return written;
}
