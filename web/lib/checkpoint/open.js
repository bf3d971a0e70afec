// lab.openCheckpoint(files): reads config.json, tokenizer.json and the safetensors headers (one file, or an index
// and its shards), checks every tensor the forward needs against the config (present, dtype run, shape), and
// returns the checkpoint object. The weights stay where they lie (a File on disk, or the caller's bytes): runner.js
// reads each tensor's byte range when a run needs it and copies it into the WASM heap.
import { ResidualLabError } from '../errors.js';
import { parseJson } from '../inspect-config.js';
import { describeModel } from './model.js';
import { fileMap, readText, weightSource, CONFIG_LIMIT } from './files.js';
import { readSafetensorsHeader } from './safetensors.js';
import { checkpointLayout } from './layout.js';
import { createRunner, defaultResidencyBudget } from './runner.js';
import { createGradients } from './gradients.js';
import { defaultWorkers, shardWorker, splitPool } from './shards.js';
import { normWeightStats } from './norm-weights.js';
import { CLAIMS } from './claims.js';
import { isGguf, readGguf, adjustModel } from './gguf-open.js';

const INDEX = 'model.safetensors.index.json';
const SINGLE = 'model.safetensors';
// Where the decoder's tensors sit: text-only checkpoints, and the language model of a multimodal one.
const PREFIXES = ['model.', 'model.language_model.', 'language_model.model.'];

const missing = (code, message) => new ResidualLabError(message, { code });

/**
 * The headers of the weight files: Map(name -> tensor with its `source`); `files` receives [{ source, headerBytes }]
 * of each file opened (to close them if opening fails).
 */
async function readWeights(map, files) {
  const header = async (name) => {
    const source = await weightSource(map.get(name), name);
    const file = { source, headerBytes: null };
    files.push(file);
    const parsed = await readSafetensorsHeader(source, name).catch((error) => {
      throw blobCause(error, map.get(name));
    });
    file.headerBytes = parsed.headerBytes;
    const tensors = new Map();
    for (const [key, t] of parsed.tensors) tensors.set(key, { ...t, source });
    return tensors;
  };
  if (map.has(INDEX)) {
    let index;
    try {
      index = parseJson(await readText(map.get(INDEX), INDEX));
    } catch (error) {
      throw missing('invalid_index', `${INDEX}: ${error.message}`);
    }
    const weightMap = index?.weight_map;
    if (
      !weightMap ||
      typeof weightMap !== 'object' ||
      Array.isArray(weightMap) ||
      Object.values(weightMap).some((v) => typeof v !== 'string')
    ) {
      throw missing('invalid_index', `${INDEX}: weight_map must map tensor names to shard file names`);
    }
    const shards = [...new Set(Object.values(weightMap))];
    const absent = shards.filter((name) => !map.has(name));
    if (absent.length)
      throw missing(
        'missing_shard',
        `${absent.join(', ')} ${absent.length > 1 ? 'are' : 'is'} listed in ${INDEX} but not among the files given`,
      );
    const tensors = new Map();
    for (const shard of shards) {
      for (const [name, tensor] of await header(shard)) {
        if (weightMap[name] !== shard)
          throw missing(
            'invalid_index',
            `${shard} holds ${name}, which ${INDEX} places ${weightMap[name] ? `in ${weightMap[name]}` : 'nowhere'}`,
          );
        tensors.set(name, tensor);
      }
    }
    for (const [name, shard] of Object.entries(weightMap)) {
      if (!tensors.has(name))
        throw missing('missing_tensor', `${INDEX} places ${name} in ${shard}, which does not hold it`);
    }
    return tensors;
  }
  if (map.has(SINGLE)) return header(SINGLE);
  throw missing('missing_file', `no weights: give ${SINGLE}, or ${INDEX} with its shards`);
}

async function readTokenizer(map, builtJson = null) {
  if (!map.has('tokenizer.json') && !builtJson) return null;
  // JSON.parse: tokenizer.json is megabytes, and a position in it would not help a reader
  const parse = async (name) => {
    try {
      return JSON.parse(await readText(map.get(name), name));
    } catch (error) {
      throw error instanceof ResidualLabError
        ? error
        : missing('invalid_tokenizer', `${name} is not valid JSON: ${error.message}`);
    }
  };
  const json = map.has('tokenizer.json') ? await parse('tokenizer.json') : builtJson;
  const config = map.has('tokenizer_config.json') ? await parse('tokenizer_config.json') : {};
  const { Tokenizer } = await import('@huggingface/tokenizers');
  try {
    return new Tokenizer(json, config);
  } catch (error) {
    throw missing('invalid_tokenizer', `tokenizer.json could not be read: ${error.message}`);
  }
}

