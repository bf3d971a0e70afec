// The probe's e2e helpers: waiting for <rl-checkpoint-probe> to settle, and what it draws, read from the page,
// beside what it should draw, computed by the API in node for the same files and prompt: the stream's and final
// norm's readouts at the last position, position 0's stream norm, the logit lens's top 3 per state and, where
// asked, the norm-weights table. Also the reader's two ways to give it a model: files picked in its file input,
// and its "fetch a model" panel pointed at a Hub.
import assert from 'node:assert/strict';
import { formatFixed } from '../../web/components/shared/format.js';
import { eventually, textOf } from './widget-helpers.mjs';

const LENS_K = 3; // the widget's lens table: top 3 per state
const shown = (text) => text.replace(/\n/g, '↵').replace(/ /g, '␣');

/** The probe's status once a run ends: 'done' or 'error'. */
export const probeSettled = (widget, what, timeout = 60000) =>
  eventually(
    () => widget.getAttribute('data-status'),
    (status) => status === 'done' || status === 'error',
    what,
    timeout,
  );

/** Waits for the probe's run and asserts it computed (the message carries the probe's error, if any). */
export async function probeDone(widget, what, timeout = 60000) {
  const status = await probeSettled(widget, what, timeout);
  if (status !== 'done') assert.equal(status, 'done', `${what}: ${await textOf(widget.locator('.run-error'))}`);
}

/** A tokenizer.json's vocabulary as id -> token. */
export const vocabNames = (tokenizerJson) =>
  new Map(Object.entries(JSON.parse(tokenizerJson).model.vocab).map(([t, id]) => [id, t]));

/** The readouts for `files` and `prompt` (a text, or token ids); `names`: the vocabulary's tokens by id. */
export async function expectedReadouts(api, files, prompt, names = new Map(), { weights = false } = {}) {
  const ckpt = await api.openCheckpoint(files);
  try {
    const T = Array.isArray(prompt) ? prompt.length : ckpt.tokenize(prompt).length;
    const r = await ckpt.run(prompt, { lens: { k: LENS_K, position: T - 1 } });
    const last = (norms) => formatFixed(norms[T - 1], 3);
    const readouts = {
      stream: [last(r.streamNorms[0]), last(r.streamNorms.at(-1))],
      final: last(r.finalNorms),
      zero: formatFixed(r.streamNorms.at(-1)[0], 3),
      lens: r.lens.layers.map((layer) =>
        Array.from(layer.ids, (id, j) => `${shown(names.get(id) ?? `#${id}`)} ${formatFixed(layer.probs[j], 3)}`),
      ),
    };
    if (weights)
      readouts.weights = (await ckpt.normWeights()).map((w) => [
        w.name,
        formatFixed(w.mean, 4),
        formatFixed(w.std, 4),
        formatFixed(w.min, 4),
        formatFixed(w.max, 4),
      ]);
    return readouts;
  } finally {
    ckpt.dispose();
  }
}

/** The same readouts as the widget shows them. */
export async function drawnReadouts(widget, { weights = false } = {}) {
  const numbers = async (name) => (await textOf(widget.locator(`[data-readout="${name}"]`))).match(/\d+\.\d{3}/g);
  const readouts = {
    stream: await numbers('stream'),
    final: (await numbers('final'))[1],
    zero: (await numbers('zero'))[0],
    lens: await widget
      .locator('table.logit-lens tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim()))),
  };
  if (weights)
    readouts.weights = await widget
      .locator('table.norm-weights tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  return readouts;
}

/** Files ({ name: content }) as setInputFiles takes them; `edit(name, buffer)` may change a file's bytes. */
export const asInputFiles = (files, edit = (name, buffer) => buffer) =>
  Object.entries(files).map(([name, content]) => ({
    name,
    mimeType: 'application/octet-stream',
    buffer: edit(name, Buffer.from(content)),
  }));

/** Picks `files` ({ name: content }, or paths) in the probe's file input. */
export const pickFiles = (widget, files) =>
  widget.locator('input[type=file]').setInputFiles(Array.isArray(files) ? files : asInputFiles(files));

/** Opens the probe's fetch panel (if closed) with `endpoint` as a custom host. */
export async function openFetchPanel(widget, endpoint) {
  const panel = widget.locator('.fetch-panel');
  if (!(await panel.evaluate((details) => details.open))) await panel.locator('summary').click();
  await widget.locator('#field-host').selectOption('custom');
  await widget.locator('#field-endpoint').fill(endpoint);
}
