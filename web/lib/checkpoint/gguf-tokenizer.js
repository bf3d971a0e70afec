// The tokenizer a GGUF carries (tokenizer.ggml.* in gguf-py/gguf/constants.py), rebuilt as the tokenizer.json
// @huggingface/tokenizers reads. The gpt2-style byte-level BPE (tokenizer.ggml.model "gpt2": Qwen 2/2.5/3,
// Llama 3) is rebuilt whole: tokens by id, merges in rank order, the pre-tokenizer llama.cpp names in
// tokenizer.ggml.pre (the split regexes are llama.cpp's llama-vocab.cpp and the models' tokenizer.json), control
// and user-defined tokens as added tokens. Other models and pre-tokenizers (Gemma's SentencePiece among them)
// give no tokenizer here: such a model runs on token ids, or on the tokenizer.json given beside the file.
import { ResidualLabError } from '../errors.js';

const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 };

// tokenizer.ggml.pre -> the split regex, and whether text is NFC-normalized first.
const PRE_TOKENIZERS = {
  qwen2: {
    regex:
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    nfc: true,
  },
  'llama-bpe': {
    regex:
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    nfc: false,
  },
};

const BYTE_LEVEL = { add_prefix_space: false, trim_offsets: false, use_regex: false };

/** The tokenizer.json (an object) of a GGUF header's key/values; null without one, { unsupported: why } where none is built. */
export function ggufTokenizerJson(header) {
  const kv = header.kv;
  const model = kv.get('tokenizer.ggml.model');
  if (model === undefined) return null;
  if (model !== 'gpt2') return { unsupported: `tokenizer.ggml.model ${JSON.stringify(model)}` };
  const preName = kv.get('tokenizer.ggml.pre') ?? 'default';
  const pre = PRE_TOKENIZERS[preName];
  if (!pre) return { unsupported: `tokenizer.ggml.pre ${JSON.stringify(preName)}` };
  const tokens = kv.get('tokenizer.ggml.tokens'),
    merges = kv.get('tokenizer.ggml.merges'),
    types = kv.get('tokenizer.ggml.token_type') ?? [];
  const strings = (value) => Array.isArray(value) && value.every((s) => typeof s === 'string');
  if (!strings(tokens) || !strings(merges))
    throw new ResidualLabError('tokenizer.ggml.tokens and tokenizer.ggml.merges must be arrays of strings', {
      code: 'invalid_gguf_key',
    });
  const vocab = Object.fromEntries(tokens.map((t, id) => [t, id]));
  const added = [];
  tokens.forEach((content, id) => {
    if (types[id] === TOKEN_TYPE.control || types[id] === TOKEN_TYPE.userDefined)
      added.push({
        id,
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: types[id] === TOKEN_TYPE.control,
      });
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: pre.nfc ? { type: 'NFC' } : null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: pre.regex }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', ...BYTE_LEVEL },
      ],
    },
    post_processor: { type: 'ByteLevel', ...BYTE_LEVEL },
    decoder: { type: 'ByteLevel', ...BYTE_LEVEL },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
}