// node 20's fs.openAsBlob gives a file over 4 GiB the size modulo 2^32 (a 4.98 GB shard reads as 682 MB); a path
// has no such limit.
const GIB4 = 2 ** 32;
const isBlob = (entry) => typeof entry?.slice === 'function' && typeof entry?.size === 'number';
const inNode = () => typeof window === 'undefined' && typeof globalThis.process?.versions?.node === 'string';
/** A truncated weights Blob's error, with the likely cause when the Blob came from node's fs.openAsBlob. */
function blobCause(error, entry) {
  if (error?.code !== 'safetensors_truncated' || !isBlob(entry)) return error;
  const short = error.described - error.size;
  if (short > 0 && short % GIB4 === 0)
    error.message +=
      `: the header describes ${error.described} bytes, exactly ${short / GIB4} x 4 GiB more than this Blob's ` +
      "size, as node's fs.openAsBlob reports a file over 4 GiB (its size modulo 2^32): give the file's path instead";
  else if (inNode())
    error.message +=
      " (a Blob from node's fs.openAsBlob of a file over 4 GiB reports its size modulo 2^32: give the file's path instead)";
  return error;
}

/** Refuses a weights file replaced since it was opened: its header must read back byte for byte. */
async function checkUnchanged(files) {
  for (const { source, headerBytes } of files) {
    const now = await source.read(0, headerBytes.length);
    if (now.some((byte, i) => byte !== headerBytes[i]))
      throw new ResidualLabError(
        `${source.name} is not the file that was opened (its header changed); open the files again`,
        {
          code: 'file_changed',
        },
      );
  }
}

const MAX_WORKERS = 16;

// A checkpoint collected without dispose() still closes its files and ends its workers (node would otherwise warn
// of a FileHandle closed on collection, DEP0137). The callback holds the files and the pool, not the checkpoint.
const collected = new FinalizationRegistry((release) => release());

/**
 * options.workers: how many workers a run is split over (shards.js); default: the cores, up to 4, for files on
 * disk, 1 for bytes in memory (a worker would hold a copy). 1 runs in this thread.
 */
export async function openCheckpoint(Module, files, options = {}) {
  const weightFiles = [];
  if (typeof files === 'string' && files.startsWith('ollama:'))
    files = await (await import('./gguf-ollama.js')).ollamaFiles(files);
  try {
    return await open(Module, fileMap(files), weightFiles, options ?? {});
  } catch (error) {
    for (const { source } of weightFiles) source.close();
    throw error;
  }
}

