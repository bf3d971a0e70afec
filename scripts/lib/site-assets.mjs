// Turns the assembled site (web/ with the WASM builds, uPlot and the rendered pages: a plain tree of ES modules)
// into what dist/ serves: minified, content-hashed, precompressed files.
//
//   - The JavaScript is bundled by esbuild (ES modules, code splitting, minified, source maps) into assets/, every
//     file named by the hash of its content ([name]-[hash].js); shared code lands in chunks both sides import, so
//     a module such as residual-lab.js is evaluated once however it is reached.
//   - The documented entry points keep their names (STABLE_ENTRIES): each is a one-line module re-exporting its
//     hashed bundle, so a teacher's <script src=".../components/index.js"> and `import ... from
//     '.../lib/residual-lab.js'` never break, while everything they pull in can be cached for good.
//   - Other assets (the WASM modules and their Emscripten glue, the stylesheets, the theme script) are renamed
//     <name>-<hash>.<ext> in place, the CSS, the glue and the theme script minified. The code finds them with `new URL('<relative path>',
//     import.meta.url)`: ONE expression per file in the source, which the bundler rewrites here to the hashed name
//     (a template such as `./wasm/residual_lab_${flavour}.wasm` becomes a lookup among the files it can match).
//     A reference the build cannot resolve fails the build.
//   - The pages' src/href attributes are rewritten the same way; asset-manifest.json maps every source name to
//     the name it is served under.
//   - Every compressible file (text, WASM, and the toys' .safetensors weights) gets .gz and .br siblings (zlib's
//     gzip level 9 and brotli quality 11), which scripts/serve.mjs sends by Accept-Encoding.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, posix, relative, sep } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { uplotLazyIntlPlugin } from './uplot-lazy-intl.mjs';
import { HASHED_NAME } from './hashed-name.mjs';

export { HASHED_NAME };

/** Module entry points whose names are documented (docs/api.md, docs/embedding.md): never hashed. */
export const STABLE_ENTRIES = [
  'components/index.js',
  'lib/residual-lab.js',
  'lib/worker-client.js',
  'lib/lab-worker.js',
  'lib/worker-methods.js',
  'lib/node-lab-worker.js',
];
/** Module entry points only the pages load: hashed like the rest. */
const PAGE_ENTRIES = ['shell/page.js', 'embed.js'];
/**
 * Files served under their own names, no-cache (with an ETag): the pages, the favicon, the stable entries, and
 * embed-resize.js, the classic script a host page includes by its documented name.
 */
const COPIED_AS_IS = ['favicon.svg', 'embed-resize.js'];
/** Where the bundles go; every output of esbuild is one level below the site root. */
const BUNDLE_DIR = 'assets';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The first 8 base32 characters of the SHA-256 of `bytes` (40 bits: a collision among a site's files is moot). */
export function contentHash(bytes) {
  const digest = createHash('sha256').update(bytes).digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 8) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === 8) break;
  }
  return out;
}

export const hashedName = (sitePath, bytes) => {
  const ext = posix.extname(sitePath);
  return `${sitePath.slice(0, -ext.length)}-${contentHash(bytes)}${ext}`;
};

const toPosix = (path) => path.split(sep).join('/');

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => toPosix(relative(dir, join(entry.parentPath ?? entry.path, entry.name))));
}

