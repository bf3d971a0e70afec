// The tokenizer a GGUF carries (tokenizer.ggml.* in gguf-py/gguf/constants.py), rebuilt as the tokenizer.json
// @huggingface/tokenizers reads, so the ids are those the model's own tokenizer.json gives. Two models:
//   "gpt2": byte-level BPE (Qwen 2/2.5/3, Llama 3): tokens by id, merges in rank order, the pre-tokenizer llama.cpp
//     names in tokenizer.ggml.pre (the split regexes are llama.cpp's llama-vocab.cpp and the models' tokenizer.json)
//   "llama": SentencePiece BPE (Gemma, Llama 2, Mistral): spaces as "▁", merges ordered by the merged piece's score
//     (llama.cpp's llm_tokenizer_spm merges the adjacent pair whose piece scores highest, as
//     transformers' SentencePieceExtractor orders a tokenizer.json's merges), characters outside the vocabulary as
//     their UTF-8 bytes <0xNN>
// Control, user-defined and unknown tokens are added tokens (matched in the text first, as llama.cpp's
// tokenizer_st_partition does); <bos> is prepended where tokenizer.ggml.add_bos_token says, else by llama.cpp's
// default for the model and pre-tokenizer. Any other model or pre-tokenizer gives { unsupported } naming the key.
import { ResidualLabError } from '../errors.js';

const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 };
const SPACE = '\u2581'; // SentencePiece's space, "▁"

// tokenizer.ggml.pre -> the split regex, whether text is NFC-normalized first, whether a word in the vocabulary is
// taken whole before any merge (llama.cpp's ignore_merges), and whether <bos> is added when the file does not say.
const PRE_TOKENIZERS = {
  qwen2: {
    regex:
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    nfc: true,
    ignoreMerges: false,
    addBos: false,
  },
  'llama-bpe': {
    regex:
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    nfc: false,
    ignoreMerges: true,
    addBos: true,
  },
};
const BYTE_LEVEL = { add_prefix_space: false, trim_offsets: false, use_regex: false };

const keyError = (message) => new ResidualLabError(message, { code: 'invalid_gguf_key' });
const strings = (value) => Array.isArray(value) && value.every((s) => typeof s === 'string');

/** The tokenizer.json (an object) of a GGUF header's key/values; null without one, { unsupported: why } where none is built. */
export function ggufTokenizerJson(header) {
  const kv = header.kv;
  const model = kv.get('tokenizer.ggml.model');
  if (model === undefined) return null;
  if (model !== 'gpt2' && model !== 'llama') return { unsupported: `tokenizer.ggml.model ${JSON.stringify(model)}` };
  const preName = kv.get('tokenizer.ggml.pre') ?? 'default';
  const pre = model === 'gpt2' ? PRE_TOKENIZERS[preName] : null;
  if (model === 'gpt2' && !pre) return { unsupported: `tokenizer.ggml.pre ${JSON.stringify(preName)}` };
  const tokens = kv.get('tokenizer.ggml.tokens'),
    types = kv.get('tokenizer.ggml.token_type') ?? [];
  if (!strings(tokens)) throw keyError('tokenizer.ggml.tokens must be an array of strings');
  if (!Array.isArray(types)) throw keyError('tokenizer.ggml.token_type must be an array of integers');
  const flag = (key, fallback) => {
    const value = kv.get(key) ?? fallback;
    if (typeof value !== 'boolean') throw keyError(`${key} must be a bool`);
    return value;
  };
  const tokenId = (key) => {
    const id = kv.get(key);
    if (id === undefined) return null;
    if (!Number.isInteger(id) || id < 0 || id >= tokens.length)
      throw keyError(`${key} must be a token id below ${tokens.length}, is ${id}`);
    return id;
  };
  const added = [];
  tokens.forEach((content, id) => {
    const type = types[id];
    if (type === TOKEN_TYPE.control || type === TOKEN_TYPE.userDefined || type === TOKEN_TYPE.unknown)
      added.push({
        id,
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: type !== TOKEN_TYPE.userDefined,
      });
  });
  // llama.cpp adds <bos> by default for SentencePiece and for the pre-tokenizers that say so
  const bos = flag('tokenizer.ggml.add_bos_token', model === 'llama' || pre.addBos)
    ? tokenId('tokenizer.ggml.bos_token_id')
    : null;
  const eos = flag('tokenizer.ggml.add_eos_token', false) ? tokenId('tokenizer.ggml.eos_token_id') : null;
  const template = templateProcessing(tokens, bos, eos);
  const vocab = Object.fromEntries(tokens.map((t, id) => [t, id]));
  const common = { version: '1.0', truncation: null, padding: null, added_tokens: added };
  if (model === 'llama')
    return { ...common, ...sentencePiece(kv, tokens, types, vocab, flag, tokenId), post_processor: template };
  const merges = kv.get('tokenizer.ggml.merges');
  if (!strings(merges)) throw keyError('tokenizer.ggml.merges must be an array of strings');
  return {
    ...common,
    normalizer: pre.nfc ? { type: 'NFC' } : null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: pre.regex }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', ...BYTE_LEVEL },
      ],
    },
    post_processor: template
      ? { type: 'Sequence', processors: [{ type: 'ByteLevel', ...BYTE_LEVEL }, template] }
      : { type: 'ByteLevel', ...BYTE_LEVEL },
    decoder: { type: 'ByteLevel', ...BYTE_LEVEL },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: pre.ignoreMerges,
      vocab,
      merges,
    },
  };
}

