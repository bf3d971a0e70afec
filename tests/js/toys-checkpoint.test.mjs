// Each shipped toy read through lab.openCheckpoint (the Hugging Face reader) gives what the engine that trained it
// computes with the same weights: the logits at every position and the stream's norm after every layer, on the
// toy's probe text. Two independent forwards (the decoder's, the checkpoint runner's) agreeing to float32 rounding.
//   node --test tests/js/toys-checkpoint.test.mjs      after `node scripts/build.mjs` (uses dist/lib/residual-lab.js)
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { assertRelativelyClose } from '../fixtures/float64.mjs';
import { engineDecoder, probeIds, record, toyFiles } from '../fixtures/toys.mjs';

const TOLERANCE = 1e-5;
let lab;
before(async () => {
  lab = await load();
});

const close = (actual, expected, what) => assertRelativelyClose(actual, expected, what, TOLERANCE);

for (const toy of record.toys) {
  test(`${toy.name}: openCheckpoint's forward is the engine's own, logits and stream norms per layer`, async () => {
    const ids = Int32Array.from(probeIds(toy).slice(0, toy.engineConfig.contextLength)); // the probe text is inputs and one more target
    const T = ids.length,
      L = toy.engineConfig.nLayers;
    const model = engineDecoder(lab, toy);
    const ckpt = await lab.openCheckpoint(toyFiles(toy));
    try {
      const engine = model.forward(ids);
      const r = await ckpt.run(ids, { logits: 'all' });
      // the text path tokenizes the probe text to the same ids
      assert.deepEqual([...(await ckpt.run(toy.probeText.slice(0, T))).tokens], [...ids]);
      close(r.logits, engine.logits, 'logits');
      // the engine records the stream after every sublayer (2L + 1 points); after layer l it is point 2(l + 1)
      const stream = (p) => engine.stats.streamNorm.subarray(p * T, (p + 1) * T);
      for (let l = 0; l <= L; l++) close(r.streamNorms[l], stream(2 * l), `streamNorms[${l}]`);
      const increment = (j) => engine.stats.incrementNorm.subarray(j * T, (j + 1) * T);
      for (let l = 0; l < L; l++) {
        close(r.attnNorms[l], increment(2 * l), `attnNorms[${l}]`);
        close(r.mlpNorms[l], increment(2 * l + 1), `mlpNorms[${l}]`);
      }
    } finally {
      ckpt.dispose();
      model.dispose();
    }
  });
}