/** The assets to rename by content, besides the bundles: [site path, transform of the bytes]. */
function hashedAssets(siteFiles) {
  const minifyCss = (bytes, path) =>
    Buffer.from(esbuild.transformSync(bytes.toString('utf8'), { loader: 'css', minify: true, sourcefile: path }).code);
  const minifyJs = (bytes, path) =>
    Buffer.from(esbuild.transformSync(bytes.toString('utf8'), { loader: 'js', minify: true, sourcefile: path }).code);
  const keep = (bytes) => bytes;
  return [
    ...siteFiles.filter((p) => /^lib\/wasm\/[^/]+\.wasm$/.test(p)).map((p) => [p, keep]),
    // Emscripten's glue, emitted with whitespace and long local names: minified, 13.1 KB of brotli -> 10.0 KB
    ...siteFiles.filter((p) => /^lib\/wasm\/[^/]+\.mjs$/.test(p)).map((p) => [p, minifyJs]),
    ...siteFiles.filter((p) => /^(styles|components)\/.+\.css$/.test(p)).map((p) => [p, minifyCss]), // the pages' and the widgets'
    ['vendor/uplot/uPlot.min.css', keep],
    ...siteFiles.filter((p) => /^models\/[^/]+\/[^/]+$/.test(p)).map((p) => [p, keep]), // the trained toys' checkpoint files
    ['shell/theme-init.js', minifyJs], // a classic script, run before the first paint
  ];
}

/**
 * The setting for code that runs from elsewhere than the package's own files: bundled again into an application
 * (esbuild and others do not follow `new URL(..., import.meta.url)` into a package). Set to the URL of the
 * package's dist/ (a CDN's, or a copy on the application's site), by a bundler's `define` or a script before the
 * lab's, it is where the files are looked for; unset, they are found beside the code, as everywhere else.
 */
export const ASSET_BASE_GLOBAL = 'RESIDUAL_LAB_BASE';
const base = `globalThis.${ASSET_BASE_GLOBAL}`;
/** What every rewritten `new URL(path, ...)` resolves against: the bundles' folder, under the setting or here. */
const BUNDLE_URL = `(${base} ? new URL(${JSON.stringify(`${BUNDLE_DIR}/`)}, new URL(${base}, globalThis.location?.href)) : import.meta.url)`;

const URL_EXPRESSION = /new URL\(\s*(['"`])((?:(?!\1)[^\\])*)\1\s*,\s*import\.meta\.url\s*\)/g;

/**
 * The esbuild plugin that points every `new URL('<path>', import.meta.url)` of the site's modules at the name
 * the file is served under, relative to BUNDLE_DIR (where the code runs once bundled).
 */
function assetUrlPlugin({ siteDir, served }) {
  const fromBundle = (sitePath) => `../${sitePath}`;
  return {
    name: 'residual-lab-asset-urls',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        const file = toPosix(relative(siteDir, args.path));
        const source = readFileSync(args.path, 'utf8');
        const here = posix.dirname(file);
        let rewritten = 0;
        const contents = source.replace(URL_EXPRESSION, (whole, quote, path) => {
          rewritten += 1;
          const parts = path.split(/\$\{([^}]*)\}/);
          if (parts.length === 1) {
            const target = posix.normalize(posix.join(here, path));
            if (!served.has(target))
              throw new Error(
                `${file}: new URL('${path}', import.meta.url) names ${target}, which the site does not hold`,
              );
            return `new URL(${JSON.stringify(fromBundle(served.get(target)))}, ${BUNDLE_URL})`;
          }
          if (quote !== '`' || parts.length !== 3)
            throw new Error(`${file}: ${whole}: one \${...} at most, in a template literal`);
          const [before, expression, after] = parts;
          const prefix = posix.normalize(posix.join(here, `${before}x`)).slice(0, -1); // "../../styles/" -> "styles/"
          const choices = {};
          for (const [sitePath, servedPath] of served) {
            if (
              sitePath.startsWith(prefix) &&
              sitePath.endsWith(after) &&
              sitePath.length >= prefix.length + after.length
            ) {
              choices[sitePath.slice(prefix.length, sitePath.length - after.length)] = fromBundle(servedPath);
            }
          }
          if (!Object.keys(choices).length) throw new Error(`${file}: ${whole} matches no file of the site`);
          // An unknown value keeps the unhashed name, and so fails as it did before the build renamed anything.
          const lookup = `((key, names) => (Object.hasOwn(names, key) ? names[key] : ${JSON.stringify(fromBundle(prefix))} + key + ${JSON.stringify(after)}))`;
          return `new URL(${lookup}(${expression}, ${JSON.stringify(choices)}), ${BUNDLE_URL})`;
        });
        // Bundled, the code runs from assets/: any other use of import.meta.url would point elsewhere than written.
        if ((source.match(/import\.meta\.url/g) ?? []).length !== rewritten) {
          throw new Error(
            `${file}: import.meta.url only in new URL('<path>', import.meta.url), with a literal or a template of one \${...}`,
          );
        }
        return { contents, loader: 'js' };
      });
    },
  };
}

