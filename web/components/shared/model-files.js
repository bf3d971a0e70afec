// A reader's model as the widgets that open one take it (<rl-checkpoint-probe>, <rl-gradient-flow>): the files
// picked, gathered for lab.openCheckpoint, and the token ids of a checkpoint without tokenizer.json.

/**
 * The reader's files for lab.openCheckpoint: the weights (.safetensors, .gguf) stay File objects, read by range in
 * the worker when a run needs them (a File posted to a worker is a handle to the file on disk, not a copy); the JSON
 * files are read here (the probe reads the config and the tokenizer's vocabulary too). onProgress(bytesDone,
 * bytesTotal) over the JSON files.
 */
export async function gatherFiles(fileList, onProgress) {
  const list = [...fileList];
  const weights = (file) => file.name.endsWith('.safetensors') || file.name.endsWith('.gguf');
  const small = list.filter((file) => !weights(file));
  const total = small.reduce((sum, file) => sum + file.size, 0);
  const files = {};
  let done = 0;
  for (const file of list) {
    if (weights(file)) {
      files[file.name] = file;
      continue;
    }
    files[file.name] = await file.arrayBuffer();
    done += file.size;
    onProgress(done, total);
  }
  return files;
}

/** How many ids the prompt of a checkpoint without tokenizer.json holds by default: 0, 1, ... */
const DEFAULT_IDS = 8;

/** The default prompt without tokenizer.json: the first ids of the vocabulary, "0, 1, 2, 3, 4, 5, 6, 7". */
export const defaultIds = (vocabSize) =>
  Array.from({ length: Math.max(1, Math.min(DEFAULT_IDS, vocabSize || DEFAULT_IDS)) }, (_, i) => i).join(', ');

/** Token ids typed as numbers separated by commas or spaces ("3, 17, 5"), for a checkpoint without tokenizer.json. */
export function tokenIds(text) {
  const parts = text
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean);
  if (!parts.length || parts.some((p) => !/^\d+$/.test(p))) {
    throw Object.assign(new Error('without tokenizer.json the prompt must be token ids, such as 3, 17, 5'), {
      code: 'no_tokenizer',
    });
  }
  return parts.map(Number);
}
