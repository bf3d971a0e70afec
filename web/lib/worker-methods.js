// What the lab worker (lab-worker.js) may run: every function of the lab object by its dotted name, and the
// objects that cannot be copied to the page (a decoder, a warmup run), which stay in the worker behind an id.
// Names are looked up as own properties of these frozen tables, never along a prototype chain, so
// 'constructor', '__proto__' or 'toString' are unknown methods. tests/js/worker-methods.test.mjs checks that
// the tables list every function the lab object and its objects expose.

/**
 * progressArg: the index of the argument that takes `{ onProgress }` (the API's trailing callbacks object);
 * returns: the handle kind of a result that stays in the worker.
 */
export const METHODS = Object.freeze({
  rmsNorm: {},
  layerNorm: {},
  rmsNormBackward: {},
  layerNormBackward: {},
  rmsNormSteps: {},
  layerNormSteps: {},
  dynamicTanh: {},
  dynamicTanhBackward: {},
  dynamicTanhSteps: {},
  softcap: {},
  softcapBackward: {},
  softmax: {},
  parseVector: {},
  describe: {},
  createDecoder: { returns: 'decoder' },
  liveDecoders: {},
  wasmHeapBytes: {},
  memoryBudget: {},
  inspectConfig: {},
  openCheckpoint: { returns: 'checkpoint' },
  fetchCheckpoint: { progressArg: 1 },
  storedCheckpoints: {},
  deleteStoredCheckpoint: {},
  'experiments.gradientDecay': {},
  'experiments.initGradients': {},
  'experiments.residualGrowth': { progressArg: 1 },
  'experiments.warmup': { progressArg: 1 },
  'experiments.createWarmupRun': { returns: 'warmupRun' },
  'experiments.qkLogitGrowth': {},
  'experiments.initScaling': {},
});

/**
 * methods: callable through the proxy (besides dispose); progressArgs: method -> the index of its options argument,
 * whose onProgress the worker calls back across and whose signal the page keeps; data: plain fields copied once when the object is
 * made; state: fields that may change with every call, sent back after each one; freshResults: every array its
 * methods return is a new copy, so it may be transferred (a warmup run returns its kept final result again).
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
      'experiment',
      'normWeights',
      'tokenize',
      'tokenizerJson',
      'cost',
      'residency',
      'shardRows',
    ]),
    progressArgs: Object.freeze({ run: 1, gradients: 1, experiment: 2 }),
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

const own = (table, key) => typeof key === 'string' && Object.prototype.hasOwnProperty.call(table, key);

/** The table entry of `method`, or undefined when the worker does not run it. */
export function methodEntry(method) {
  return own(METHODS, method) ? METHODS[method] : undefined;
}

/** The lab function named by a METHODS key, bound to its namespace ('experiments.warmup' -> lab.experiments). */
export function resolveMethod(lab, method) {
  const parts = method.split('.');
  let owner = lab;
  for (const part of parts.slice(0, -1)) owner = own(owner, part) ? owner[part] : undefined;
  const fn = owner && own(owner, parts.at(-1)) ? owner[parts.at(-1)] : undefined;
  return typeof fn === 'function' ? fn.bind(owner) : undefined;
}

/** Whether `method` is one a handle of `kind` answers (dispose included). */
export function isHandleMethod(kind, method) {
  return method === 'dispose' || (own(HANDLE_KINDS, kind) && HANDLE_KINDS[kind].methods.includes(method));
}

/** The ArrayBuffers behind the typed arrays in `value` (each once), to transfer rather than copy. */
export function transferables(value, found = new Set()) {
  if (ArrayBuffer.isView(value)) found.add(value.buffer);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) transferables(v, found);
  return [...found];
}

/** The fields of an error that cross to the page: name, message, code and, for typed text, position. */
export function errorFields(error) {
  const fields = {
    name: error?.name ?? 'Error',
    message: error?.message ?? String(error),
    code: error?.code ?? 'internal_error',
  };
  if (error?.position !== undefined) fields.position = error.position;
  return fields;
}
