// A checkpoint run's options, checked before anything is read or reserved: each bad value is refused with a
// ResidualLabError that names the option (docs/checkpoints.md says what each does).
import { ResidualLabError } from '../errors.js';

export const MAX_TOKENS = 4096;
const MAX_VARIANTS = 256; // each holds a stream of its own, T x d
// JS bytes a run may hold at once by default (read buffers not yet copied into the WASM heap): one layer of an
// 8B model in BF16 is 436 MB.
export const DEFAULT_MEMORY_LIMIT = 1 << 30;

const invalid = (message) => new ResidualLabError(message, { code: 'invalid_input' });

/**
 * ids and options of run(), checked, for a model of L layers, width d and V tokens whose norms read normOffset:
 * the tokens, the options with their defaults, and what follows from them: `order` (the layers the run computes),
 * `start` (its first layer), the head's rows (logitRows of the run's own, then lensCount lens states, then the
 * headInputs rows, then one per variant, then lensCount per variant: headRows in all; head.js's headLayout).
 */
export function checkRunOptions(ids, options, { L, d, V, normOffset: modelOffset = 0 }) {
  const tokens = checkTokens(ids, V);
  const T = tokens.length;
  const {
    logits = 'last',
    hiddenStates = false,
    lens = null,
    onProgress = null,
    signal = null,
    memoryLimit = DEFAULT_MEMORY_LIMIT,
    intervene = {},
    collect = [],
    headInputs = null,
    variants = [],
    variantPosition = T - 1,
  } = options ?? {};
  const hooks = checkInterventions(intervene ?? {}, { L, T, d, lens });
  const start = hooks.from?.layer ?? 0;
  const branches = checkVariants(variants ?? [], { L, start, hooks, normOffset: hooks.normOffset ?? modelOffset });
  const wanted = checkCollect(collect ?? []);
  if (!Number.isInteger(variantPosition) || variantPosition < 0 || variantPosition >= T)
    throw invalid(`options.variantPosition must be a position 0 .. ${T - 1}, is ${variantPosition}`);
  // the layers this run computes, in order: from hooks.from.layer on, without the skipped ones
  const order = [];
  for (let i = start; i < L; i++) if (!hooks.skip.has(i)) order.push(i);
  if (logits !== 'last' && logits !== 'all' && logits !== 'none')
    throw invalid(`options.logits must be 'last', 'all' or 'none', is ${JSON.stringify(logits)}`);
  // stream rows of other runs read through this run's final norm and head, after its own rows: a sweep's
  // runs skip the head (logits: 'none') and their last rows share one pass over its V x d weights
  if (
    headInputs !== null &&
    !(headInputs instanceof Float32Array && headInputs.length > 0 && headInputs.length % d === 0)
  )
    throw invalid(`options.headInputs must be a Float32Array of n x d (d = ${d}) stream values`);
  if (onProgress !== null && typeof onProgress !== 'function') throw invalid('options.onProgress must be a function');
  if (!(memoryLimit > 0)) throw invalid(`options.memoryLimit must be a positive number of bytes, is ${memoryLimit}`);
  const lensAt = lens ? checkLens(lens, T, V) : null;
  const logitRows = { all: T, last: 1, none: 0 }[logits];
  const lensCount = lensAt ? L + 1 : 0;
  // each variant: its row at variantPosition, and with a lens its own L + 1 states after all variants' rows
  const headRows = logitRows + lensCount + (headInputs ? headInputs.length / d : 0) + branches.length * (1 + lensCount);
  return {
    tokens,
    T,
    hiddenStates,
    onProgress,
    signal,
    memoryLimit,
    headInputs,
    variantPosition,
    hooks,
    branches,
    wanted,
    order,
    start,
    lensAt,
    logitRows,
    lensCount,
    headRows,
  };
}

/**
 * options.variants, checked: each a list of layers skipped beside the run's own skips, or { skipLayers, normOffset,
 * noFinalNorm } (options.intervene's names; each left out is the run's). A variant follows the run until the first
 * layer where it differs (`at`: its first own skip, the first layer the run computes when its norms read another
 * offset, L when only its final norm differs) and keeps a stream of its own from there. Returns
 * [{ skip: Set, at, normOffset, noFinalNorm }].
 */
