// What <rl-gradient-flow> measures on a model: a shipped toy, the reader's files or a model stored from the Hub,
// opened in the lab worker, and one ckpt.gradients over its text; the per-layer figures the widget draws and the
// chapter quotes (tests/js/content-experiments.test.mjs reads them through gradientSummary).
import { fetchToy, toyOf, toyWindow } from '../shared/toys.js';
import { defaultIds, gatherFiles, tokenIds } from '../shared/model-files.js';
import { fetchCheckpoint } from '../../lib/hub/fetch.js';

/** ||G||_F of a T x d gradient from its per-position norms n_t: sqrt(sum_t n_t^2). */
export const frobenius = (norms) => Math.sqrt(norms.reduce((sum, n) => sum + n * n, 0));

/**
 * The figures of one ckpt.gradients result: at each stream point i = 0 .. L (h_0 the embedding, h_L the stream
 * before the final norm), the gradient over all positions relative to the top's, ||dL/dh_i||_F / ||dL/dh_L||_F,
 * with the skips (`stream`) and with every skip above h_i removed from the backward pass (`branchOnly`); each
 * sublayer's branch gain ||J_f^T g|| / ||g|| (`gains`, { attn, mlp } per layer).
 */
export function gradientSummary(result) {
  const layers = result.branchGains.length;
  const top = frobenius(result.streamGrads[layers]);
  return {
    layers,
    loss: result.loss,
    stream: result.streamGrads.map((g) => frobenius(g) / top),
    branchOnly: result.branchOnly.map((g) => frobenius(g) / top),
    gains: result.branchGains.map(({ attn, mlp }) => ({ attn, mlp })),
  };
}

/**
 * The files of `source`: { toy: name } (fetched from the site), { files: File[] } (the reader's) or { stored:
 * { repo, endpoint } } (this browser's copy of a Hub model, lab.fetchCheckpoint finds it without a download).
 * onProgress(bytesDone, bytesTotal | 0).
 */
export async function sourceFiles(source, onProgress) {
  if (source.toy) return fetchToy(source.toy, onProgress);
  if (source.files) return gatherFiles(source.files, onProgress);
  const got = await fetchCheckpoint(source.stored.repo, {
    endpoint: source.stored.endpoint,
    onProgress: ({ loaded, total }) => onProgress(loaded, total),
  });
  return gatherFiles(Object.values(got.files), onProgress);
}

/**
 * The token ids a model's gradients are taken over: a toy's probe window (the text it was trained on), else the
 * page's prompt `prompt` through the model's tokenizer.json or a GGUF's own tokenizer, else (no tokenizer the lab
 * reads) the first ids of its vocabulary.
 */
export async function sourceIds(handle, source, files, prompt) {
  if (source.toy) return handle.tokenize(toyWindow(toyOf(source.toy)));
  if ('tokenizer.json' in files) return handle.tokenize(prompt);
  if (handle.format === 'gguf')
    try {
      return await handle.tokenize(prompt);
    } catch {
      // a GGUF whose tokenizer the lab does not rebuild (SentencePiece): the vocabulary's first ids, as below
    }
  const config = handle.config.text_config ?? handle.config;
  return tokenIds(defaultIds(config.vocab_size));
}