// <bos> before the text and <eos> after it, where the file asks for them
function templateProcessing(tokens, bos, eos) {
  if (bos === null && eos === null) return null;
  const special = (id) => ({ SpecialToken: { id: tokens[id], type_id: 0 } });
  const ends = [bos, eos].filter((id) => id !== null);
  return {
    type: 'TemplateProcessing',
    single: [
      ...(bos === null ? [] : [special(bos)]),
      { Sequence: { id: 'A', type_id: 0 } },
      ...(eos === null ? [] : [special(eos)]),
    ],
    pair: [
      ...(bos === null ? [] : [special(bos)]),
      { Sequence: { id: 'A', type_id: 0 } },
      { Sequence: { id: 'B', type_id: 1 } },
      ...(eos === null ? [] : [special(eos)]),
    ],
    special_tokens: Object.fromEntries(
      ends.map((id) => [tokens[id], { id: tokens[id], ids: [id], tokens: [tokens[id]] }]),
    ),
  };
}

// SentencePiece BPE: spaces become "▁" (with one before the text where tokenizer.ggml.add_space_prefix, llama.cpp's
// default); a merge a + b is ranked by the score of the piece a + b, highest first, and the splits of one piece by
// the ids of their halves (transformers' SentencePieceExtractor), so the lowest-ranked merge present is the pair
// llama.cpp's tokenizer merges next.
function sentencePiece(kv, tokens, types, vocab, flag, tokenId) {
  const scores = kv.get('tokenizer.ggml.scores');
  if (!Array.isArray(scores) || scores.length !== tokens.length || !scores.every(Number.isFinite))
    throw keyError(`tokenizer.ggml.scores must be ${tokens.length} numbers, one per token`);
  const ids = new Map(tokens.map((t, id) => [t, id])); // a Map: a piece named "constructor" is no object key
  const candidates = [];
  tokens.forEach((piece, id) => {
    const local = [];
    for (let k = 1; k < piece.length; k++) {
      const c = piece.charCodeAt(k);
      if (c >= 0xdc00 && c <= 0xdfff) continue; // the second half of a surrogate pair: not a character boundary
      const left = piece.slice(0, k),
        right = piece.slice(k);
      if (ids.has(left) && ids.has(right)) local.push([left, right]);
    }
    if (local.length > 1) local.sort((a, b) => ids.get(a[0]) - ids.get(b[0]) || ids.get(a[1]) - ids.get(b[1]));
    for (const pair of local) candidates.push({ pair, score: scores[id] });
  });
  candidates.sort((a, b) => b.score - a.score); // stable: equal scores keep the order above
  const unknown = tokenId('tokenizer.ggml.unknown_token_id') ?? types.indexOf(TOKEN_TYPE.unknown);
  const replace = { type: 'Replace', pattern: { String: ' ' }, content: SPACE };
  return {
    normalizer: flag('tokenizer.ggml.add_space_prefix', true)
      ? { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: SPACE }, replace] }
      : replace,
    pre_tokenizer: null,
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: SPACE }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: unknown >= 0 ? tokens[unknown] : null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      ignore_merges: false,
      vocab,
      merges: candidates.map((c) => c.pair),
    },
  };
}