async function open(Module, map, weightFiles, options) {
  const workers = checkWorkers(options.workers, map);
  const { gguf, model, all, weights, tokenizer, builtTokenizer } = await readCheckpoint(Module, map, weightFiles);
  const shardRows = shardWorker(Module, model, weights);
  const split = workers > 1 ? splitPool(Module, map, workers, () => shardWorker(Module, model, weights)) : null;
  const residencyBudget = checkResidencyBudget(options.residencyBudget ?? defaultResidencyBudget(Module, workers));
  const runner = createRunner(Module, model, weights, () => checkUnchanged(weightFiles), split?.shards ?? null, {
    residencyBudget,
  });
  const gradients = createGradients(Module, model, weights, runner);
  let disposed = false;
  let normStats = null; // normWeights()'s rows, a promise, after its first call
  const live = () => {
    if (disposed) throw new ResidualLabError('this checkpoint was disposed', { code: 'disposed' });
  };
  const registration = {}; // the registry's token: not the checkpoint, which dispose() may be called without
  const release = () => {
    split?.shards.drop();
    for (const { source } of weightFiles) source.close();
  };
  const checkpoint = {
    architecture: model.architecture,
    modelType: model.modelType,
    config: model.inspected,
    tensors: tensorList(all),
    /** 'gguf' or 'safetensors': the weights' format. */
    format: gguf ? 'gguf' : 'safetensors',
    /** What the forward does with this model (the claims read it to say what a model can run). */
    forward: forwardSummary(model),
    /** How many workers a run is split over (1 where workers cannot start). */
    get workers() {
      return split?.workers() ?? workers;
    },
    /** Where `tokenize` finds its tokenizer: 'tokenizer.json', 'gguf' (rebuilt from tokenizer.ggml.*) or null. */
    tokenizer: tokenizer ? (map.has('tokenizer.json') ? 'tokenizer.json' : 'gguf') : null,
    /** The tokenizer.json (an object) rebuilt from the GGUF's tokenizer.ggml.* that `tokenize` uses; else null. */
    tokenizerJson() {
      live();
      return tokenizer && !map.has('tokenizer.json') ? structuredClone(builtTokenizer) : null;
    },
    /** Token ids of `text` (needs tokenizer.json, or a GGUF's own tokenizer). */
    tokenize(text) {
      live();
      return tokenize(tokenizer, gguf, text);
    },
    /** What a run of `tokens` positions costs: bytes read, floating-point operations, memory (runner.js). */
    cost(tokens = 16) {
      live();
      return runner.cost(tokens, { workers: this.workers });
    },
    /**
     * Whether the weights stay in the heaps between runs ('resident': the model fits options.residencyBudget) or
     * are read every run ('streamed'), and what is kept now.
     */
    residency() {
      live();
      return runner.residency();
    },
    async normWeights() {
      live();
      await checkUnchanged(weightFiles);
      // the files are unchanged (checked just above), so their norms' statistics are: read once, then copied
      normStats ??= normWeightStats(weights, model).catch((error) => {
        normStats = null;
        throw error;
      });
      return structuredClone(await normStats);
    },
    /** A worker's share of a split run (shards.js); the run's coordinator calls it. */
    shardRows(call) {
      live();
      return shardRows(call);
    },
    /**
     * One of the chapter's claims run on this checkpoint (claims.js, by its name there), here or in the lab
     * worker holding it; options: the claim's own, onProgress, signal.
     */
    async claim(name, input, options = {}) {
      live();
      const ids = typeof input === 'string' ? this.tokenize(input) : input;
      return claimNamed(name)(this, ids, options ?? {});
    },
    /** A forward pass; options: logits, hiddenStates, lens, onProgress({ layer, layers, bytesRead }), signal. */
    async run(input, options = {}) {
      live();
      const ids = typeof input === 'string' ? this.tokenize(input) : input;
      return runner.run(ids, options);
    },
    /**
     * The loss's gradients through the model (gradients.js): per layer the stream's and the branch-only gradient
     * norms, the branches' gains, every weight's gradient norm; options: target, onProgress, signal, memoryLimit.
     */
    async gradients(input, options = {}) {
      live();
      const ids = typeof input === 'string' ? this.tokenize(input) : input;
      return gradients(ids, options);
    },
    dispose() {
      if (!disposed) {
        collected.unregister(registration);
        runner.dispose();
        release();
      }
      disposed = true;
    },
  };
  collected.register(checkpoint, release, registration);
  return checkpoint;
}

/** options.workers checked, else the default for the weight files of `map`. */
function checkWorkers(workers, map) {
  const weightEntries = [...map]
    .filter(([name]) => name.endsWith('.safetensors') || name.endsWith('.gguf'))
    .map(([, entry]) => entry);
  const count = workers ?? defaultWorkers(weightEntries);
  if (!Number.isInteger(count) || count < 1 || count > MAX_WORKERS)
    throw new ResidualLabError(`options.workers must be a whole number 1 .. ${MAX_WORKERS}, is ${count}`, {
      code: 'invalid_input',
    });
  return count;
}

/**
 * What the files hold: the model (config.json's, or the GGUF's own), every tensor (`all`), the ones the forward
 * reads (`weights`), the tokenizer (tokenizer.json, else the one rebuilt from a GGUF, else null). The weight files
 * opened are pushed on `weightFiles`.
 */
