// Names retired so that each thing has one: none may come back in the code, the scripts, the tests or the docs
// (CHANGELOG.md keeps them, as history). Each row: the retired name and the one that replaced it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '../..');
const FOLDERS = ['web', 'wasm', 'scripts', 'tests', 'docs'];
const TEXT = /\.(m?js|cjs|ts|cpp|hpp|h|py|md|html|css|json|txt|cmake|sh)$/;
const MAX_BYTES = 1 << 21; // fixtures' weight files and corpora are data, not names
const SELF = relative(root, import.meta.filename);

export const RETIRED = [
  { name: 'statePrefix', now: "stateKey (a widget instance's state key)" },
  { name: 'embedName', now: "widgetName (a widget's folder and embed name)" },
  { name: 'widgetFolder', now: 'widgetName' },
  { name: 'toyDecoderConfig', now: "decoderConfig (the lab's decoder; the toys are the trained checkpoints)" },
  { name: 'read_spec', now: 'read_layer_spec (wasm/src/checkpoint/layout.hpp)' },
  { name: 'checkpoint::Placement', now: "checkpoint::HfPlacement (decoder::Placement is the lab's decoder's)" },
  ...['rl_ckpt_norm', 'rl_ckpt_norm_bf16', 'rl_ckpt_norm_backward'].map((name) => ({
    name,
    now: `${name.replace('norm', 'rmsnorm')} (a norm alone is a magnitude, as in rl_ckpt_row_norms)`,
  })),
  { name: 'RL_LAYERS', now: "RL_TIERS (a C++ library tier; a layer is a transformer's)" },
  ...['rl_ckpt_error_message', 'rl_ckpt_error_code'].map((name) => ({
    name,
    now: `${name.replace('ckpt_', '')} (one error record for every raw export, bindings/common.hpp)`,
  })),
  ...['set_error', 'error_result'].map((name) => ({ name, now: 'result() in wasm/bindings/common.hpp' })),
  // JS copies of the checkpoint's C++ layout: the JS reads it from the module (describeCheckpointLayout)
  ...['QK_NORMS', 'ACTIVATIONS', 'DTYPE_CODES', 'ROW_ALIGN'].map((name) => ({
    name,
    now: 'checkpointLayout(Module) (web/lib/checkpoint/layout.js)',
  })),
  // the chapter's claims on a checkpoint; "experiments" are the lab's (lab.experiments, wasm/src/experiments)
  { name: 'checkpointExperiments', now: 'checkpointClaims' },
  { name: 'EXPERIMENT_OPTIONS', now: 'CLAIM_OPTIONS' },
  { name: 'checkpoint/experiments.js', now: 'checkpoint/claims.js' },
];

function textFiles() {
  return FOLDERS.flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && TEXT.test(entry.name))
      .map((entry) => relative(root, join(entry.parentPath ?? entry.path, entry.name))),
  ).filter((file) => file !== SELF && !file.endsWith('CHANGELOG.md') && statSync(join(root, file)).size <= MAX_BYTES);
}

/** `file:line: name (now: ...)` for every use of a retired name in `text`. */
export function retiredUses(file, text, retired = RETIRED) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    for (const { name, now } of retired)
      if (new RegExp(`\\b${name}\\b`).test(line)) found.push(`${file}:${i + 1}: ${name} (now: ${now})`);
  });
  return found;
}

test('no retired name in web/, wasm/, scripts/, tests/ or docs/', () => {
  const files = textFiles();
  assert.ok(files.length > 300, `files read: ${files.length}`);
  assert.ok(files.includes('web/lib/models.js') && files.includes('docs/api.md'), 'the code and the docs are read');
  const uses = files.flatMap((file) => retiredUses(file, readFileSync(join(root, file), 'utf8')));
  assert.deepEqual(uses, [], 'retired names in use');
});

test('a retired name is found as a word, not inside a longer one', () => {
  const text = 'const c = toyDecoderConfig(m);\nread_layer_spec(x);\nconst key = this.statePrefixes;\n';
  assert.deepEqual(retiredUses('x.js', text), ['x.js:1: toyDecoderConfig (now: ' + RETIRED[3].now + ')']);
});
