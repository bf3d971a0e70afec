// No module of web/ reaches itself again through its imports: static imports, re-exports and import('literal')
// alike (a lazy import still runs the importer's cycle when it resolves). The graph is esbuild's (its metafile
// records every import with its kind), read from every .js file of web/ as an entry point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { widgetModulesSource } from '../../scripts/pages.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The import graph of `entryPoints` (paths relative to root): path -> [{ path, kind }]. */
async function importGraph(entryPoints) {
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints,
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    splitting: true,
    outdir: 'out',
    logLevel: 'silent',
    packages: 'external', // only the project's own modules are nodes: packages are leaves
    // uPlot is a vendored library, a leaf like the packages
    external: ['node:*', '../../vendor/*'],
    plugins: [
      {
        // components/widget-modules.js, which the site build writes, read from the function that writes it
        name: 'generated-widget-modules',
        setup(b) {
          b.onResolve({ filter: /\/widget-modules\.js$/ }, () => ({
            path: 'web/components/widget-modules.js',
            namespace: 'generated',
          }));
          b.onLoad({ filter: /.*/, namespace: 'generated' }, () => ({
            contents: widgetModulesSource(),
            resolveDir: `${root}/web/components`,
            loader: 'js',
          }));
        },
      },
    ],
    loader: { '.css': 'empty' },
  });
  return new Map(
    Object.entries(metafile.inputs).map(([path, { imports }]) => [
      path,
      imports.filter((i) => !i.external && metafile.inputs[i.path]),
    ]),
  );
}

/** Every strongly connected component of more than one module, or of one that imports itself (Tarjan). */
function cycles(graph) {
  let next = 0;
  const index = new Map(),
    low = new Map(),
    stack = [],
    onStack = new Set(),
    found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const { path: w } of graph.get(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v).some((i) => i.path === v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const webModules = () =>
  readdirSync(`${root}/web`, { recursive: true })
    .map((p) => `web/${p.split('\\').join('/')}`)
    .filter((p) => p.endsWith('.js'));

test('no import cycle in web/, dynamic imports included', async () => {
  const graph = await importGraph(webModules());
  assert.ok(graph.size >= 100, `the graph holds web/'s modules (${graph.size})`);
  const lazy = [...graph.values()].flat().filter((i) => i.kind === 'dynamic-import');
  assert.ok(lazy.length >= 5, 'the dynamic imports are edges of the graph');
  assert.deepEqual(cycles(graph), []);
});

test('the cycle check finds a cycle closed by a dynamic import', () => {
  const graph = new Map([
    ['a.js', [{ path: 'b.js', kind: 'import-statement' }]],
    ['b.js', [{ path: 'c.js', kind: 'dynamic-import' }]],
    ['c.js', [{ path: 'a.js', kind: 'import-statement' }]],
    ['d.js', [{ path: 'a.js', kind: 'import-statement' }]],
  ]);
  assert.deepEqual(cycles(graph), [['a.js', 'b.js', 'c.js']]);
  assert.deepEqual(cycles(new Map([['e.js', [{ path: 'e.js', kind: 'import-statement' }]]])), [['e.js']]);
});
