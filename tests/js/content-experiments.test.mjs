// The chapter's "try it on a model" lines: each number they state about a shipped toy is the one the probe's
// experiment computes on that toy (lab.openCheckpoint, the toy's files and probe window, as the probe runs them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from '../../dist/lib/residual-lab.js';
import { toyWindow } from '../../web/components/checkpoint-probe/compute.js';
import { record, toyFiles } from '../fixtures/toys.mjs';

const chapter = (lang) => readFileSync(new URL(`../../content/${lang}/chapter.md`, import.meta.url), 'utf8');
const lineWith = (text, link) => text.split('\n').find((l) => l.includes(link));

test('the layer-drop line: how many of the toy Llama’s layers keep the top token, and the costliest', async () => {
  const api = await load();
  const toy = record.toys.find((t) => t.name === 'toy-llama');
  const ckpt = await api.openCheckpoint(toyFiles(toy));
  try {
    const sweep = await ckpt.experiment('dropLayers', ckpt.tokenize(toyWindow(toy)));
    const L = sweep.layers.length;
    const kept = sweep.layers.filter((l) => l.topSurvives).length;
    const worst = sweep.layers.reduce((a, b) => (b.kl > a.kl ? b : a)).layer;
    const en = lineWith(chapter('en'), '?probe.experiment=dropLayers');
    assert.ok(en.includes(`survives dropping ${kept} of its ${L} layers`), en);
    assert.ok(en.includes(`On the ${L}-layer toy Llama`), en);
    assert.ok(en.includes(`dropping layer ${worst} costs the most`), en);
    const zh = lineWith(chapter('zh'), '?probe.experiment=dropLayers');
    assert.ok(zh.includes(`去掉 ${L} 层中的 ${kept} 层时排第一的 token 不变`), zh);
    assert.ok(zh.includes(`在 ${L} 层的玩具 Llama 上`), zh);
    assert.ok(zh.includes(`去掉第 ${worst} 层代价最大`), zh);
  } finally {
    ckpt.dispose();
  }
});
