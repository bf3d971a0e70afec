// The lab's API in one list: every function of the object load() resolves to, by its dotted name
// ('experiments.warmup' is lab.experiments.warmup), with the part that provides it and what the lab worker needs to
// know of it. residual-lab.js assembles the lab from this list; worker-methods.js's METHODS is it without the parts;
// the worker's proxies follow HANDLE_KINDS; types/worker-client.d.ts is generated from both
// (scripts/api-types.mjs). No imports: the page, the worker and the scripts read it alike.

/**
 * part: the object residual-lab.js takes the function from (createKernelApi's, createDecoderApi's, ...);
 * progressArg: the index of the argument that takes `{ onProgress }` (the API's trailing callbacks object);
 * returns: the handle kind of a result that stays in the worker.
 */
const row = (part, worker = {}) => Object.freeze({ part, ...worker });

export const LAB_API = Object.freeze({
  rmsNorm: row('kernels'),
  layerNorm: row('kernels'),
  rmsNormBackward: row('kernels'),
  layerNormBackward: row('kernels'),
  rmsNormSteps: row('kernels'),
  layerNormSteps: row('kernels'),
  dynamicTanh: row('kernels'),
  dynamicTanhBackward: row('kernels'),
  dynamicTanhSteps: row('kernels'),
  softcap: row('kernels'),
  softcapBackward: row('kernels'),
  softmax: row('kernels'),
  parseVector: row('kernels'),
  describe: row('tables'),
  createDecoder: row('decoder', { returns: 'decoder' }),
  liveDecoders: row('decoder'),
  wasmHeapBytes: row('decoder'),
  memoryBudget: row('decoder'),
  inspectConfig: row('config'),
  openCheckpoint: row('checkpoint', { returns: 'checkpoint' }),
  fetchCheckpoint: row('hub', { progressArg: 1 }),
  storedCheckpoints: row('hub'),
  deleteStoredCheckpoint: row('hub'),
  'experiments.gradientDecay': row('experiments'),
  'experiments.initGradients': row('experiments'),
  'experiments.residualGrowth': row('experiments', { progressArg: 1 }),
  'experiments.warmup': row('experiments', { progressArg: 1 }),
  'experiments.createWarmupRun': row('experiments', { returns: 'warmupRun' }),
  'experiments.qkLogitGrowth': row('experiments'),
  'experiments.initScaling': row('experiments'),
});

/**
 * The objects that cannot be copied to the page, which stay in the worker behind an id. methods: callable through
 * the proxy (besides dispose); progressArgs: method -> the index of its options argument, whose onProgress the
 * worker calls back across and whose signal the page keeps; data: plain fields copied once when the object is
 * made; state: fields that may change with every call, sent back after each one; freshResults: every array its
 * methods return is a new copy, so it may be transferred (a warmup run returns its kept final result again);
 * undeclared: methods the proxy carries that the declarations leave out (shardRows: the split runs' coordinator's,
 * not the reader's); givenArgs: methods whose callers give their arrays away, transferred to the worker, not copied.
 */
export const HANDLE_KINDS = Object.freeze({
  decoder: Object.freeze({
    methods: Object.freeze([
      'forward',
      'backward',
      'logitLens',
      'params',
      'grads',
      'paramLayout',
      'setParams',
      'trainStep',
      'resetTraining',
    ]),
    data: Object.freeze(['config', 'numParams']),
    state: Object.freeze([]),
    freshResults: true,
  }),
  checkpoint: Object.freeze({
    methods: Object.freeze([
      'run',
      'gradients',
      'claim',
      'normWeights',
      'tokenize',
      'tokenizerJson',
      'cost',
      'residency',
      'shardRows',
    ]),
    undeclared: Object.freeze(['shardRows']),
    givenArgs: Object.freeze(['shardRows']),
    progressArgs: Object.freeze({ run: 1, gradients: 1, claim: 2 }),
    data: Object.freeze(['architecture', 'modelType', 'config', 'tensors', 'format', 'tokenizer', 'forward']),
    state: Object.freeze(['workers']),
    freshResults: true,
  }),
  warmupRun: Object.freeze({
    methods: Object.freeze(['advance', 'result']),
    data: Object.freeze(['options']),
    state: Object.freeze(['done']),
    freshResults: false,
  }),
});

/** The namespace ('' for the lab itself) and the key of a dotted name. */
export function splitName(name) {
  const at = name.lastIndexOf('.');
  return at < 0 ? ['', name] : [name.slice(0, at), name.slice(at + 1)];
}

/**
 * The lab object: `fields` and, for each row of `api`, the function of that name from `parts[row.part]`, each
 * namespace a frozen object of its own. A part's function the list does not name, or a listed one its part lacks,
 * throws: the list and the lab cannot disagree.
 */
export function assembleLab(api, parts, fields = {}) {
  const listed = new Set();
  const lab = { ...fields };
  for (const [name, { part }] of Object.entries(api)) {
    const [namespace, key] = splitName(name);
    const fn = Object.hasOwn(parts, part) && Object.hasOwn(parts[part], key) ? parts[part][key] : undefined;
    if (typeof fn !== 'function')
      throw new Error(`Residual Lab: the API lists ${name}, which its part "${part}" lacks`);
    listed.add(`${part}:${key}`);
    if (!namespace) lab[key] = fn;
    else (lab[namespace] ??= {})[key] = fn;
  }
  for (const [part, functions] of Object.entries(parts))
    for (const [key, value] of Object.entries(functions))
      if (typeof value === 'function' && !listed.has(`${part}:${key}`))
        throw new Error(`Residual Lab: the part "${part}" has ${key}, which the API does not list`);
  for (const [key, value] of Object.entries(lab))
    if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
      lab[key] = Object.freeze(value);
  return Object.freeze(lab);
}
