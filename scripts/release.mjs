#!/usr/bin/env node
// `npm run release`: builds the lab and writes the release assets into release/:
//   residual-lab-site-<version>.zip    the static site, its files at the top (GitHub Pages, Netlify, a school's web
//                                      server, an LMS that takes a folder); it works from any subfolder
//   residual-lab-<lang>.html           the single-file chapter of each language (opens from disk)
//   residual-lab-<version>.tgz         the npm package (what `npm publish` sends)
//   SHA256SUMS                         `sha256sum -c SHA256SUMS` checks the others
// The zip is written by fflate (a small, dependency-free zip library): node's zlib compresses but writes no zip
// archive, and the system `zip` is not on a fresh Debian image. Entries carry one fixed date, so the same dist/
// gives the same bytes.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { zipSync } from 'fflate';
import { LANGUAGES } from '../web/languages.js';
import { build } from './build.mjs';
import { offlineName } from './lib/offline-file.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

// Left out of the site: the precompressed siblings (only scripts/serve.mjs sends them; static hosts compress
// themselves) and the offline chapter's parts (the package's way of holding it; the whole files stay).
const leftOut = (path) => /\.(gz|br)$/.test(path) || path.startsWith('offline/parts/');
// Already compressed: stored, not deflated again.
const STORED = /\.(png|woff2?)$/;
const FIXED_DATE = new Date('2000-01-01T00:00:00Z');

/** The site's files (posix paths under `siteDir`), as the zip holds them. */
export function siteFiles(siteDir = dist) {
  return readdirSync(siteDir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      relative(siteDir, join(entry.parentPath ?? entry.path, entry.name))
        .split(sep)
        .join('/'),
    )
    .filter((path) => !leftOut(path))
    .sort();
}

/** The static site as zip bytes. */
export function zipSite(siteDir = dist) {
  const entries = {};
  for (const path of siteFiles(siteDir))
    entries[path] = [readFileSync(join(siteDir, path)), { level: STORED.test(path) ? 0 : 9, mtime: FIXED_DATE }];
  return zipSync(entries);
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

export async function release({ outDir = join(root, 'release'), skipBuild = false } = {}) {
  if (!skipBuild) await build();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const written = [];
  const zipName = `residual-lab-site-${version}.zip`;
  writeFileSync(join(outDir, zipName), zipSite());
  written.push(zipName);
  for (const { code } of LANGUAGES) {
    copyFileSync(join(dist, 'offline', offlineName(code)), join(outDir, offlineName(code)));
    written.push(offlineName(code));
  }
  // dist/ was just built: --ignore-scripts skips the prepack build that `npm pack` would run again.
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', outDir], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
  written.push(packed.filename);
  const sums = written.map((name) => `${sha256(readFileSync(join(outDir, name)))}  ${name}\n`).join('');
  writeFileSync(join(outDir, 'SHA256SUMS'), sums);
  return { outDir, files: [...written, 'SHA256SUMS'], packed };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const { outDir, files, packed } = await release({ skipBuild: process.argv.includes('--no-build') });
    console.log(`residual-lab: release assets in ${outDir}:\n  ${files.join('\n  ')}`);
    console.log(
      `the package: ${(packed.size / 1e6).toFixed(2)} MB packed, ${(packed.unpackedSize / 1e6).toFixed(2)} MB unpacked, ${packed.entryCount} files`,
    );
  } catch (err) {
    console.error(`residual-lab: release failed: ${err.message}`);
    process.exit(1);
  }
}