// What a page with widgets fetches before its code asks: the WASM module of the relaxed-SIMD build (the one
// Chromium-based browsers run; an engine without relaxed SIMD fetches the SIMD build instead), a plain fetch at the end of a chain of imports. Its modules are not preloaded: fetched and compiled
// at once, they would compete with the first layout of the page (docs/benchmarks.md, "The first layout").
const WIDGET_PAGE_PRELOADS = [
  {
    source: 'lib/wasm/residual_lab_relaxed.wasm',
    link: (href) => `<link rel="preload" href="${href}" as="fetch" crossorigin>`,
  },
];

/**
 * Points the pages' src and href attributes at the names their files are served under, and names before the
 * first module script what a page with widgets will fetch (WIDGET_PAGE_PRELOADS).
 */
function rewritePage(html, pagePath, served) {
  const here = posix.dirname(pagePath);
  const preloads = new Set();
  const rewritten = html.replace(/\b(src|href)="([^"#?:]+)"/g, (whole, attribute, path) => {
    const target = posix.normalize(posix.join(here, path));
    if (target === 'components/index.js')
      for (const { source, link } of WIDGET_PAGE_PRELOADS)
        if (served.has(source)) preloads.add(link(posix.relative(here, served.get(source))));
    const servedPath = served.get(target);
    if (!servedPath || servedPath === target) return whole;
    return `${attribute}="${posix.relative(here, servedPath)}"`;
  });
  const at = rewritten.search(/<script type="module"/);
  if (!preloads.size || at < 0) return rewritten;
  const indent = rewritten.slice(rewritten.lastIndexOf('\n', at) + 1, at);
  return `${rewritten.slice(0, at)}${[...preloads].join(`\n${indent}`)}\n${indent}${rewritten.slice(at)}`;
}

// Source maps are left out: only a reader's developer tools fetch them. The toys' weights (.safetensors, F16) are
// fetched whole by a plain GET (components/shared/toys.js fetchToy), never by Range, so an encoded body is safe;
// brotli takes the chapter's toy from 417 KB to 365 KB.
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.svg', '.json', '.txt', '.md', '.safetensors']);

/** Writes <file>.gz and <file>.br beside every compressible file of `dir` where they are smaller. */
export function precompress(dir) {
  for (const path of filesUnder(dir)) {
    const full = join(dir, path);
    if (!COMPRESSIBLE.has(extname(path))) continue;
    const bytes = readFileSync(full);
    if (bytes.length < 512) continue;
    const gzip = gzipSync(bytes, { level: 9 });
    const brotli = brotliCompressSync(bytes, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    });
    if (gzip.length < bytes.length) writeFileSync(`${full}.gz`, gzip);
    if (brotli.length < bytes.length) writeFileSync(`${full}.br`, brotli);
  }
}

/**
 * Builds the served site into `outDir` from the assembled tree `siteDir`. Resolves to the manifest (site path ->
 * served path). The lists default to the lab's; tests build small sites of their own.
 */
