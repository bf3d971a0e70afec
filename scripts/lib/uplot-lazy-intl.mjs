// uPlot builds an Intl.NumberFormat and reads the time zone when its module is evaluated. That is the page's
// first use of Intl, and ICU's start-up makes it one main-thread task of 45-60 ms on a two-core machine
// (docs/benchmarks.md), for formatters the lab never calls: it formats every axis and value itself and has no
// time axis. This esbuild plugin makes the two lazy in the bundle, so ICU starts, if ever, when first used. The
// replacements must all match, so a new uPlot that changes these lines fails the build rather than loading
// ICU again unnoticed.
import { readFileSync } from 'node:fs';

const REPLACEMENTS = [
  [
    "const numFormatter = new Intl.NumberFormat(domEnv ? nav.language : 'en-US');",
    "let numFormatterMade; const numFormatter = { format: (value) => (numFormatterMade ??= new Intl.NumberFormat(domEnv ? nav.language : 'en-US')).format(value) };",
  ],
  [
    'const localTz = new Intl.DateTimeFormat().resolvedOptions().timeZone;',
    'let localTzRead; const localTz = () => (localTzRead ??= new Intl.DateTimeFormat().resolvedOptions().timeZone);',
  ],
  ['else if (tz == localTz)', 'else if (tz == localTz())'],
];

/** The source of uPlot's ES module with its module-level Intl objects made lazy; throws if a line has changed. */
export function lazyIntlUplot(source, file = 'uPlot.esm.js') {
  let out = source;
  for (const [from, to] of REPLACEMENTS) {
    const count = out.split(from).length - 1;
    if (count !== 1) throw new Error(`${file}: expected "${from}" once, found it ${count} times (a new uPlot?)`);
    out = out.replace(from, to);
  }
  return out;
}

export const uplotLazyIntlPlugin = () => ({
  name: 'residual-lab-uplot-lazy-intl',
  setup(build) {
    build.onLoad({ filter: /[\\/]uPlot\.esm\.js$/ }, (args) => ({
      contents: lazyIntlUplot(readFileSync(args.path, 'utf8'), args.path),
      loader: 'js',
    }));
  },
});
