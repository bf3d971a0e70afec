// What <rl-checkpoint-probe> computes, apart from its view (view.js) and its settings (state.js): a model opened in
// the lab worker (a shipped toy, ../shared/toys.js, or the reader's files read with progress), the tokens of a
// prompt, and one run of the checkpoint handle turned into the rows the widget draws.
import { fetchToy } from '../shared/toys.js';
import { gatherFiles } from '../shared/model-files.js';
import { configOf, seedOf } from './seed.js';

export { defaultIds, tokenIds } from '../shared/model-files.js';

/** Tokens per layer in the logit lens table. */
export const LENS_K = 3;

/**
 * Opens `source` (a toy's name, or the reader's File objects) in the lab worker `worker`: its files fetched or read
 * (onProgress(bytesDone, bytesTotal | 0)), then lab.openCheckpoint there (onOpening() just before). Resolves to the
 * model open: { source, handle, name, characters, hasTokenizer, vocabSize, context, seed (the published
 * measurement of its shape among `seeds`, or null), dtypes }; or to null, its handle disposed, once `current()`
 * says a newer request has taken over.
 */
export async function openModel(worker, source, { seeds, onProgress, onOpening, current }) {
  const files = typeof source === 'string' ? await fetchToy(source, onProgress) : await gatherFiles(source, onProgress);
  if (!current()) return null;
  onOpening();
  const handle = await worker.call('openCheckpoint', [files]);
  if (!current()) {
    handle.dispose().catch(() => {});
    return null;
  }
  // a GGUF alone carries its tokenizer: the lab rebuilt it as a tokenizer.json, which names the tokens here
  const built = handle.tokenizer === 'gguf' ? await handle.tokenizerJson() : null;
  if (!current()) {
    handle.dispose().catch(() => {});
    return null;
  }
  const config = configOf(files);
  return {
    source,
    handle,
    ...readTokenizer(files, built),
    hasTokenizer: handle.tokenizer !== null,
    vocabSize: config?.vocab_size,
    context: config?.max_position_embeddings,
    seed: seedOf(config, seeds),
    dtypes: [...new Set(handle.tensors.map((t) => t.dtype))],
  };
}

// GPT-2's byte-level alphabet (bytes_to_unicode): the character a byte-level vocabulary writes for each byte.
// Printable bytes stand for themselves; the others are shifted past 255 in byte order.
export const BYTE_ALPHABET = (() => {
  const printable = (b) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  let shifted = 0;
  return Array.from({ length: 256 }, (_, b) => String.fromCharCode(printable(b) ? b : 256 + shifted++));
})();
const BYTE_OF = new Map(BYTE_ALPHABET.map((ch, b) => [ch, b]));

/** A byte-level token's text as UTF-8 ("ï¼Ł" -> "？"); the token itself where its bytes are not whole characters. */
function byteLevelText(token) {
  const bytes = [...token].map((ch) => BYTE_OF.get(ch));
  if (bytes.some((b) => b === undefined)) return token;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return token;
  }
}

const isByteLevel = (decoder) =>
  decoder?.type === 'ByteLevel' || (decoder?.type === 'Sequence' && decoder.decoders?.some(isByteLevel));

/**
 * What the probe reads from tokenizer.json: `name`, id -> the token's text, from model.vocab (BPE, WordPiece,
 * WordLevel keep {token: id}), decoded from the byte-level alphabet where the tokenizer's decoder is ByteLevel
 * (GPT-2, Llama 3, Qwen), ids it does not name shown as #id; and `characters`, the set of characters a
 * character-level vocabulary holds (every token one character, no normalizer, pre-tokenizer, unknown token or
 * byte fallback: the toys' tokenizers), whose encoder drops any other character without a word; null for any
 * other tokenizer. Without a usable tokenizer.json every id shows as #id. `json`: a tokenizer.json already parsed
 * (the one the lab rebuilt from a GGUF), read in place of the files'.
 */
export function readTokenizer(files, json = null) {
  const names = new Map();
  let characters = null;
  try {
    const bytes = files['tokenizer.json'];
    json ??= bytes && JSON.parse(typeof bytes === 'string' ? bytes : new TextDecoder().decode(bytes));
    const model = json?.model;
    const vocab = model?.vocab;
    const text = isByteLevel(json?.decoder) ? byteLevelText : (token) => token;
    if (vocab && !Array.isArray(vocab)) for (const [token, id] of Object.entries(vocab)) names.set(id, text(token));
    if (Array.isArray(vocab)) vocab.forEach((entry, id) => names.set(id, Array.isArray(entry) ? entry[0] : entry)); // Unigram: [[token, score]]
    const plain = json && !json.normalizer && !json.pre_tokenizer && !model?.unk_token && !model?.byte_fallback;
    if (plain && vocab && !Array.isArray(vocab) && Object.keys(vocab).every((token) => [...token].length === 1))
      characters = new Set(Object.keys(vocab));
  } catch {
    names.clear(); // the lab reports a broken tokenizer.json itself when it is needed
    characters = null;
  }
  return { name: (id) => (names.has(id) ? names.get(id) : `#${id}`), characters };
}

/** The distinct characters of `text` that are not in `characters` (readTokenizer's), in order of appearance. */
export const unknownCharacters = (characters, text) =>
  characters ? [...new Set(text)].filter((ch) => !characters.has(ch)) : [];

/** A token's text as the tables show it: line breaks and spaces made visible. */
export const shownToken = (text) => text.replace(/\s/g, (c) => ({ '\n': '↵', '\t': '⇥', '\r': '␍' })[c] ?? '␣');

/**
 * The numbers of one run, per layer: `run` is handle.run(ids, { lens }), `weights` handle.normWeights(), `name`
 * the id -> text map. Stream points i = 0 .. L (0: the embedding, i: after layer i - 1); the increments per layer.
 */
export function probeRows(run, weights, name) {
  const position = run.lens.position;
  const at = (array) => array[position];
  const L = run.attnNorms.length;
  return {
    position,
    tokens: Array.from(run.tokens, (id) => name(id)),
    streamAt: run.streamNorms.map(at),
    streamAtZero: run.streamNorms.map((norms) => norms[0]),
    attnAt: run.attnNorms.map(at),
    mlpAt: run.mlpNorms.map(at),
    finalAt: at(run.finalNorms),
    layers: L,
    lens: run.lens.layers.map((layer) => ({
      state: layer.state,
      tokens: Array.from(layer.ids, (id, j) => ({ text: name(id), prob: layer.probs[j] })),
    })),
    // Gemma's (1 + w): the statistics of the multiplier the model applies (a GGUF stores it already: `stored`)
    weights: weights.map((w) => {
      const { mean, std, min, max } = w.multiplier ?? w;
      const stored = w.storedOffset === 1;
      return { name: w.name, onePlus: Boolean(w.multiplier) && !stored, stored, mean, std, min, max };
    }),
  };
}
