// Uses every part of the public API's types as a reader would; `tsc -p tests/types` (strict) must accept it, and
// each @ts-expect-error line must be refused (tests/js/types.test.mjs runs it). Type-checked only, never run.
import { load, compileWasm, ResidualLabError, type ConfigInspection, type DecoderConfig, type ResidualLab } from 'residual-lab';
import { createLabWorker } from 'residual-lab/worker-client';

async function kernels(lab: ResidualLab): Promise<number> {
  const x = [2, -1, 3, 0];
  const y: Float32Array = lab.rmsNorm(x, null, { eps: 1e-5, weightOffset: 1, precision: 'bf16' });
  lab.rmsNorm(new Float64Array(x), undefined, undefined, y);  // into `out`
  const { dx, dg } = lab.rmsNormBackward(x, [1, 1, 1, 1], [0.1, 0, 0, 0]);
  const steps = lab.layerNormSteps(x, null, null, { eps: 0 });
  const dyt = lab.dynamicTanhBackward(x, null, x, { alpha: 0.5 });
  const parsed = lab.parseVector('[2, -1, 3, 0]');
  // @ts-expect-error: an option the kernel's table does not have
  lab.rmsNorm(x, null, { epsilon: 1e-5 });
  // @ts-expect-error: a choice outside the table
  lab.rmsNorm(x, null, { precision: 'fp16' });
  // @ts-expect-error: strings are not vectors
  lab.softmax('2, -1');
  return dx[0] + dg[0] + steps.variance + dyt.dalpha + parsed.length + lab.softcap(x, 30)[0] + lab.softmax(x)[0];
}

function decoder(lab: ResidualLab): number {
  const config: DecoderConfig = { nLayers: 2, norm: 'rmsnorm', placement: 'pre', dFF: null, init: { scheme: 'xavier', seed: 1 } };
  const model = lab.createDecoder(config);
  try {
    const { loss, status, stats, logitLens } = model.forward([1, 2, 3], [2, 3, 4], { logitLens: 3 });
    if (status !== 'ok' || loss === null) return NaN;
    const grads = model.backward();
    const step = model.trainStep({ lr: 3e-3, warmupSteps: 10, decay: 'cosine' });
    const layout = model.paramLayout().find((t) => t.name === 'layers.0.attn.q.weight');
    const nLayers: number = model.config.nLayers;  // resolved: every key present
    const scheme: 'normal' | 'xavier' = model.config.init.scheme;
    model.setParams(model.params());
    // @ts-expect-error: not a norm kind
    lab.createDecoder({ norm: 'batchnorm' });
    return loss + grads.layers[0]['attn.q.weight'] + step.gradNorm + (layout?.shape[0] ?? 0) + nLayers + scheme.length +
      stats.streamNorm[0] + (logitLens?.topProbs[0] ?? 0) + lab.memoryBudget().usedBytes;
  } finally {
    model.dispose();
  }
}

function experiments(lab: ResidualLab): number {
  const decay = lab.experiments.gradientDecay({ nLayers: 8, residual: true });
  const init = lab.experiments.initGradients({ placements: ['post', 'pre'], depths: [2, 4] });
  const growth = lab.experiments.residualGrowth({ trainSteps: 5 }, { onProgress: ({ stepsDone }) => stepsDone < 3 });
  const race = lab.experiments.warmup({ steps: 20 }, { chunk: 5, onProgress: ({ partial }) => { void partial.runs.length; } });
  const run = lab.experiments.createWarmupRun({ steps: 20 });
  while (!run.done) run.advance(10);
  const qk = lab.experiments.qkLogitGrowth({ gains: [1, 2] });
  const scaling = lab.experiments.initScaling({ depths: [1, 2] });
  return decay.gradNorms[0] + init.perLayer.pre.attn[0] + growth.loss + race.runs[0].evalLoss + run.result().stepsDone +
    qk.bound + scaling.finalVariancePlain[0] + lab.describe().experiments.warmup.length;
}

function inspect(lab: ResidualLab, text: string): string {
  try {
    const result: ConfigInspection = lab.inspectConfig(text);
    return `${result.architecture}: ${result.normParams ?? 'cannot count'} of ${result.totalParams}`;
  } catch (error) {
    if (error instanceof ResidualLabError && error.code === 'invalid_config') return `${error.field}: ${error.reason?.kind}`;
    if (error instanceof ResidualLabError && error.code === 'invalid_json') return `at ${error.position}`;
    throw error;
  }
}

async function inWorker(signal: AbortSignal): Promise<number> {
  const worker = createLabWorker();
  const y = await worker.call('rmsNorm', [[2, -1, 3, 0], null, { eps: 1e-5 }]);
  const race = await worker.call('experiments.warmup', [{ steps: 30 }], { onProgress: (p) => { void p.partial; }, signal });
  const model = await worker.call('createDecoder', [{ nLayers: 2 }]);
  const { loss } = await model.forward([1, 2, 3], [2, 3, 4]);
  const n = model.numParams;
  await model.dispose();
  // @ts-expect-error: the worker runs only the lab's functions
  await worker.call('constructor', []);
  worker.terminate();
  return y[0] + race.stepsDone + (loss ?? 0) + n;
}

export async function main(text: string, signal: AbortSignal, weights: Blob): Promise<string> {
  await compileWasm('simd');
  const lab = await load({ flavour: 'auto' });
  const figures = [await kernels(lab), decoder(lab), experiments(lab), await inWorker(signal), await checkpoint(lab, weights)];
  return `${lab.flavour} ${figures.join(' ')} ${inspect(lab, text)}`;
}

async function checkpoint(lab: ResidualLab, file: Blob): Promise<number> {
  const ckpt = await lab.openCheckpoint({ 'config.json': '{"model_type": "llama"}', 'model.safetensors': file });
  const cost = ckpt.cost(16);
  const controller = new AbortController();
  const run = await ckpt.run([1, 2, 3], {
    lens: { k: 3 },
    onProgress: ({ layer, layers, bytesRead }) => layer / layers + bytesRead,
    signal: controller.signal,
    memoryLimit: 1 << 30,
  });
  const norms = await ckpt.normWeights();
  // @ts-expect-error: a run is a promise, its fields come after await
  ckpt.run([1]).logits;
  const grads = await ckpt.gradients([1, 2, 3], {
    target: { position: 1, token: 2 },
    onProgress: ({ pass, layer }) => (pass === 'backward' ? layer : 0),
  });
  // @ts-expect-error: a target names a position and a token, nothing else
  await ckpt.gradients([1, 2], { target: { layer: 1 } });
  const flow = grads.streamGrads[0][0] + grads.branchOnly[0][0] + grads.branchGains[0].attn;
  ckpt.dispose();
  return (
    cost.estimatedSeconds +
    run.reads.peakHeldBytes +
    run.logits[0] +
    norms.length +
    grads.loss +
    flow +
    (grads.paramGradNorms['model.norm.weight'] ?? 0)
  );
}
