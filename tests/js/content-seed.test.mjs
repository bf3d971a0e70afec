// The chapter's Qwen2.5-0.5B-Instruct measurement has one home, content/measurements.js, which
// <rl-checkpoint-probe> sets beside a reader's run: both languages' chapter text states exactly its numbers.
//   node --test tests/js/content-seed.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { QWEN_SEED } from '../../content/measurements.js';
import { LANGUAGES } from '../../web/languages.js';

/** The residual-stream section of the chapter in `lang`. */
function section(lang) {
  const text = readFileSync(new URL(`../../content/${lang}/chapter.md`, import.meta.url), 'utf8');
  const start = text.indexOf('{#residual-stream}');
  assert.ok(start > 0, `${lang}: the residual-stream section`);
  return text.slice(start, text.indexOf('\n## ', start));
}

// What each language says at each point, a number's place marked by ([\d.]+) (named where languages order them
// differently).
const PHRASES = {
  en: {
    setting:
      /Qwen2\.5-0\.5B-Instruct, ([\d.]+) layers, hidden size ([\d.]+), run on a local CPU in (FP32)\. The prompt is the same, (\S+),/,
    embedding: /the embedding: only ([\d.]+);/,
    afterLayer0: /after layer 0 \(layers counted from 0\): ([\d.]+);/,
    middle: /a slow climb to ([\d.]+)-([\d.]+);/,
    peak: /reaching (?<norm>[\d.]+) after layer (?<layer>[\d.]+);/,
    last: /after the final layer: back down to ([\d.]+)\./,
    increments:
      /mostly between ([\d.]+) and ([\d.]+); only the FFN of the last layer writes something as large as ([\d.]+)\./,
  },
  zh: {
    setting: /Qwen2\.5-0\.5B-Instruct，([\d.]+) 层，隐藏维度 ([\d.]+)，在本机 CPU 上用 (FP32) 运行。输入“([^”]+)”/,
    embedding: /词嵌入：只有 ([\d.]+)；/,
    afterLayer0: /第 0 层（层号从 0 开始）之后：([\d.]+)；/,
    middle: /慢慢涨到 ([\d.]+) 到 ([\d.]+) 之间；/,
    peak: /第 (?<layer>[\d.]+) 层之后达到 (?<norm>[\d.]+)；/,
    last: /最后一层之后：回落到 ([\d.]+)。/,
    increments: /多数在 ([\d.]+) 到 ([\d.]+) 之间，唯一的大块头是最后一层的 FFN，达到 ([\d.]+)。/,
  },
};

test('every language has its phrases of the measurement', () => {
  assert.deepEqual(Object.keys(PHRASES).sort(), LANGUAGES.map((row) => row.code).sort());
});

for (const { code: lang } of LANGUAGES) {
  test(`${lang}: the chapter states the measurement the probe sets beside the reader's`, () => {
    const text = section(lang);
    const read = (name) => {
      const match = PHRASES[lang]?.[name].exec(text);
      assert.ok(match, `${lang}: the ${name} sentence`);
      return match.slice(1).map((v) => (/^[\d.]+$/.test(v) ? Number(v) : v));
    };
    const s = QWEN_SEED;
    assert.deepEqual(read('setting'), [s.config.num_hidden_layers, s.config.hidden_size, s.precision, s.prompt]);
    assert.ok(text.includes(s.model));
    assert.deepEqual(read('embedding'), [s.embedding]);
    assert.deepEqual(read('afterLayer0'), [s.afterLayer0]);
    assert.deepEqual(read('middle'), s.middle);
    const peak = PHRASES[lang].peak.exec(text);
    assert.ok(peak, `${lang}: the peak sentence`);
    const { norm, layer } = peak.groups;
    assert.deepEqual([Number(norm), Number(layer)], [s.peak.norm, s.peak.layer]);
    assert.deepEqual(read('last'), [s.last]);
    assert.deepEqual(read('increments'), [...s.increments, s.lastFfn]);
    // the paragraph that introduces the probe says it sets this measurement beside the reader's
    const probe = text.slice(0, text.indexOf('<rl-checkpoint-probe>')).split('\n\n').at(-2);
    assert.ok(probe.includes(s.model), `${lang}: the probe's paragraph names ${s.model}`);
  });
}
