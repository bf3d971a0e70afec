// The toy decoder as a JS object (issue 4): `createDecoderApi(Module).createDecoder(config)`.
// Every config key has a default; types are checked here, ranges and sizes in C++ (wasm/src/decoder/config.cpp),
// whose messages come back through the bindings (wasm/bindings/decoder_bindings.cpp) and are thrown as Errors.
// Tokens and parameters are written straight into model-owned WASM buffers; every array returned is a copy.
import { ResidualLabError } from './errors.js';

const ENUMS = {
  mlp: ['gelu', 'swiglu'],
  norm: ['layernorm', 'rmsnorm', 'rmsnorm_gemma', 'dyt', 'none'],
  placement: ['pre', 'post', 'sandwich', 'olmo2', 'deepnorm'],
  scheme: ['normal', 'xavier'],
  decay: ['constant', 'cosine'],
};

export const DECODER_DEFAULTS = Object.freeze({
  vocabSize: 64, dModel: 64, nHeads: 4, dFF: null /* 4 * dModel */, nLayers: 4, contextLength: 64,
  mlp: 'gelu', norm: 'layernorm', placement: 'pre', residual: true, qkNorm: false,
  attnSoftcap: null, finalSoftcap: null, posEmbed: true, eps: 1e-5,
  init: Object.freeze({ scheme: 'normal', std: 0.02, residualScaling: false, embedScale: 1, zeroQK: false, qkGain: 1, seed: 0 }),
});

export const TRAIN_DEFAULTS = Object.freeze({
  lr: 1e-3, warmupSteps: 0, decay: 'constant', totalSteps: 1000, finalRatio: 0.1, clipNorm: 1.0,
  weightDecay: 0, beta1: 0.9, beta2: 0.999, adamEps: 1e-8, seqLen: null /* the model's context length */, dataSeed: 0,
});

const fail = (message, code = 'invalid_config') => { throw new ResidualLabError(message, { code }); };
const show = (v) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

// Copies `given` over `defaults`, refusing unknown keys and values of the wrong type.
function withDefaults(given, defaults, where, check) {
  if (given === undefined || given === null) given = {};
  if (typeof given !== 'object' || Array.isArray(given)) fail(`${where} must be an object`);
  for (const key of Object.keys(given)) {
    if (!(key in defaults)) fail(`unknown ${where} key "${key}" (known: ${Object.keys(defaults).join(', ')})`);
  }
  const out = {};
  for (const [key, fallback] of Object.entries(defaults)) out[key] = check(key, given[key] === undefined ? fallback : given[key]);
  return out;
}

function checkValue(where, key, value, fallback) {
  const name = where ? `${where}.${key}` : key;
  const enumKey = key === 'scheme' ? 'scheme' : key;
  if (ENUMS[enumKey] && typeof fallback === 'string') {
    if (!ENUMS[enumKey].includes(value)) fail(`${name} must be one of ${ENUMS[enumKey].join(', ')} (got ${show(value)})`);
    return value;
  }
  if (typeof fallback === 'boolean') {
    if (typeof value !== 'boolean') fail(`${name} must be true or false (got ${show(value)})`);
    return value;
  }
  if (typeof value !== 'number' || Number.isNaN(value)) fail(`${name} must be a number (got ${show(value)})`);
  return value;
}

const INTEGER_KEYS = new Set(['vocabSize', 'dModel', 'nHeads', 'nLayers', 'contextLength', 'warmupSteps', 'totalSteps']);
const INT32_MAX = 2147483647;
function checkInteger(key, v) {
  if (!Number.isInteger(v)) fail(`${key} must be an integer (got ${show(v)})`);
  if (Math.abs(v) > INT32_MAX) fail(`${key} is out of range (got ${show(v)})`);
  return v;
}

function normalizeConfig(config) {
  const out = withDefaults(config, DECODER_DEFAULTS, 'config', (key, value) => {
    if (key === 'init') return withDefaults(value, DECODER_DEFAULTS.init, 'init', (k, v) => checkValue('init', k, v, DECODER_DEFAULTS.init[k]));
    if (key === 'attnSoftcap' || key === 'finalSoftcap') {
      if (value === null || value === false) return null;
      if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) fail(`${key} must be null (off) or a positive number (got ${show(value)})`);
      return value;
    }
    if (key === 'dFF') return value === null ? null : checkInteger('dFF (null means 4 * dModel)', value);
    const v = checkValue('', key, value, DECODER_DEFAULTS[key]);
    return INTEGER_KEYS.has(key) ? checkInteger(key, v) : v;
  });
  const seed = out.init.seed;
  if (!Number.isSafeInteger(seed) || seed < 0) fail(`init.seed must be a non-negative integer below 2^53 (got ${show(seed)})`);
  return out;
}

// What the bindings read: numbers for the optional values (0 = off / automatic).
const toNative = (c) => ({ ...c, dFF: c.dFF ?? 0, attnSoftcap: c.attnSoftcap ?? 0, finalSoftcap: c.finalSoftcap ?? 0 });

function asTokens(values, name) {
  if (values instanceof Int32Array) return values;
  if (!Array.isArray(values) && !ArrayBuffer.isView(values)) fail(`${name} must be an Int32Array (got ${show(values)})`, 'invalid_input');
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    if (!Number.isInteger(values[i]) || Math.abs(values[i]) > INT32_MAX) fail(`${name}[${i}] must be an integer token id (got ${show(values[i])})`, 'invalid_input');
    out[i] = values[i];
  }
  return out;
}

