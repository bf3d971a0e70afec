// The chapter's six experiments (wasm/src/experiments/*.hpp; what each shows is in docs/experiments.md).
// Every function takes one options object (lab.describe().experiments: the decoder config's keys an experiment
// takes, plus its own), validates it, runs the
// C++ experiment through the Embind functions of wasm/bindings/experiments_bindings.cpp, and returns plain
// objects of Float64Arrays and numbers. Long runs report progress and can stop: warmup through a steppable run
// (createWarmupRun) or an onProgress callback, residualGrowth's training through onProgress; callbacks come in a
// second argument, `{ onProgress }`, never in the options. All calls are synchronous, so a page runs the long
// ones in the lab's Web Worker (worker-client.js), which posts the progress it receives.
import { ResidualLabError } from './errors.js';
import { resolveOptions } from './options.js';

function checked(result, experiment) {
  if (result.error === 'cancelled') return { ...result, cancelled: true };
  if (result.error)
    throw new ResidualLabError(`${experiment}: ${result.error}`, { code: result.code ?? 'invalid_input' });
  const { error, ...rest } = result;
  return rest;
}

function progressCallback(onProgress, experiment) {
  if (onProgress === undefined || onProgress === null) return undefined;
  if (typeof onProgress !== 'function') throw new ResidualLabError(`${experiment}: onProgress must be a function`);
  return onProgress;
}

// [groups * n] row-major -> { [name]: Float64Array(n) }
function splitRows(flat, names, n) {
  return Object.fromEntries(names.map((name, i) => [name, flat.slice(i * n, (i + 1) * n)]));
}

const WARMUP_RUNS = ['post', 'post+warmup', 'pre', 'pre+warmup']; // the race's order (the option table's choices)
const warmupRunName = (run) => `${run.placement}${run.warmup ? '+warmup' : ''}`;

/**
 * The race of experiments.warmup split into at most `parts` independent races (option `runs`), for as many
 * workers: each part trains one post-norm and one pre-norm run where it can, so the parts take about as long.
 * mergeWarmupResults puts their results back together; every run's curves are the same as in the full race.
 */
export function splitWarmupOptions(options, parts) {
  const runs = options?.runs ?? WARMUP_RUNS;
  const balanced = ['post', 'pre', 'post+warmup', 'pre+warmup'].filter((name) => runs.includes(name));
  const groups = Array.from({ length: Math.max(1, Math.min(parts, balanced.length)) }, () => []);
  balanced.forEach((name, i) => groups[i % groups.length].push(name));
  return groups.map((group) => ({ ...options, runs: group }));
}

/** One result of the shape experiments.warmup returns, from the results of the parts of a split race. */
export function mergeWarmupResults(results) {
  const order = (run) => WARMUP_RUNS.indexOf(warmupRunName(run));
  const merged = {
    stepsDone: Math.min(...results.map((r) => r.stepsDone)),
    stepsTotal: results[0].stepsTotal,
    unigramEntropy: results[0].unigramEntropy,
    runs: results.flatMap((r) => r.runs).sort((a, b) => order(a) - order(b)),
  };
  if (results.some((r) => r.cancelled)) merged.cancelled = true;
  return merged;
}

export function createExperimentsApi(Module, tables) {
  const bind = experimentBindings(Module, tables);
  const { resolve, requireBinding } = bind;

  /** Experiment 1: gradient norm at the input of each layer of a deep stack, with or without residuals. */
  function gradientDecay(options) {
    const o = resolve('gradientDecay', options);
    return checked(requireBinding('experimentGradientDecay')(o), 'gradientDecay');
  }

  /** Experiment 2: per-layer parameter-gradient norms at init for each placement, and last layer vs depth. */
  function initGradients(options) {
    const o = resolve('initGradients', options);
    const r = checked(requireBinding('experimentInitGradients')(o), 'initGradients');
    const perLayer = {};
    for (const [i, placement] of o.placements.entries()) {
      const rows = (flat) => flat.slice(i * r.layers, (i + 1) * r.layers);
      perLayer[placement] = {
        attn: rows(r.attnGradNorm),
        mlpUp: rows(r.mlpUpGradNorm),
        mlpDown: rows(r.mlpDownGradNorm),
      };
    }
    return {
      placements: o.placements,
      depths: Int32Array.from(o.depths),
      layers: r.layers,
      perLayer,
      lastLayerMlpGradNorm: splitRows(r.lastLayerMlpGradNorm, o.placements, o.depths.length),
      loss: Object.fromEntries(o.placements.map((p, i) => [p, r.loss[i]])),
    };
  }

  /**
   * Experiment 3: stream norm, increment norm and their ratio per sublayer (optionally after training).
   * onProgress({ stepsDone, stepsTotal }) after each training step; returning false stops (cancelled: true).
   */
  function residualGrowth(options, callbacks) {
    const { onProgress } = callbacks ?? {};
    const o = resolve('residualGrowth', options);
    const relay = progressRelay(progressCallback(onProgress, 'residualGrowth'));
    const result = requireBinding('experimentResidualGrowth')(o, relay.call);
    relay.rethrow();
    return checked(result, 'residualGrowth');
  }

  /** Experiment 5: largest attention logit and softmax entropy against the q/k gain, without and with QK-Norm. */
  function qkLogitGrowth(options) {
    const o = resolve('qkLogitGrowth', options);
    return {
      gains: Float64Array.from(o.gains),
      ...checked(requireBinding('experimentQkLogitGrowth')(o), 'qkLogitGrowth'),
    };
  }

  /** Experiment 6: the stream's variance against depth, without and with the 1/sqrt(2L) scaling. */
  function initScaling(options) {
    const o = resolve('initScaling', options);
    return { depths: Int32Array.from(o.depths), ...checked(requireBinding('experimentInitScaling')(o), 'initScaling') };
  }

  return Object.freeze({
    gradientDecay,
    initGradients,
    residualGrowth,
    warmup: (options, callbacks) => runWarmup(bind, options, callbacks),
    createWarmupRun: (options) => createWarmupRun(bind, options),
    qkLogitGrowth,
    initScaling,
  });
}