export async function buildSiteAssets({
  siteDir,
  outDir,
  stableEntries = STABLE_ENTRIES,
  pageEntries = PAGE_ENTRIES,
  copiedAsIs = COPIED_AS_IS,
}) {
  const siteFiles = filesUnder(siteDir);
  const served = new Map(); // site path -> served path
  for (const entry of stableEntries) served.set(entry, entry);
  for (const page of siteFiles.filter((p) => p.endsWith('.html'))) served.set(page, page); // pages keep their names
  for (const [sitePath, transform] of hashedAssets(siteFiles).filter(([path]) => siteFiles.includes(path))) {
    const bytes = transform(readFileSync(join(siteDir, sitePath)), sitePath);
    const target = hashedName(sitePath, bytes);
    mkdirSync(dirname(join(outDir, target)), { recursive: true });
    writeFileSync(join(outDir, target), bytes);
    served.set(sitePath, target);
  }

  const result = await esbuild.build({
    absWorkingDir: siteDir,
    entryPoints: [...stableEntries, ...pageEntries],
    outdir: join(outDir, BUNDLE_DIR),
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    // 'external', and the link added below: esbuild's [hash] then covers only the code, not the source map's
    // paths to the temporary tree the site was assembled in.
    sourcemap: 'external',
    sourcesContent: true,
    external: ['node:*'], // residual-lab.js reads files itself under node only
    metafile: true,
    logLevel: 'silent',
    plugins: [uplotLazyIntlPlugin(), assetUrlPlugin({ siteDir, served })],
  });

  // Each stable entry re-exports its bundle; the pages load the page-only entries under their hashed names.
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    const sitePath = meta.entryPoint;
    if (!stableEntries.includes(sitePath) && !pageEntries.includes(sitePath)) continue; // chunks, and modules imported dynamically
    const outputPath = toPosix(relative(outDir, join(siteDir, output))); // metafile paths are relative to absWorkingDir
    if (pageEntries.includes(sitePath)) {
      served.set(sitePath, outputPath);
      continue;
    }
    const relativePath = posix.relative(posix.dirname(sitePath), outputPath);
    const specifier = relativePath.startsWith('.') ? relativePath : `./${relativePath}`;
    const lines = [
      `// ${sitePath}: a stable name for the hashed bundle it re-exports (scripts/lib/site-assets.mjs).`,
      `export * from '${specifier}';`,
    ];
    if (meta.exports.includes('default')) lines.push(`export { default } from '${specifier}';`);
    mkdirSync(dirname(join(outDir, sitePath)), { recursive: true });
    writeFileSync(join(outDir, sitePath), `${lines.join('\n')}\n`);
  }
  rewriteSourceMaps(join(outDir, BUNDLE_DIR), siteDir);
  linkSourceMaps(join(outDir, BUNDLE_DIR));

  for (const path of copiedAsIs) copyFileSync(join(siteDir, path), join(outDir, path));
  for (const page of siteFiles.filter((p) => p.endsWith('.html'))) {
    mkdirSync(dirname(join(outDir, page)), { recursive: true });
    writeFileSync(join(outDir, page), rewritePage(readFileSync(join(siteDir, page), 'utf8'), page, served));
  }
  const manifest = Object.fromEntries([...served].sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(join(outDir, 'asset-manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  precompress(outDir);
  return manifest;
}

function linkSourceMaps(bundleDir) {
  for (const name of readdirSync(bundleDir).filter((n) => n.endsWith('.js'))) {
    if (!existsSync(join(bundleDir, `${name}.map`))) continue;
    writeFileSync(
      join(bundleDir, name),
      `${readFileSync(join(bundleDir, name), 'utf8')}//# sourceMappingURL=${name}.map\n`,
    );
  }
}

/** Source maps name the sources by their site path (lib/kernels.js), not by the temporary tree they were built from. */
function rewriteSourceMaps(bundleDir, siteDir) {
  for (const name of readdirSync(bundleDir).filter((n) => n.endsWith('.map'))) {
    const file = join(bundleDir, name);
    const map = JSON.parse(readFileSync(file, 'utf8'));
    map.sources = map.sources.map((source) => {
      const sitePath = toPosix(relative(siteDir, join(bundleDir, source)));
      return sitePath.startsWith('..') ? source : `../${sitePath}`;
    });
    writeFileSync(file, JSON.stringify(map));
  }
}
