// The trained toys the lab ships (web/models/, `npm run train-toys`), which <rl-checkpoint-probe> opens by default
// and <rl-residual-growth> reads for its trained stream. Their files are found relative to this module, so the site
// build serves them (scripts/lib/site-assets.mjs) and the offline file inlines them (scripts/offline.mjs).
import record from '../../models/toys.json' with { type: 'json' };

/** The shipped toys, as `npm run train-toys` recorded them (name, modelType, probeText, engineConfig, ...). */
export const TOYS = record.toys;
export const TOY_NAMES = TOYS.map((toy) => toy.name);
export const toyOf = (name) => TOYS.find((toy) => toy.name === name);

/**
 * The text a toy reads: the first contextLength characters of its probe text (one character, one token). The
 * probe text holds one more, the last input's target, over which its recorded probeLoss is taken; the toy was
 * trained on windows of contextLength characters, and a 65th position is one it never saw.
 */
export const toyWindow = (toy) => toy.probeText.slice(0, toy.engineConfig.contextLength);

const TOY_FILES = ['config.json', 'model.safetensors', 'tokenizer.json'];

/** A toy's files as { name: ArrayBuffer }; onProgress(bytesDone, bytesTotal | 0) as they arrive. */
export async function fetchToy(name, onProgress) {
  const files = {};
  let done = 0;
  for (const file of TOY_FILES) {
    const path = `${name}/${file}`;
    const response = await fetch(new URL(`../../models/${path}`, import.meta.url));
    if (!response.ok) throw Object.assign(new Error(`${path}: HTTP ${response.status}`), { code: 'missing_file' });
    files[file] = await response.arrayBuffer();
    done += files[file].byteLength;
    onProgress(done, 0);
  }
  return files;
}