function checkVariants(variants, { L, start, hooks, normOffset }) {
  const bad = (message) => new ResidualLabError(`options.variants${message}`, { code: 'invalid_input' });
  if (!Array.isArray(variants) || variants.length > MAX_VARIANTS)
    throw bad(` must be a list of at most ${MAX_VARIANTS} variants (lists of layers to skip, or objects)`);
  const known = ['skipLayers', 'normOffset', 'noFinalNorm'];
  return variants.map((variant, k) => {
    const given = Array.isArray(variant) ? { skipLayers: variant } : variant;
    if (given === null || typeof given !== 'object')
      throw bad(`[${k}] must list layers ${start} .. ${L - 1} to skip, or be { ${known.join(', ')} }`);
    for (const key of Object.keys(given)) if (!known.includes(key)) throw bad(`[${k}].${key} is not one of ${known}`);
    const { skipLayers: layers = [], normOffset: offset = normOffset, noFinalNorm = hooks.noFinalNorm } = given;
    if (!Array.isArray(layers) || !layers.every((l) => Number.isInteger(l) && l >= start && l < L))
      throw bad(`[${k}] must list layers ${start} .. ${L - 1} to skip`);
    if (offset !== 0 && offset !== 1) throw bad(`[${k}].normOffset must be 0 (w) or 1 (1 + w), is ${offset}`);
    if (typeof noFinalNorm !== 'boolean' && noFinalNorm !== 'division')
      throw bad(`[${k}].noFinalNorm must be true, false or 'division', is ${JSON.stringify(noFinalNorm)}`);
    const own = layers.filter((l) => !hooks.skip.has(l));
    let at = own.length ? Math.min(...own) : L;
    if (offset !== normOffset) for (let i = L - 1; i >= start; i--) if (!hooks.skip.has(i)) at = i;
    return { skip: new Set([...hooks.skip, ...layers]), at, normOffset: offset, noFinalNorm };
  });
}

/** What a run may observe (options.collect), each one name; docs/checkpoints.md says what each returns. */
export const COLLECTABLE = Object.freeze(['attnScores', 'normInputs', 'residMid', 'finalSoftcap', 'finalNormBf16']);

function checkCollect(collect) {
  if (!Array.isArray(collect))
    throw new ResidualLabError('options.collect must be a list of names', { code: 'invalid_input' });
  for (const name of collect)
    if (!COLLECTABLE.includes(name))
      throw new ResidualLabError(`options.collect: ${JSON.stringify(name)} is not one of ${COLLECTABLE.join(', ')}`, {
        code: 'invalid_input',
      });
  return new Set(collect);
}

/**
 * options.intervene, checked: { skip: Set of layers whose increments are not added, from: { layer, stream } or
 * undefined (the run starts at that layer from that stream, T x d: a previous run's hiddenStates[layer]),
 * noFinalNorm (true: the whole final norm left out; 'division': its division alone, the gain kept), normOffset
 * (0: every norm multiplies by w; 1: by 1 + w) }.
 */
function checkInterventions(intervene, { L, T, d, lens }) {
  const bad = (message) => new ResidualLabError(`options.intervene.${message}`, { code: 'invalid_input' });
  const known = ['skipLayers', 'from', 'noFinalNorm', 'normOffset'];
  for (const key of Object.keys(intervene))
    if (!known.includes(key)) throw bad(`${key} is not one of ${known.join(', ')}`);
  const { skipLayers = [], from, noFinalNorm = false, normOffset } = intervene;
  if (!Array.isArray(skipLayers) || !skipLayers.every((l) => Number.isInteger(l) && l >= 0 && l < L))
    throw bad(`skipLayers must list layers 0 .. ${L - 1}`);
  if (typeof noFinalNorm !== 'boolean' && noFinalNorm !== 'division')
    throw bad(`noFinalNorm must be true, false or 'division', is ${JSON.stringify(noFinalNorm)}`);
  if (normOffset !== undefined && normOffset !== 0 && normOffset !== 1)
    throw bad(`normOffset must be 0 (w) or 1 (1 + w), is ${normOffset}`);
  if (from !== undefined) {
    if (!Number.isInteger(from?.layer) || from.layer < 0 || from.layer > L)
      throw bad(`from.layer must be a layer 0 .. ${L}`);
    if (!(from.stream instanceof Float32Array) || from.stream.length !== T * d)
      throw bad(`from.stream must be a Float32Array of T x d = ${T * d} values`);
    if (lens) throw bad('from does not go with a logit lens: the states before from.layer are not computed');
  }
  return { skip: new Set(skipLayers), from, noFinalNorm, normOffset };
}

/** The token ids of an input, checked (a list of 1 .. MAX_TOKENS ids in 0 .. V - 1), as numbers. */
export function checkTokens(ids, V) {
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