async function readCheckpoint(Module, map, weightFiles) {
  // a GGUF holds its config and tokenizer; safetensors come with config.json (and tokenizer.json)
  const gguf = isGguf(map) ? await readGguf(map, weightFiles) : null;
  if (!gguf && !map.has('config.json'))
    throw missing('missing_file', 'config.json is missing: give it with the weights');
  const model = describeModel(
    gguf ? JSON.stringify(gguf.config) : await readText(map.get('config.json'), 'config.json', CONFIG_LIMIT),
  );
  if (gguf) adjustModel(model, gguf);
  const all = gguf ? gguf.tensors : await readWeights(map, weightFiles);
  const prefix = PREFIXES.find((p) => all.has(`${p}embed_tokens.weight`));
  if (!prefix)
    throw missing('missing_tensor', `the weights hold no ${PREFIXES[0]}embed_tokens.weight (the token embedding)`);
  const weights = matchWeights(Module, model, model.expected(prefix), all);
  const builtTokenizer = gguf?.tokenizerJson?.unsupported ? null : (gguf?.tokenizerJson ?? null);
  const tokenizer = await readTokenizer(map, builtTokenizer);
  return { gguf, model, all, weights, tokenizer, builtTokenizer };
}

/** name -> the tensor the forward reads under that name: its slot and shape (model's), dtype and bytes (the file's). */
function matchWeights(Module, model, expected, all) {
  const weights = new Map();
  for (const [name, want] of expected) {
    const tensor = all.get(name);
    if (!tensor)
      throw missing(
        'missing_tensor',
        `${name} is missing from the weights (a ${model.architecture} checkpoint has it)`,
      );
    if (!Object.hasOwn(checkpointLayout(Module).dtypes, tensor.dtype))
      throw missing('unsupported_dtype', `${name} is ${tensor.dtype}; the lab reads BF16, F16 and F32`);
    if (tensor.shape.length !== want.shape.length || tensor.shape.some((s, i) => s !== want.shape[i])) {
      throw missing('shape_mismatch', `${name} has shape [${tensor.shape}], config.json implies [${want.shape}]`);
    }
    weights.set(name, {
      ...want,
      dtype: tensor.dtype,
      source: tensor.source,
      offset: tensor.offset,
      byteLength: tensor.byteLength,
    });
  }
  return weights;
}

/** What the checkpoint lists of every tensor its files hold. */
const tensorList = (all) =>
  [...all.values()].map((t) => ({
    name: t.name,
    dtype: t.dtype,
    shape: [...t.shape],
    file: t.file,
    ...(t.ggufName ? { ggufName: t.ggufName } : {}),
  }));

function claimNamed(name) {
  if (typeof name !== 'string' || !Object.hasOwn(CLAIMS, name))
    throw new ResidualLabError(`there is no claim ${JSON.stringify(name)} (known: ${Object.keys(CLAIMS).join(', ')})`, {
      code: 'invalid_input',
    });
  return CLAIMS[name];
}

function checkResidencyBudget(residencyBudget) {
  if (!(typeof residencyBudget === 'number' && residencyBudget >= 0))
    throw new ResidualLabError(
      `options.residencyBudget must be a number of bytes, 0 or more (0: read the weights every run), is ${residencyBudget}`,
      { code: 'invalid_input' },
    );
  return residencyBudget;
}

/** Token ids of `text` by the checkpoint's tokenizer (tokenizer.json, or the one a GGUF holds). */
function tokenize(tokenizer, gguf, text) {
  if (!tokenizer)
    throw new ResidualLabError(
      gguf?.tokenizerJson?.unsupported
        ? `the GGUF's tokenizer (${gguf.tokenizerJson.unsupported}) is not one the lab rebuilds; give tokenizer.json beside it, or token ids`
        : 'a text needs tokenizer.json among the files; give token ids instead',
      { code: 'no_tokenizer' },
    );
  if (typeof text !== 'string') throw new ResidualLabError('tokenize takes a string', { code: 'invalid_input' });
  return tokenizer.encode(text).ids;
}

function forwardSummary({ sizes, forward: f }) {
  return {
    layers: sizes.L,
    d: sizes.d,
    heads: sizes.H,
    kvHeads: sizes.KV,
    headDim: sizes.headDim,
    vocab: sizes.V,
    eps: sizes.eps,
    placement: f.placement,
    normOffset: f.normOffset,
    storedNormOffset: f.storedNormOffset ?? 0,
    qkNorm: f.qkNorm,
    attnScale: f.attnScale,
    attnSoftcap: f.attnSoftcap,
    finalSoftcap: f.finalSoftcap,
  };
}