export function createDecoderApi(Module) {
  function createDecoder(config = {}) {
    const normalized = normalizeConfig(config);
    const created = Module.decoderCreate(toNative(normalized));
    if (created.error) fail(created.error);
    const id = created.id;
    const layout = Module.decoderLayout(id).map((t) => Object.freeze({ ...t, shape: Object.freeze(t.shape) }));
    let disposed = false;
    let trainOptions = null;

    const live = () => { if (disposed) fail('this decoder has been disposed', 'disposed'); };
    const check = (result) => { if (result.error) fail(result.error, 'invalid_input'); return result; };

    // Per-layer gradient norms keyed by the tensor's name within its layer ("attn.q.weight").
    function groupNorms(tensorGradNorms) {
      const layers = Array.from({ length: normalized.nLayers }, () => ({}));
      const global = {};
      layout.forEach((t, i) => {
        if (t.layer < 0) global[t.name] = tensorGradNorms[i];
        else layers[t.layer][t.name.slice(`layers.${t.layer}.`.length)] = tensorGradNorms[i];
      });
      return { layers, global };
    }

    return Object.freeze({
      config: Object.freeze({ ...normalized, init: Object.freeze({ ...normalized.init }) }),
      numParams: created.numParams,

      /** Runs one sequence; with targets also the mean cross-entropy. opts.logitLens = k adds a top-k lens. */
      forward(tokens, targets, { logitLens = 0 } = {}) {
        live();
        const ids = asTokens(tokens, 'tokens');
        const n = ids.length;
        if (n === 0) fail('the token sequence is empty', 'invalid_input');
        if (n > normalized.contextLength) fail(`sequence of ${n} tokens exceeds contextLength ${normalized.contextLength}`, 'invalid_input');
        const hasTargets = targets !== undefined && targets !== null;
        const tgt = hasTargets ? asTokens(targets, 'targets') : null;
        if (hasTargets && tgt.length !== n) fail(`targets has ${tgt.length} entries but tokens has ${n}`, 'invalid_input');
        if (!Number.isInteger(logitLens) || logitLens < 0) fail(`logitLens must be a non-negative integer (got ${show(logitLens)})`, 'invalid_input');
        Module.decoderTokensView(id).set(ids);
        if (hasTargets) Module.decoderTargetsView(id).set(tgt);
        const r = check(Module.decoderForward(id, n, hasTargets, logitLens));
        const out = { loss: r.loss, logits: r.logits, stats: r.stats };
        if (logitLens > 0) out.logitLens = r.logitLens;
        return out;
      },

      /** Gradients of the last forward's loss (replacing earlier ones), and their norms per layer. */
      backward() {
        live();
        const r = check(Module.decoderBackward(id));
        return {
          totalGradNorm: r.totalGradNorm,
          streamGradNorm: r.streamGradNorm,
          streamGradNormPerPosition: r.streamGradNormPerPosition,
          tensorGradNorms: r.tensorGradNorms,
          ...groupNorms(r.tensorGradNorms),
        };
      },

      logitLens(k = 5) {
        live();
        if (!Number.isInteger(k) || k < 1) fail(`k must be a positive integer (got ${show(k)})`, 'invalid_input');
        const { error, ...lens } = check(Module.decoderLogitLens(id, k));
        return lens;
      },

      params() { live(); return Module.decoderParams(id); },
      grads() { live(); return Module.decoderGrads(id); },
      paramLayout() { return layout.map((t) => ({ ...t, shape: [...t.shape] })); },

      setParams(values) {
        live();
        if (!(values instanceof Float32Array)) fail(`setParams expects a Float32Array (got ${show(values)})`, 'invalid_input');
        if (values.length !== created.numParams) fail(`expected ${created.numParams} parameters, got ${values.length}`, 'invalid_input');
        Module.decoderStagingView(id).set(values);
        const error = Module.decoderCommitParams(id);
        if (error) fail(error, 'invalid_input');
      },

      /** One AdamW step on the shipped corpus. Options are fixed by the first call (resetTraining starts over). */
      trainStep(opts = {}) {
        live();
        const o = withDefaults(opts, TRAIN_DEFAULTS, 'trainStep option', (key, value) => {
          if (key === 'seqLen') return value === null ? normalized.contextLength : checkInteger('seqLen', value);
          if (key === 'dataSeed') {
            if (!Number.isSafeInteger(value) || value < 0) fail(`dataSeed must be a non-negative integer below 2^53 (got ${show(value)})`);
            return value;
          }
          if (key === 'lr' && !Number.isFinite(value)) fail(`lr must be a finite number (got ${show(value)})`);
          const v = checkValue('', key, value, TRAIN_DEFAULTS[key]);
          return INTEGER_KEYS.has(key) ? checkInteger(key, v) : v;
        });
        const key = JSON.stringify(o);
        if (trainOptions !== null && key !== trainOptions && Object.keys(opts ?? {}).length > 0) {
          fail('training options are fixed by the first trainStep; call resetTraining() to change them');
        }
        const r = check(Module.decoderTrainStep(id, o));
        if (trainOptions === null) trainOptions = key;
        return { loss: r.loss, gradNorm: r.gradNorm, lr: r.lr, step: r.step, status: r.status, updated: r.updated, diverged: r.diverged };
      },

      /** Forgets the optimizer state and the schedule position (the parameters stay). */
      resetTraining() { live(); Module.decoderResetTraining(id); trainOptions = null; },

      /** Frees the model's WASM memory; any later call throws. */
      dispose() { if (!disposed) { disposed = true; Module.decoderDispose(id); } },
    });
  }

  return {
    createDecoder,
    /** Models created and not yet disposed (for leak checks). */
    liveDecoders: () => Module.decoderLiveModels(),
    /** Current size of the WASM heap in bytes (it only grows; a leak shows as growth). */
    wasmHeapBytes: () => Module.HEAP8.buffer.byteLength,
  };
}
