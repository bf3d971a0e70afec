// The WASM heap blocks of one forward run (runner.js) and what a layer reports into them when asked; each block
// named for the memory budget's refusal.

/**
 * A run's heap blocks: the stream x, one layer's weights (split: its norms and biases alone), the staging block,
 * a head chunk, the layer's settings (spec, slots, inverse frequencies, the two branch norms' rows, the final
 * norm's gain, the head's panel), the stream after the final norm, the head's input rows and their logits.
 */
export function runBlocks(alloc, { T, d, V, layout, w, pool, headRows }) {
  const specFloats = Math.ceil(layout.spec.floats / 4) * 4;
  const slotWords = 2 * layout.slots.length;
  const x = alloc(T * d * 4, 'the residual stream');
  const layer = alloc(pool ? w.smallLayerBytes : w.layerBytes, "one layer's weights");
  const staging = alloc(w.stagingBytes, "the copy of one tensor's bytes");
  const chunk = alloc(w.chunkRows * w.headRowBytes, 'a chunk of the output head');
  const settings = alloc((specFloats + slotWords + d + 2 * T + d + layout.panelRows * d) * 4, "the layer's settings");
  const spec = settings,
    slots = spec + specFloats * 4,
    freq = slots + slotWords * 4,
    norms = freq + d * 4,
    gain = norms + 2 * T * 4,
    panel = gain + d * 4;
  const final = alloc(T * d * 4, 'the stream after the final norm');
  const headIn = alloc(Math.max(1, headRows) * d * 4, 'the rows read through the output head');
  const logits = alloc(Math.max(1, headRows) * V * 4, 'the logits');
  return { x, layer, staging, chunk, spec, slots, freq, norms, gain, panel, final, headIn, logits };
}

/** What the layer reports when asked (LayerObservations in forward.hpp): head stats, norm inputs, mid norms. */
export function observationBlocks(alloc, wanted, { T, H, headStats }) {
  const observing = wanted.has('attnScores') || wanted.has('normInputs') || wanted.has('residMid');
  const obs = observing ? alloc((headStats * H + 7 * T + 4) * 4, 'the observations of a layer') : 0;
  return {
    heads: wanted.has('attnScores') ? obs : 0,
    norms: wanted.has('normInputs') ? obs + headStats * H * 4 : 0,
    mid: wanted.has('residMid') ? obs + (headStats * H + 6 * T) * 4 : 0,
  };
}

export function collectedLists(wanted, L) {
  const collected = {};
  for (const name of ['attnScores', 'normInputs', 'residMid'])
    if (wanted.has(name)) collected[name] = Array(L).fill(null);
  return collected;
}

export function keepObservations(Module, obs, collected, i, { T, H, headStats }) {
  const rows = (p, n) => Module.HEAPF32.slice(p >> 2, (p >> 2) + n);
  if (obs.heads) collected.attnScores[i] = rows(obs.heads, headStats * H);
  if (obs.norms) collected.normInputs[i] = rows(obs.norms, 6 * T);
  if (obs.mid) collected.residMid[i] = rows(obs.mid, T);
}
