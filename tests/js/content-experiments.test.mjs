// The chapter's "try it on a model" lines: each number they state about a shipped toy is the one the probe's
// experiment computes on that toy (lab.openCheckpoint, the toy's files and probe window, as the probe runs them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from '../../dist/lib/residual-lab.js';
import { toyWindow } from '../../web/components/checkpoint-probe/compute.js';
import { record, toyFiles } from '../fixtures/toys.mjs';
import { LANGUAGES } from '../../web/languages.js';

const chapter = (lang) => readFileSync(new URL(`../../content/${lang}/chapter.md`, import.meta.url), 'utf8');
const lineWith = (text, link) => text.split('\n').find((l) => l.includes(link));

// The layer-drop line's phrases in each language: the layers that keep the top token, of how many, the costliest.
const DROP_LAYERS_PHRASES = {
  en: ({ L, kept, worst }) => [
    `survives dropping ${kept} of its ${L} layers`,
    `On the ${L}-layer toy Llama`,
    `dropping layer ${worst} costs the most`,
  ],
  zh: ({ L, kept, worst }) => [
    `去掉 ${L} 层中的 ${kept} 层时排第一的 token 不变`,
    `在 ${L} 层的玩具 Llama 上`,
    `去掉第 ${worst} 层代价最大`,
  ],
};

test('the layer-drop line: how many of the toy Llama’s layers keep the top token, and the costliest', async () => {
  const api = await load();
  const toy = record.toys.find((t) => t.name === 'toy-llama');
  const ckpt = await api.openCheckpoint(toyFiles(toy));
  try {
    const sweep = await ckpt.experiment('dropLayers', ckpt.tokenize(toyWindow(toy)));
    const L = sweep.layers.length;
    const kept = sweep.layers.filter((l) => l.topSurvives).length;
    const worst = sweep.layers.reduce((a, b) => (b.kl > a.kl ? b : a)).layer;
    for (const { code } of LANGUAGES) {
      assert.ok(DROP_LAYERS_PHRASES[code], `${code}: no phrases of the layer-drop line`);
      const line = lineWith(chapter(code), '?probe.experiment=dropLayers');
      for (const phrase of DROP_LAYERS_PHRASES[code]({ L, kept, worst })) assert.ok(line.includes(phrase), line);
    }
  } finally {
    ckpt.dispose();
  }
});
