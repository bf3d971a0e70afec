// The lab's decoder as a JS object: `createDecoderApi(Module, tables).createDecoder(config)`. The config and
// trainStep's options are checked against the core's tables (lab.describe().decoder and .train, through
// options.js); what involves several options at once (nHeads divides dModel, the memory budget) is checked in
// C++, whose messages come back through the bindings and are thrown as Errors (a refusal of the memory budget
// with the code the binding gives, out_of_memory). Tokens and parameters are written straight into model-owned
// WASM buffers; every array returned is a copy. A decoder that is never disposed is freed when its JS object is
// garbage-collected, where the engine has FinalizationRegistry.
// A decoder object's methods are the functions of this file taking the model's record (`decoder`) first:
// model.forward(tokens) is forward(decoder, tokens).
import { ResidualLabError } from './errors.js';
import { resolveOptions, shown as show } from './options.js';

const fail = (message, code = 'invalid_config') => {
  throw new ResidualLabError(message, { code });
};
const INT32_MAX = 2147483647;

// `values` as an Int32Array of at most maxLength tokens; the length is checked before anything is converted.
function asTokens(values, name, maxLength) {
  if (!Array.isArray(values) && !(ArrayBuffer.isView(values) && !(values instanceof DataView)))
    fail(
      `${name} must be an Int32Array (got ${values instanceof DataView ? 'a DataView' : show(values)})`,
      'invalid_input',
    );
  if (values.length > maxLength)
    fail(`sequence of ${values.length} tokens exceeds contextLength ${maxLength}`, 'invalid_input');
  if (values instanceof Int32Array) return values;
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    if (!Number.isInteger(values[i]) || Math.abs(values[i]) > INT32_MAX)
      fail(`${name}[${i}] must be an integer token id (got ${show(values[i])})`, 'invalid_input');
    out[i] = values[i];
  }
  return out;
}

export function createDecoderApi(Module, tables) {
  // Frees the C++ model of a decoder object that was collected without dispose(); held value: the model's id.
  const reclaim =
    typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((id) => Module.decoderDispose(id)) : null;
  return {
    createDecoder: (config) => createDecoder(Module, tables, reclaim, config),
    /** C++ models alive: created, and neither disposed nor reclaimed after their JS object was collected. */
    liveDecoders: () => Module.decoderLiveModels(),
    /** The module's memory budget: { budgetBytes, usedBytes } (every allocation a call can cause is reserved from it). */
    memoryBudget: () => ({ budgetBytes: Module._rl_memory_budget_bytes(), usedBytes: Module._rl_memory_used_bytes() }),
    /** Current size of the WASM heap in bytes (it only grows; a leak shows as growth). */
    wasmHeapBytes: () => Module.HEAP8.buffer.byteLength,
  };
}

// The decoder object's methods, in the order its properties list them.
const DECODER_METHODS = {
  forward,
  backward,
  logitLens,
  params,
  grads,
  paramLayout,
  setParams,
  trainStep,
  resetTraining,
  dispose,
};

function createDecoder(Module, tables, reclaim, config = {}) {
  const normalized = resolveOptions(tables.decoder, config, { where: 'config', code: 'invalid_config' });
  const created = Module.decoderCreate(normalized);
  if (created.error) fail(created.error, created.code ?? 'invalid_config');
  // What every method reads; `disposed` and `trainOptions` change.
  const decoder = {
    Module,
    tables,
    reclaim,
    id: created.id,
    config: normalized,
    numParams: created.numParams,
    layout: Module.decoderLayout(created.id).map((t) => Object.freeze({ ...t, shape: Object.freeze(t.shape) })),
    disposed: false,
    trainOptions: null, // the first trainStep's options, as JSON
  };
  const model = Object.freeze({
    config: Object.freeze({ ...normalized, init: Object.freeze({ ...normalized.init }) }),
    numParams: created.numParams,
    ...Object.fromEntries(Object.entries(DECODER_METHODS).map(([name, method]) => [name, method.bind(null, decoder)])),
  });
  reclaim?.register(model, decoder.id, decoder);
  return model;
}

function assertLive(decoder) {
  if (decoder.disposed) fail('this decoder has been disposed', 'disposed');
}

function checked(result) {
  if (result.error) fail(result.error, result.code ?? 'invalid_input');
  return result;
}

// Per-layer gradient norms keyed by the tensor's name within its layer ("attn.q.weight").
function groupNorms(decoder, tensorGradNorms) {
  const layers = Array.from({ length: decoder.config.nLayers }, () => ({}));
  const global = {};
  decoder.layout.forEach((t, i) => {
    if (t.layer < 0) global[t.name] = tensorGradNorms[i];
    else layers[t.layer][t.name.slice(`layers.${t.layer}.`.length)] = tensorGradNorms[i];
  });
  return { layers, global };
}