/** An experiment's options resolved against its table, and the module's Embind functions asked for by name. */
function experimentBindings(Module, tables) {
  return {
    /** Defaults filled in and every value checked against the experiment's table; C++ checks the relations. */
    resolve: (experiment, options) =>
      resolveOptions(tables.experiments[experiment], options, { where: 'options', prefix: `${experiment}: ` }),
    requireBinding(name) {
      if (typeof Module[name] !== 'function' && typeof Module[name] !== 'object')
        throw new ResidualLabError(`this build of the lab has no experiments (${name} is missing)`, {
          code: 'unavailable',
        });
      return Module[name];
    },
  };
}

/**
 * `callback` wrapped for a C++ call that runs it: an exception there would unwind past C++ without freeing its
 * model, so it is caught, the run is stopped (false) and frees what it holds, and rethrow() throws it after.
 * call is null when there is no callback.
 */
function progressRelay(callback) {
  let failure = null;
  const call =
    callback &&
    ((stepsDone, stepsTotal) => {
      try {
        return callback({ stepsDone, stepsTotal });
      } catch (err) {
        failure = { err };
        return false;
      }
    });
  return {
    call: call ?? null,
    rethrow() {
      if (failure) throw failure.err;
    },
  };
}

/**
 * Experiment 4, steppable: four training runs (post/pre x without/with warmup) advanced by `advance(n)`.
 * The C++ run is freed when the last step is taken or on dispose(); result() stays readable afterwards.
 */
function createWarmupRun({ resolve, requireBinding }, options) {
  const o = resolve('warmup', options);
  const Handle = requireBinding('ExperimentWarmupRun');
  let handle = new Handle(o);
  const error = handle.error();
  if (error) {
    const code = handle.errorCode() || 'invalid_input';
    handle.delete();
    throw new ResidualLabError(`warmup: ${error}`, { code });
  }
  let last = null;
  const release = () => {
    if (!handle) return;
    last = checked(handle.result(), 'warmup');
    handle.delete();
    handle = null;
  };
  return {
    options: o,
    advance(n = 10) {
      if (!handle) return last.stepsDone;
      // the binding takes an int32: a larger n would wrap
      if (!Number.isInteger(n) || n < 1 || n > 2147483647)
        throw new ResidualLabError(`warmup: advance(n) needs an integer from 1 to 2147483647 (got ${n})`);
      const done = handle.advance(n);
      if (handle.done()) release();
      return done;
    },
    get done() {
      return !handle;
    },
    result() {
      return handle ? checked(handle.result(), 'warmup') : last;
    },
    dispose() {
      release();
    },
  };
}

/**
 * Experiment 4 in one call. onProgress({ stepsDone, stepsTotal, partial }) after every `chunk` steps, where
 * `partial` is the result so far (the same shape as the final one), so a page can draw the curves as they
 * grow; returning false stops the runs and returns the curves so far with cancelled: true.
 */
function runWarmup(bind, options, callbacks) {
  const { onProgress, chunk = 10 } = callbacks ?? {};
  const callback = progressCallback(onProgress, 'warmup');
  if (!Number.isInteger(chunk) || chunk < 1 || chunk > 2147483647)
    throw new ResidualLabError(`warmup: chunk must be a positive integer up to 2147483647 (got ${chunk})`);
  const run = createWarmupRun(bind, options);
  try {
    while (!run.done) {
      const stepsDone = run.advance(chunk);
      if (callback && callback({ stepsDone, stepsTotal: run.options.steps, partial: run.result() }) === false) {
        return { ...run.result(), cancelled: true };
      }
    }
    return run.result();
  } finally {
    run.dispose();
  }
}
