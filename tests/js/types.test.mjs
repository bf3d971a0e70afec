// The type declarations (types/*.d.ts) against TypeScript and against the built lab: tsc accepts the example that
// uses every part of the API (and refuses each line marked @ts-expect-error), and the members the declarations
// name are the ones the objects really have, so the declarations cannot drift from the code unnoticed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from '../../dist/lib/residual-lab.js';
import { HANDLE_KINDS, METHODS } from '../../web/lib/worker-methods.js';
import { FALLBACK_LANGUAGE, LANGUAGES, stringsOf } from '../../web/languages.js';
import { WORKER_TYPES, renderWorkerTypes } from '../../scripts/api-types.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const declarations = (name) =>
  readFileSync(new URL(`../../types/${name}`, import.meta.url), 'utf8')
    .replace(/\/\*[^]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');
const labTypes = declarations('residual-lab.d.ts');
const workerTypes = declarations('worker-client.d.ts');

/** The member names of `export interface name { ... }` in `text` (the declarations' own simple shapes). */
function interfaceMembers(text, name, { requiredOnly = false } = {}) {
  const start = text.search(new RegExp(`export interface ${name}\\b[^{]*\\{`));
  assert.ok(start >= 0, `no interface ${name}`);
  let i = text.indexOf('{', start) + 1,
    depth = 0,
    member = '';
  const members = [];
  const flush = () => {
    const m = member.trim().match(/^(?:readonly\s+)?([A-Za-z_$][\w$]*)(\??)\s*[(:<]/);
    if (m && !(requiredOnly && m[2])) members.push(m[1]);
    member = '';
  };
  for (; depth >= 0; i++) {
    const c = text[i];
    if ('{(<['.includes(c)) depth++;
    else if ('})>]'.includes(c) && text[i - 1] !== '=') depth--;
    if (depth === 0 && (c === ';' || c === '\n')) flush();
    else if (depth >= 0) member += c;
  }
  flush();
  return [...new Set(members)].sort();
}

const keys = (object) => Object.keys(object).sort();
/** `actual` has every required member of interface `name` and no member it does not declare. */
function sameNames(actual, name) {
  const all = interfaceMembers(labTypes, name),
    required = interfaceMembers(labTypes, name, { requiredOnly: true });
  for (const key of keys(actual)) assert.ok(all.includes(key), `${name} does not declare ${key}`);
  for (const key of required)
    assert.ok(Object.hasOwn(actual, key) || key in actual, `${name}.${key} is declared but missing`);
}

test('tsc --strict accepts the example and refuses each line marked @ts-expect-error', () => {
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tests/types/tsconfig.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});

test('tsc reports an error the declarations must catch (the check can fail)', () => {
  const tsc = spawnSync(
    process.execPath,
    [
      'node_modules/typescript/bin/tsc',
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--types',
      '',
      'tests/types/wrong.ts',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  assert.notEqual(tsc.status, 0);
  assert.match(
    tsc.stdout,
    /wrong\.ts\(5,\d+\): error TS\d+: Object literal may only specify known properties, .*'nLayer' does not exist in type 'DecoderConfig'/,
  );
});

test('the lab, its experiments, a decoder and a warmup run have exactly the members declared', async () => {
  const lab = await load();
  assert.deepEqual(
    keys(lab),
    [...interfaceMembers(labTypes, 'ResidualLab'), ...interfaceMembers(labTypes, 'Kernels')].sort(),
  );
  sameNames(lab.experiments, 'Experiments');
  const model = lab.createDecoder({ nLayers: 1, dModel: 8, nHeads: 2, contextLength: 4 });
  sameNames(model, 'Decoder');
  const forward = model.forward([1, 2, 3], [2, 3, 4], { logitLens: 2 });
  sameNames(forward, 'ForwardResult');
  sameNames(forward.stats, 'ForwardStats');
  sameNames(forward.logitLens, 'LogitLens');
  sameNames(model.backward(), 'BackwardResult');
  sameNames(model.trainStep({ lr: 1e-3 }), 'TrainStepResult');
  sameNames(model.paramLayout()[0], 'ParamTensor');
  model.dispose();
  sameNames(lab.memoryBudget(), 'MemoryBudget');
  const run = lab.experiments.createWarmupRun({
    steps: 10,
    warmupSteps: 5,
    nLayers: 1,
    dModel: 8,
    nHeads: 2,
    contextLength: 8,
  });
  sameNames(run, 'WarmupRun');
  run.advance(10);
  sameNames(run.result(), 'WarmupResult');
  sameNames(run.result().runs[0], 'WarmupRunCurves');
  sameNames(lab.describe(), 'OptionTables');
});

test('the kernels and experiments return the fields declared', async () => {
  const lab = await load();
  const x = [2, -1, 3, 0];
  sameNames(lab.rmsNormSteps(x), 'RmsNormSteps');
  sameNames(lab.layerNormSteps(x), 'LayerNormSteps');
  sameNames(lab.dynamicTanhSteps(x), 'DynamicTanhSteps');
  sameNames(lab.experiments.gradientDecay({ nLayers: 2, width: 4 }), 'GradientDecayResult');
  sameNames(lab.experiments.qkLogitGrowth({ gains: [1] }), 'QkLogitGrowthResult');
  sameNames(lab.experiments.initScaling({ depths: [1] }), 'InitScalingResult');
  sameNames(
    lab.experiments.initGradients({ depths: [2], nLayers: 2, dModel: 8, nHeads: 2, contextLength: 8 }),
    'InitGradientsResult',
  );
  sameNames(
    lab.experiments.residualGrowth({ nLayers: 1, dModel: 8, nHeads: 2, contextLength: 8 }),
    'ResidualGrowthResult',
  );
  const inspected = lab.inspectConfig(
    JSON.stringify({
      model_type: 'llama',
      hidden_size: 64,
      num_hidden_layers: 2,
      vocab_size: 10,
      intermediate_size: 128,
      num_attention_heads: 4,
    }),
  );
  sameNames(inspected, 'ConfigInspection');
  sameNames(inspected.norms[0], 'NormCount');
});

test("the worker client declares the methods the worker runs and the proxies' members", () => {
  const quotedIn = (text) => [...text.matchAll(/'([^']+)'/g)].map((m) => m[1]);
  const methods = workerTypes.match(
    /export type WorkerMethods =\n\s*Pick<Kernels, ([^>]*)>\n\s*& Pick<ResidualLab, ([^>]*)>\n\s*& \{ \[K in ([^\]]*) as `experiments\.\$\{K\}`\]/,
  );
  assert.ok(methods, 'WorkerMethods: the kernels, the rest of the lab, the experiments');
  assert.deepEqual(quotedIn(methods[1]).sort(), interfaceMembers(labTypes, 'Kernels'));
  assert.deepEqual(quotedIn(methods[3]).sort(), interfaceMembers(labTypes, 'Experiments'));
  const declared = [
    ...interfaceMembers(labTypes, 'Kernels'),
    ...quotedIn(methods[2]),
    ...interfaceMembers(labTypes, 'Experiments').map((k) => `experiments.${k}`),
  ];
  assert.deepEqual(declared.sort(), keys(METHODS));
  /** A proxy's declared fields and methods: Pick<T, fields> & { [K in methods]: Async<T[K]> } & { dispose }. */
  const proxied = (name) => {
    const m = workerTypes.match(
      new RegExp(
        `export type ${name} = Pick<\\w+, ([^>]+)>\\n\\s*& \\{ \\[K in ([^\\]]+)\\]: Async<\\w+\\[K\\]> \\}\\n\\s*& \\{ dispose\\(\\): Promise<void> \\};`,
      ),
    );
    assert.ok(m, name);
    return { fields: quotedIn(m[1]).sort(), methods: quotedIn(m[2]).sort() };
  };
  const decoder = proxied('DecoderProxy');
  assert.deepEqual(decoder.methods, [...HANDLE_KINDS.decoder.methods].sort());
  assert.deepEqual(decoder.fields, [...HANDLE_KINDS.decoder.data].sort());
  const run = proxied('WarmupRunProxy');
  assert.deepEqual(run.fields, [...HANDLE_KINDS.warmupRun.data, ...HANDLE_KINDS.warmupRun.state].sort());
  assert.deepEqual(run.methods, ['advance', 'result']);
  assert.deepEqual([...HANDLE_KINDS.warmupRun.methods].sort(), ['advance', 'result']);
  // a checkpoint in the worker: its data and state fields, and every method but the coordinator's shardRows
  const checkpoint = proxied('CheckpointProxy');
  assert.deepEqual(checkpoint.fields, [...HANDLE_KINDS.checkpoint.data, ...HANDLE_KINDS.checkpoint.state].sort());
  assert.deepEqual(checkpoint.methods, HANDLE_KINDS.checkpoint.methods.filter((m) => m !== 'shardRows').sort());
});

test('types/worker-client.d.ts is what scripts/api-types.mjs renders from web/lib/api.js', () => {
  assert.equal(
    readFileSync(new URL(`../../${WORKER_TYPES}`, import.meta.url), 'utf8'),
    renderWorkerTypes(),
    'run node scripts/api-types.mjs --write',
  );
});

test('every error code the JS throws is in the declared ErrorCode', () => {
  const declared = new Set(
    [...labTypes.match(/export type ErrorCode =([^;]*);/)[1].matchAll(/'([a-z_]+)'/g)].map((m) => m[1]),
  );
  const thrown = new Set();
  for (const file of [
    'kernels.js',
    'kernel-inputs.js',
    'kernel-scratch.js',
    'decoder.js',
    'experiments.js',
    'options.js',
    'inspect-config.js',
    'parse-json.js',
    'worker-client.js',
    'lab-worker.js',
    'residual-lab.js',
    'wasm-module.js',
    ...['checkpoint', 'hub'].flatMap((folder) =>
      readdirSync(new URL(`../../web/lib/${folder}/`, import.meta.url)).map((f) => `${folder}/${f}`),
    ),
  ]) {
    const source = readFileSync(new URL(`../../web/lib/${file}`, import.meta.url), 'utf8');
    for (const m of source.matchAll(/code(?: =|:) '([a-z_]+)'|fail\([^;]*?, '([a-z_]+)'\)/g)) thrown.add(m[1] ?? m[2]);
  }
  thrown.delete('missing_field'); // inspect-config.js's own, caught inside it (a 'cannot_count' note)
  for (const code of thrown) assert.ok(declared.has(code), `${code} is thrown but not declared`);
});

test("every declared ErrorCode has the reader's phrase in every language (the API's English message is the detail)", () => {
  const declared = [...labTypes.match(/export type ErrorCode =([^;]*);/)[1].matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
  assert.ok(declared.includes('safetensors_truncated') && declared.includes('worker_failed'), declared.join());
  const fallback = stringsOf(FALLBACK_LANGUAGE, 'common').errors;
  for (const { code: lang } of LANGUAGES) {
    const errors = stringsOf(lang, 'common').errors;
    for (const code of declared) {
      const phrase = errors[code];
      assert.ok(
        typeof phrase === 'function' || (typeof phrase === 'string' && phrase.trim().length > 1),
        `${lang}: ${code}`,
      );
      if (lang !== FALLBACK_LANGUAGE) assert.notEqual(String(phrase), String(fallback[code]), `${lang}: ${code}`);
    }
  }
});

test('docs/api.md shows only declared calls, and every declared member of the lab, its experiments and a decoder', () => {
  const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const code = [...doc.matchAll(/```js\n([^]*?)```/g)].map((m) => m[1]).join('\n');
  const lab = [...interfaceMembers(labTypes, 'ResidualLab'), ...interfaceMembers(labTypes, 'Kernels')];
  const experiments = interfaceMembers(labTypes, 'Experiments');
  const decoder = interfaceMembers(labTypes, 'Decoder');
  const shown = (pattern) => [...new Set([...code.matchAll(pattern)].map((m) => m[1]))];
  for (const name of shown(/(?<![\w-])lab\.(\w+)/g)) assert.ok(lab.includes(name), `lab.${name} is not declared`);
  for (const name of shown(/(?<![\w-])lab\.experiments\.(\w+)/g))
    assert.ok(experiments.includes(name), `lab.experiments.${name} is not declared`);
  for (const name of shown(/(?<![\w-])model\.(\w+)/g))
    assert.ok(decoder.includes(name), `model.${name} is not declared`);
  for (const name of shown(/worker\.call\('([\w.]+)'/g))
    assert.ok(Object.hasOwn(METHODS, name), `worker.call('${name}') is not a method`);
  for (const name of [...lab, ...experiments, ...decoder])
    assert.match(doc, new RegExp(`\\b${name}\\b`), `docs/api.md never mentions ${name}`);
});
