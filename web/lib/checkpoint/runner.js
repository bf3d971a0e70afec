// The forward of an opened checkpoint over the lab's C++ kernels (wasm/bindings/checkpoint_bindings.cpp).
// Memory: the file's bytes stay in JS; a run holds in the WASM heap the stream [T, d], ONE layer's weights
// (refilled tensor by tensor for every layer: the projections as the file's bytes, which C++ widens to float32
// four rows at a time right before the matmul kernel reads them; norm weights and biases in float32), one
// vocabulary chunk of the output head's bytes, and the logits of the rows asked for. The embedding is gathered
// by rows. Every block is reserved against the memory budget first: a run that does not fit is refused, never
// aborted.
import { ResidualLabError } from '../errors.js';
import { SLOTS } from './model.js';
import { DTYPE_BYTES, DTYPE_CODES } from './safetensors.js';

export const MAX_TOKENS = 4096;
const HEAD_CHUNK_BYTES = 16 << 20; // the output head's rows are copied in 16 MB at a time
const PROJECTIONS = new Set(['q', 'k', 'v', 'o', 'gate', 'up', 'down']); // kept in the file's dtype
const align16 = (bytes) => Math.ceil(bytes / 16) * 16;

export function createRunner(Module, model, weights) {
  const { d, L, V, eps } = model.sizes;
  const f = model.forward;
  const byLayer = Array.from({ length: L }, () => new Map());
  const global = new Map();
  for (const w of weights.values()) (w.layer === null ? global : byLayer[w.layer]).set(w.slot, w);
  const embed = global.get('embed');
  const head = global.get('head') ?? embed;
  const finalNorm = global.get('finalNorm');
  const elements = (w) => w.bytes.byteLength / DTYPE_BYTES[w.dtype];
  const heapBytes = (w) => align16(PROJECTIONS.has(w.slot) ? w.bytes.byteLength : elements(w) * 4);
  // One layer's block: every slot's tensor, in SLOTS order.
  const layerBytes = Math.max(...byLayer.map((m) => [...m.values()].reduce((n, w) => n + heapBytes(w), 0)));
  const headRowBytes = d * DTYPE_BYTES[head.dtype];
  const chunkRows = Math.max(1, Math.min(V, Math.floor(HEAD_CHUNK_BYTES / headRowBytes)));
  const small = [...weights.values()].filter(
    (w) => !PROJECTIONS.has(w.slot) && w.slot !== 'embed' && w.slot !== 'head',
  );
  const stagingBytes = Math.max(d * 4, ...small.map((w) => w.bytes.byteLength));
  const panelFloats = Module._rl_ckpt_panel_rows() * d;

  const fail = () => {
    const message = Module.UTF8ToString(Module._rl_ckpt_error_message());
    const code = Module.UTF8ToString(Module._rl_ckpt_error_code());
    return new ResidualLabError(message, { code });
  };

  function run(ids, options = {}) {
    const tokens = checkTokens(ids, V);
    const T = tokens.length;
    const { logits: logitsOption = 'last', hiddenStates = false, lens = null } = options ?? {};
    if (logitsOption !== 'last' && logitsOption !== 'all')
      throw new ResidualLabError(`options.logits must be 'last' or 'all', is ${JSON.stringify(logitsOption)}`, {
        code: 'invalid_input',
      });
    const lensAt = lens ? checkLens(lens, T, V) : null;
    const logitRows = logitsOption === 'all' ? T : 1;
    const headRows = logitRows + (lensAt ? L + 1 : 0);

    const blocks = [];
    const alloc = (bytes, what) => {
      const name = Module._malloc(what.length + 1);
      Module.stringToUTF8(what, name, what.length + 1);
      const p = Module._rl_ckpt_alloc(bytes, name);
      Module._free(name);
      if (!p) throw fail();
      blocks.push(p);
      return p;
    };
    try {
      const x = alloc(T * d * 4, 'the residual stream');
      const layer = alloc(layerBytes, "one layer's weights");
      const staging = alloc(stagingBytes, "the copy of one tensor's bytes");
      const chunk = alloc(chunkRows * headRowBytes, 'a chunk of the output head');
      const settings = alloc((16 + 2 * SLOTS.length + d + 2 * T + d + panelFloats) * 4, "the layer's settings");
      const spec = settings,
        slots = spec + 16 * 4,
        freq = slots + 2 * SLOTS.length * 4,
        norms = freq + d * 4;
      const gain = norms + 2 * T * 4,
        panel = gain + d * 4;
      const final = alloc(T * d * 4, 'the stream after the final norm');
      const headIn = alloc(headRows * d * 4, 'the rows read through the output head');
      const logits = alloc(headRows * V * 4, 'the logits');

      const toF32 = (dest, w, byteOffset = 0, count = elements(w)) => {
        const size = DTYPE_BYTES[w.dtype];
        const bytes = w.bytes.subarray(byteOffset, byteOffset + count * size);
        if (w.dtype === 'F32') {
          Module.HEAPU8.set(bytes, dest);
          return;
        }
        Module.HEAPU8.set(bytes, staging);
        Module._rl_ckpt_to_f32(dest, staging, count, DTYPE_CODES[w.dtype]);
      };
      const heapRows = (ptr, rows) => Module.HEAPF32.slice(ptr >> 2, (ptr >> 2) + rows * d);
      const rowNorms = (ptr, rows) => {
        Module._rl_ckpt_row_norms(norms, ptr, rows, d);
        return Module.HEAPF32.slice(norms >> 2, (norms >> 2) + rows);
      };

      // the embedding, gathered by rows, as the first layer reads it
      const rowBytes = d * DTYPE_BYTES[embed.dtype];
      tokens.forEach((id, t) => toF32(x + t * d * 4, embed, id * rowBytes, d));
      if (f.embedScale !== 1) {
        const view = Module.HEAPF32.subarray(x >> 2, (x >> 2) + T * d);
        for (let i = 0; i < view.length; i++) view[i] = Math.fround(view[i] * f.embedScale);
      }
      const streamNorms = [rowNorms(x, T)];
      const states = hiddenStates ? [heapRows(x, T)] : null;
      const lensRows = lensAt ? new Float32Array((L + 1) * d) : null;
      const keepLensRow = (i) =>
        lensRows?.set(
          Module.HEAPF32.subarray((x >> 2) + lensAt.position * d, (x >> 2) + (lensAt.position + 1) * d),
          i * d,
        );
      keepLensRow(0);

      Module.HEAPF32.set(model.spec, spec >> 2);
      const attnNorms = [],
        mlpNorms = [];
      for (let i = 0; i < L; i++) {
        const pointers = new Uint32Array(2 * SLOTS.length); // addresses, then dtype codes
        let at = layer;
        SLOTS.forEach((slot, s) => {
          const w = byLayer[i].get(slot);
          if (!w) return;
          if (PROJECTIONS.has(slot)) {
            Module.HEAPU8.set(w.bytes, at);
            pointers[SLOTS.length + s] = DTYPE_CODES[w.dtype];
          } else toF32(at, w);
          pointers[s] = at;
          at += heapBytes(w);
        });
        Module.HEAPU32.set(pointers, slots >> 2);
        Module.HEAPF32.set(model.layers[i].invFreq, freq >> 2);
        if (Module._rl_ckpt_layer(x, T, spec, slots, freq, model.layers[i].window, norms, norms + T * 4) !== 0)
          throw fail();
        const both = Module.HEAPF32.slice(norms >> 2, (norms >> 2) + 2 * T);
        attnNorms.push(both.subarray(0, T));
        mlpNorms.push(both.subarray(T));
        streamNorms.push(rowNorms(x, T));
        states?.push(heapRows(x, T));
        keepLensRow(i + 1);
      }

      toF32(gain, finalNorm);
      Module._rl_ckpt_norm(final, x, gain, T, d, eps, f.normOffset);
      const finalNorms = rowNorms(final, T);
      const finalHidden = hiddenStates ? heapRows(final, T) : null;
      // the head's input: the final rows asked for, then each lens state through the final norm with its own rstd
      Module.HEAPF32.copyWithin(headIn >> 2, (final >> 2) + (T - logitRows) * d, (final >> 2) + T * d);
      if (lensRows) {
        Module.HEAPF32.set(lensRows, (headIn >> 2) + logitRows * d);
        const lensIn = headIn + logitRows * d * 4;
        Module._rl_ckpt_norm(lensIn, lensIn, gain, L + 1, d, eps, f.normOffset);
      }
      for (let v0 = 0; v0 < V; v0 += chunkRows) {
        const n = Math.min(chunkRows, V - v0);
        Module.HEAPU8.set(head.bytes.subarray(v0 * headRowBytes, (v0 + n) * headRowBytes), chunk);
        if (
          Module._rl_ckpt_head(
            logits + v0 * 4,
            V,
            headIn,
            headRows,
            d,
            chunk,
            DTYPE_CODES[head.dtype],
            n,
            f.finalSoftcap,
            panel,
          ) !== 0
        )
          throw fail();
      }
      const allLogits = Module.HEAPF32.slice(logits >> 2, (logits >> 2) + headRows * V);
      const result = {
        tokens: Int32Array.from(tokens),
        streamNorms,
        attnNorms,
        mlpNorms,
        finalNorms,
        logits: allLogits.slice(0, logitRows * V),
      };
      if (hiddenStates) Object.assign(result, { hiddenStates: states, finalHidden });
      if (lensAt) result.lens = readLens(allLogits.subarray(logitRows * V), L + 1, V, lensAt);
      return result;
    } finally {
      for (const p of blocks) Module._rl_ckpt_free(p);
    }
  }

  return {
    run,
    dispose() {
      Module._rl_ckpt_release_workspace();
    },
  };
}

