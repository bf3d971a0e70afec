// The C++ tier table, RL_TIERS in CMakeLists.txt, as the tests read it: bottom to top, each tier with the tiers it
// links ("core kernels:core checkpoint:kernels ..."; several links are joined by commas).
import { readFileSync } from 'node:fs';

const cmake = readFileSync(new URL('../../CMakeLists.txt', import.meta.url), 'utf8');

/** [{ name, links }] in the table's order. */
export const TIERS = cmake
  .match(/^set\(RL_TIERS ([^)]*)\)/m)[1]
  .trim()
  .split(/\s+/)
  .map((entry) => {
    const [name, links = ''] = entry.split(':');
    return { name, links: links ? links.split(',') : [] };
  });
