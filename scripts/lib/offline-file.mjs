// The single-file chapter in two parts: each language's page with a mark where its script goes, and the script,
// which is the same for every language (the widgets, both languages' strings, the WASM and the toys as base64:
// 4 MB). The build writes both parts and the whole files (scripts/offline.mjs); the npm package ships only the
// parts, once, and `npx residual-lab --offline <lang>` puts a file together with node alone (no esbuild at run time).
// The page's Content-Security-Policy already names the script's hash, so putting it in place changes nothing else.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const OFFLINE_CODE_MARK = '/*residual-lab:offline-code*/';
export const OFFLINE_CODE_FILE = 'page-code.js';
export const offlineName = (code) => `residual-lab-${code}.html`;

/** The whole offline page from its page part and the script. */
export function assembleOffline(page, code) {
  const parts = page.split(OFFLINE_CODE_MARK);
  if (parts.length !== 2) throw new Error(`the offline page should hold ${OFFLINE_CODE_MARK} once`);
  return parts[0] + code + parts[1];
}

/** The offline page of language `code` from the parts under `partsDir` (dist/offline/parts), or null if it has none. */
export function readOffline(partsDir, code) {
  let page;
  try {
    page = readFileSync(join(partsDir, offlineName(code)), 'utf8');
  } catch {
    return null;
  }
  return assembleOffline(page, readFileSync(join(partsDir, OFFLINE_CODE_FILE), 'utf8'));
}
