// lab.openCheckpoint(files): reads config.json and the safetensors weights (one file, or an index and its shards),
// checks every tensor the forward needs against the config (present, dtype run, shape), and returns the
// checkpoint object. Weights stay as the file's bytes in JS memory; runner.js copies them into the WASM heap one
// tensor at a time when a run needs them.
import { ResidualLabError } from '../errors.js';
import { parseJson } from '../inspect-config.js';
import { describeModel } from './model.js';
import { fileMap, readBytes, readText, CONFIG_LIMIT } from './files.js';
import { parseSafetensors, DTYPE_CODES } from './safetensors.js';
import { createRunner } from './runner.js';
import { normWeightStats } from './norm-weights.js';

const INDEX = 'model.safetensors.index.json';
const SINGLE = 'model.safetensors';
// Where the decoder's tensors sit: text-only checkpoints, and the language model of a multimodal one.
const PREFIXES = ['model.', 'model.language_model.', 'language_model.model.'];

const missing = (code, message) => new ResidualLabError(message, { code });

async function readWeights(map) {
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
      const parsed = parseSafetensors(await readBytes(map.get(shard), shard), shard);
      for (const [name, tensor] of parsed.tensors) {
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
  if (map.has(SINGLE)) return parseSafetensors(await readBytes(map.get(SINGLE), SINGLE), SINGLE).tensors;
  throw missing('missing_file', `no weights: give ${SINGLE}, or ${INDEX} with its shards`);
}

async function readTokenizer(map) {
  if (!map.has('tokenizer.json')) return null;
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
  const json = await parse('tokenizer.json');
  const config = map.has('tokenizer_config.json') ? await parse('tokenizer_config.json') : {};
  const { Tokenizer } = await import('@huggingface/tokenizers');
  try {
    return new Tokenizer(json, config);
  } catch (error) {
    throw missing('invalid_tokenizer', `tokenizer.json could not be read: ${error.message}`);
  }
}

export async function openCheckpoint(Module, files) {
  const map = fileMap(files);
  if (!map.has('config.json')) throw missing('missing_file', 'config.json is missing: give it with the weights');
  const model = describeModel(await readText(map.get('config.json'), 'config.json', CONFIG_LIMIT));
  const all = await readWeights(map);
  const prefix = PREFIXES.find((p) => all.has(`${p}embed_tokens.weight`));
  if (!prefix)
    throw missing('missing_tensor', `the weights hold no ${PREFIXES[0]}embed_tokens.weight (the token embedding)`);
  const expected = model.expected(prefix);
  const weights = new Map();
  for (const [name, want] of expected) {
    const tensor = all.get(name);
    if (!tensor)
      throw missing(
        'missing_tensor',
        `${name} is missing from the weights (a ${model.architecture} checkpoint has it)`,
      );
    if (!Object.hasOwn(DTYPE_CODES, tensor.dtype))
      throw missing('unsupported_dtype', `${name} is ${tensor.dtype}; the lab reads BF16, F16 and F32`);
    if (tensor.shape.length !== want.shape.length || tensor.shape.some((s, i) => s !== want.shape[i])) {
      throw missing('shape_mismatch', `${name} has shape [${tensor.shape}], config.json implies [${want.shape}]`);
    }
    weights.set(name, { ...want, dtype: tensor.dtype, bytes: tensor.bytes });
  }
  const tokenizer = await readTokenizer(map);
  const runner = createRunner(Module, model, weights);
  let disposed = false;
  const live = () => {
    if (disposed) throw new ResidualLabError('this checkpoint was disposed', { code: 'disposed' });
  };
  return {
    architecture: model.architecture,
    modelType: model.modelType,
    config: model.inspected,
    tensors: [...all.values()].map((t) => ({ name: t.name, dtype: t.dtype, shape: [...t.shape], file: t.file })),
    /** Token ids of `text` (needs tokenizer.json). */
    tokenize(text) {
      live();
      if (!tokenizer)
        throw new ResidualLabError('a text needs tokenizer.json among the files; give token ids instead', {
          code: 'no_tokenizer',
        });
      if (typeof text !== 'string') throw new ResidualLabError('tokenize takes a string', { code: 'invalid_input' });
      return tokenizer.encode(text).ids;
    },
    normWeights() {
      live();
      return normWeightStats(weights, model);
    },
    run(input, options = {}) {
      live();
      const ids = typeof input === 'string' ? this.tokenize(input) : input;
      return runner.run(ids, options);
    },
    dispose() {
      if (!disposed) runner.dispose();
      disposed = true;
    },
  };
}