/** Runs one sequence; with targets also the mean cross-entropy. options.logitLens = k adds a top-k lens. */
function forward(decoder, tokens, targets, { logitLens: lensK = 0 } = {}) {
  assertLive(decoder);
  const { Module, id, config } = decoder;
  // The length is checked here as well as in C++: the tokens are written into a buffer of contextLength entries first.
  const ids = asTokens(tokens, 'tokens', config.contextLength);
  const n = ids.length;
  if (n === 0) fail('the token sequence is empty', 'invalid_input');
  const hasTargets = targets !== undefined && targets !== null;
  const tgt = hasTargets ? asTokens(targets, 'targets', config.contextLength) : null;
  if (hasTargets && tgt.length !== n) fail(`targets has ${tgt.length} entries but tokens has ${n}`, 'invalid_input');
  if (!Number.isInteger(lensK) || lensK < 0 || lensK > INT32_MAX)
    fail(`logitLens must be an integer from 0 to ${INT32_MAX} (got ${show(lensK)})`, 'invalid_input');
  Module.decoderTokensView(id).set(ids);
  if (hasTargets) Module.decoderTargetsView(id).set(tgt);
  const r = checked(Module.decoderForward(id, n, hasTargets, lensK));
  // status: 'ok', or 'nonfinite_logits' / 'nonfinite_loss' when the pass overflowed float32
  const out = { loss: r.loss, logits: r.logits, stats: r.stats, status: r.status };
  if (lensK > 0) out.logitLens = r.logitLens;
  return out;
}

/** Gradients of the last forward's loss (replacing earlier ones), and their norms per layer. */
function backward(decoder) {
  assertLive(decoder);
  const r = checked(decoder.Module.decoderBackward(decoder.id));
  return {
    totalGradNorm: r.totalGradNorm,
    streamGradNorm: r.streamGradNorm,
    streamGradNormPerPosition: r.streamGradNormPerPosition,
    tensorGradNorms: r.tensorGradNorms,
    ...groupNorms(decoder, r.tensorGradNorms),
  };
}

function logitLens(decoder, k = 5) {
  assertLive(decoder);
  // the binding takes an int32: a larger k would wrap (2 ** 32 + 3 to 3), so it is refused
  if (!Number.isInteger(k) || k < 1 || k > INT32_MAX)
    fail(`k must be an integer from 1 to ${INT32_MAX} (got ${show(k)})`, 'invalid_input');
  const { error, ...lens } = checked(decoder.Module.decoderLogitLens(decoder.id, k));
  return lens;
}

function params(decoder) {
  assertLive(decoder);
  return decoder.Module.decoderParams(decoder.id);
}

function grads(decoder) {
  assertLive(decoder);
  return decoder.Module.decoderGrads(decoder.id);
}

function paramLayout(decoder) {
  return decoder.layout.map((t) => ({ ...t, shape: [...t.shape] }));
}

function setParams(decoder, values) {
  assertLive(decoder);
  const { Module, id, numParams } = decoder;
  if (!(values instanceof Float32Array))
    fail(`setParams expects a Float32Array (got ${show(values)})`, 'invalid_input');
  if (values.length !== numParams) fail(`expected ${numParams} parameters, got ${values.length}`, 'invalid_input');
  const staging = Module.decoderStagingView(id);
  if (staging.error) fail(staging.error, staging.code ?? 'invalid_input');
  staging.set(values);
  const error = Module.decoderCommitParams(id);
  if (error) fail(error, 'invalid_input');
}

/** One AdamW step on the shipped corpus. Options are fixed by the first call (resetTraining starts over). */
function trainStep(decoder, opts = {}) {
  assertLive(decoder);
  const o = resolveOptions(decoder.tables.train, opts, { where: 'trainStep options', code: 'invalid_config' });
  o.seqLen ??= decoder.config.contextLength;
  const key = JSON.stringify(o);
  if (decoder.trainOptions !== null && key !== decoder.trainOptions && Object.keys(opts ?? {}).length > 0) {
    fail('training options are fixed by the first trainStep; call resetTraining() to change them');
  }
  const r = checked(decoder.Module.decoderTrainStep(decoder.id, o));
  if (decoder.trainOptions === null) decoder.trainOptions = key;
  return {
    loss: r.loss,
    gradNorm: r.gradNorm,
    lr: r.lr,
    step: r.step,
    status: r.status,
    updated: r.updated,
    diverged: r.diverged,
  };
}

/** Forgets the optimizer state and the schedule position (the parameters stay). */
function resetTraining(decoder) {
  assertLive(decoder);
  decoder.Module.decoderResetTraining(decoder.id);
  decoder.trainOptions = null;
}

/** Frees the model's WASM memory; any later call throws. */
function dispose(decoder) {
  if (decoder.disposed) return;
  decoder.disposed = true;
  decoder.reclaim?.unregister(decoder);
  decoder.Module.decoderDispose(decoder.id);
}