function checkTokens(ids, V) {
  if (!(Array.isArray(ids) || ArrayBuffer.isView(ids)))
    throw new ResidualLabError('the input must be a list of token ids (or a text, with tokenizer.json)', {
      code: 'invalid_input',
    });
  if (ids.length === 0) throw new ResidualLabError('the input has no tokens', { code: 'invalid_input' });
  if (ids.length > MAX_TOKENS)
    throw new ResidualLabError(`the input has ${ids.length} tokens; at most ${MAX_TOKENS} are run`, {
      code: 'too_long',
    });
  const tokens = Array.from(ids, Number);
  const bad = tokens.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= V);
  if (bad >= 0)
    throw new ResidualLabError(`token ${bad} is ${ids[bad]}, not an id in 0 .. ${V - 1}`, {
      code: 'invalid_input',
      position: bad,
    });
  return tokens;
}

function checkLens({ k = 10, position } = {}, T, V) {
  const p = position ?? T - 1;
  if (!Number.isInteger(p) || p < 0 || p >= T)
    throw new ResidualLabError(`lens.position must be a position 0 .. ${T - 1}, is ${position}`, {
      code: 'invalid_input',
    });
  if (!Number.isInteger(k) || k < 1 || k > V)
    throw new ResidualLabError(`lens.k must be a whole number 1 .. ${V}, is ${k}`, { code: 'invalid_input' });
  return { k, position: p };
}

/** For each state i (0 = the embedding, L = after the last layer): its top-k ids, logits and probabilities. */
function readLens(logits, rows, V, { k, position }) {
  const layers = [];
  for (let i = 0; i < rows; i++) {
    const row = logits.subarray(i * V, (i + 1) * V);
    let max = -Infinity;
    for (const v of row) max = Math.max(max, v);
    let sum = 0;
    for (const v of row) sum += Math.exp(v - max);
    const order = topK(row, k);
    layers.push({
      state: i,
      ids: Int32Array.from(order),
      logits: Float32Array.from(order, (j) => row[j]),
      probs: Float32Array.from(order, (j) => Math.exp(row[j] - max) / sum),
    });
  }
  return { position, k, layers };
}

function topK(row, k) {
  const best = []; // indices, kept sorted by descending value (ties: lower id first)
  for (let j = 0; j < row.length; j++) {
    if (best.length === k && row[j] <= row[best[k - 1]]) continue;
    let at = best.length;
    while (at > 0 && row[best[at - 1]] < row[j]) at--;
    best.splice(at, 0, j);
    if (best.length > k) best.pop();
  }
  return best;
}
