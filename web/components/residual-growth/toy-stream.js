// A shipped trained toy (web/models/, `npm run train-toys`) set against itself before training: the residual
// stream's length after each layer and what each sublayer adds, at the last position of the toy's probe window.
// The trained toy is read through lab.openCheckpoint; the untrained one is lab.createDecoder with the toy's own
// initialisation, the weights its training started from. Both run in the lab worker (or on the lab itself).
import { TOYS, fetchToy, toyWindow } from '../shared/toys.js';

export { toyWindow }; // the text both models read (one character, one token)

// toy_config in tools/toys.cpp (tests/js/toys.test.mjs compares): N(0, 0.02²) weights, GPT-2's 1/√(2L) on attn.o and mlp.down,
// seeded with the toy's seed.
export const TOY_INIT = { scheme: 'normal', std: 0.02, residualScaling: true };

/** The shipped toy whose norm placement is `placement` (pre: the Llama-style one; olmo2: the OLMo 2-style one). */
export const toyOfPlacement = (placement) => TOYS.find((toy) => toy.engineConfig.placement === placement);

/** The decoder config of the toy before training. */
export const untrainedToyConfig = (toy) => ({ ...toy.engineConfig, init: { ...TOY_INIT, seed: toy.seed } });

/**
 * `call(method, args)` runs a lab method: worker.call in a page, or (m, a) => lab[m](...a). `files` are the toy's
 * checkpoint files (fetchToy). Returns { toy, tokens, position, trained, untrained }, each of the last two
 * { stream: |h| after layer l - 1 ([0] the embedding, L + 1 values), attention: |Δ| of layer l's attention,
 * mlp: |Δ| of its MLP (L values) } at the last position.
 */
export async function toyStreams(call, toy, files) {
  const checkpoint = await call('openCheckpoint', [files]);
  let ids, trained;
  try {
    ids = await checkpoint.tokenize(toyWindow(toy));
    const run = await checkpoint.run(ids);
    const at = (rows) => rows.map((row) => row[ids.length - 1]);
    trained = { stream: at(run.streamNorms), attention: at(run.attnNorms), mlp: at(run.mlpNorms) };
  } finally {
    await checkpoint.dispose();
  }
  const decoder = await call('createDecoder', [untrainedToyConfig(toy)]);
  try {
    const { stats } = await decoder.forward(ids);
    const T = ids.length;
    const L = stats.nLayers;
    // stats.streamNorm is [2L + 1][T] (point 2l: entering layer l), stats.incrementNorm [2L][T]
    const point = (values, p) => values[p * T + T - 1];
    const untrained = {
      stream: Array.from({ length: L + 1 }, (_, l) => point(stats.streamNorm, 2 * l)),
      attention: Array.from({ length: L }, (_, l) => point(stats.incrementNorm, 2 * l)),
      mlp: Array.from({ length: L }, (_, l) => point(stats.incrementNorm, 2 * l + 1)),
    };
    return { toy: toy.name, tokens: T, position: T - 1, trained, untrained };
  } finally {
    await decoder.dispose();
  }
}

const measured = new Map(); // toy name -> its toyStreams: the shipped files never change while a page is open

/** toyStreams in a lab worker, the toy's files fetched from the site first; measured once per page. */
export async function toyStreamsInWorker(worker, toy) {
  if (!measured.has(toy.name)) {
    const files = await fetchToy(toy.name, () => {});
    measured.set(toy.name, await toyStreams((method, args) => worker.call(method, args), toy, files));
  }
  return measured.get(toy.name);
}
