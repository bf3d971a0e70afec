// lab.inspectConfig(text): reads a Hugging Face config.json and says what it tells about normalization and
// numerical stability: the fields that matter, which norms the architecture has and where, how many parameters
// those norms hold (exactly, for the architectures of ARCHITECTURES), and what a config cannot tell. JSON reading
// and integer arithmetic only; nothing here calls the WASM module.
import { ResidualLabError } from './errors.js';
import { ARCHITECTURES } from './architectures.js';
import { parseJson } from './parse-json.js';

export const MAX_CONFIG_CHARS = 1 << 20; // 1 MiB: published configs are a few kB

// The fields a reader should pick out, by what they are for. Integers are sizes (checked: positive, whole, at
// most `max`); numbers are eps values and caps (checked: positive and finite, or null where null means off).
export const CONFIG_FIELDS = Object.freeze([
  { name: 'rms_norm_eps', group: 'eps', type: 'number' },
  { name: 'layer_norm_eps', group: 'eps', type: 'number' },
  { name: 'layer_norm_epsilon', group: 'eps', type: 'number' },
  { name: 'norm_epsilon', group: 'eps', type: 'number' },
  { name: 'attn_logit_softcapping', group: 'softcap', type: 'number', nullable: true },
  { name: 'final_logit_softcapping', group: 'softcap', type: 'number', nullable: true },
  { name: 'query_pre_attn_scalar', group: 'softcap', type: 'number', nullable: true },
  { name: 'initializer_range', group: 'init', type: 'number' },
  { name: 'hidden_size', group: 'size', type: 'integer', max: 1 << 20 },
  { name: 'n_embd', group: 'size', type: 'integer', max: 1 << 20 },
  { name: 'num_hidden_layers', group: 'size', type: 'integer', max: 10000 },
  { name: 'n_layer', group: 'size', type: 'integer', max: 10000 },
  { name: 'num_attention_heads', group: 'size', type: 'integer', max: 1 << 16 },
  { name: 'n_head', group: 'size', type: 'integer', max: 1 << 16 },
  { name: 'num_key_value_heads', group: 'size', type: 'integer', max: 1 << 16, nullable: true },
  { name: 'head_dim', group: 'size', type: 'integer', max: 1 << 16, nullable: true },
  { name: 'intermediate_size', group: 'size', type: 'integer', max: 1 << 22 },
  { name: 'n_inner', group: 'size', type: 'integer', max: 1 << 22, nullable: true },
  { name: 'vocab_size', group: 'size', type: 'integer', max: 1 << 24 },
  { name: 'n_positions', group: 'size', type: 'integer', max: 1 << 24 },
  { name: 'q_lora_rank', group: 'size', type: 'integer', max: 1 << 20, nullable: true },
  { name: 'kv_lora_rank', group: 'size', type: 'integer', max: 1 << 20 },
  { name: 'qk_nope_head_dim', group: 'size', type: 'integer', max: 1 << 16 },
  { name: 'qk_rope_head_dim', group: 'size', type: 'integer', max: 1 << 16 },
  { name: 'v_head_dim', group: 'size', type: 'integer', max: 1 << 16 },
  { name: 'moe_intermediate_size', group: 'size', type: 'integer', max: 1 << 22 },
  { name: 'n_routed_experts', group: 'size', type: 'integer', max: 1 << 16 },
  { name: 'n_shared_experts', group: 'size', type: 'integer', max: 1 << 16, min: 0 },
  { name: 'first_k_dense_replace', group: 'size', type: 'integer', max: 10000, min: 0 },
  { name: 'tie_word_embeddings', group: 'embeddings', type: 'boolean' },
  { name: 'attention_bias', group: 'embeddings', type: 'boolean' },
  { name: 'use_qk_norm', group: 'qknorm', type: 'boolean' },
  { name: 'qk_layernorm', group: 'qknorm', type: 'boolean' },
]);

// The config fields that switch QK-Norm on in the architectures whose code reads them (Llama 4 and Cohere read
// use_qk_norm; StableLM, Phi and Persimmon qk_layernorm). None of the architectures of ARCHITECTURES reads one:
// there the attention class decides.
export const QK_NORM_FLAGS = Object.freeze(['use_qk_norm', 'qk_layernorm']);

// The architectures, one row per family, live in architectures.js (the checkpoint reader runs the same rows).
export { ARCHITECTURES };
// The config's JSON reader, with the position of a problem, lives in parse-json.js (the checkpoint reader uses it too).
export { parseJson };

const fieldRow = new Map(CONFIG_FIELDS.map((row) => [row.name, row]));
const byModelType = new Map(
  Object.entries(ARCHITECTURES).flatMap(([key, arch]) => arch.modelTypes.map((t) => [t, key])),
);

/**
 * Reads `text` (a config.json) and returns
 *   { architecture, modelType, textConfig, fields: [{ name, path, value, group, source: 'config' | 'default' }],
 *     layout: { placement, norm, qkNorm } | null, norms: [{ name, slot, count, size, tensors, params }],
 *     normParams, normCount, totalParams, normShare, notes: [{ code, message }], source }
 * normParams, totalParams and normShare are null for an architecture the table does not hold. Bad JSON throws a
 * ResidualLabError with code `invalid_json` and the `position` of the problem; a usable JSON whose fields are not
 * (a size that is not a positive whole number, an absurd one, a string where a number belongs) throws code
 * `invalid_config` naming the `field`.
 */
export function inspectConfig(text) {
  checkText(text);
  const root = parseJson(text);
  if (!isObject(root)) throw configError('the config must be a JSON object { ... }', '(root)', { kind: 'not_object' });
  const { modelType, nested, textType, archKey } = readModelType(root);
  const arch = archKey ? ARCHITECTURES[archKey] : null;
  const { values, fields } = readFields(root, nested, arch);
  const notes = [];
  const result = {
    architecture: archKey,
    modelType,
    textConfig: nested ? textType : null,
    fields,
    layout: arch ? { ...arch.layout } : null,
    norms: [],
    normParams: null,
    normCount: null,
    totalParams: null,
    normShare: null,
    notes,
    source: arch?.source ?? null,
  };
  if (nested)
    notes.push(
      note(
        'text_config',
        "The language model's settings are read from text_config; the vision tower's norms are not counted.",
      ),
    );
  notes.push(...qkNormNotes(archKey, arch, fields));
  if (!arch) {
    notes.push(
      note(
        'unknown_architecture',
        `model_type ${modelType === null ? '(missing)' : JSON.stringify(modelType)} is not one the inspector knows (${[...byModelType.keys()].join(', ')}): the fields above are read, the norms cannot be counted.`,
      ),
    );
    return result;
  }
  try {
    Object.assign(result, countNorms(arch, values));
    Object.assign(result, countParams(arch, values, result.normParams));
  } catch (error) {
    if (error.code !== 'missing_field') throw error;
    result.norms = [];
    notes.push(note('cannot_count', `The norms cannot be counted: ${error.message}.`, { field: error.field }));
  }
  if (
    arch.softcaps &&
    values.attn_logit_softcapping == null &&
    values.final_logit_softcapping == null &&
    fields.some((f) => f.group === 'softcap')
  ) {
    notes.push(note('softcap_off', 'Both soft-caps are null: this model relies on QK-Norm instead.'));
  }
  return result;
}

/** Refuses what is no config.json text: not a string, longer than MAX_CONFIG_CHARS, or blank. */
function checkText(text) {
  if (typeof text !== 'string')
    throw new ResidualLabError(
      `inspectConfig takes the text of a config.json, got ${text === null ? 'null' : typeof text}`,
      { code: 'invalid_input' },
    );
  if (text.length > MAX_CONFIG_CHARS)
    throw new ResidualLabError(
      `the text is ${text.length} characters long; a config.json of at most ${MAX_CONFIG_CHARS} is read`,
      { code: 'too_long' },
    );
  if (!text.trim()) throw new ResidualLabError('the text is empty: paste a config.json', { code: 'empty' });
}

/** model_type, and text_config's when the language model's settings are nested there; the architecture's key. */
function readModelType(root) {
  const modelType = readString(root, 'model_type', '');
  const nested = isObject(root.text_config) ? root.text_config : null;
  if (Object.hasOwn(root, 'text_config') && root.text_config !== null && !nested)
    throw configError('must be an object', 'text_config', { kind: 'not_object' });
  const textType = nested ? readString(nested, 'model_type', 'text_config.') : null;
  const archKey = byModelType.get(textType ?? '') ?? byModelType.get(modelType ?? '') ?? null;
  return { modelType, nested, textType, archKey };
}

/**
 * Every field of CONFIG_FIELDS the config gives (text_config's first, then the top level's) or the architecture
 * defaults, checked: { values: name -> value, fields: [{ name, path, value, group, source }] }.
 */
function readFields(root, nested, arch) {
  const scope = nested ?? root;
  const prefix = nested ? 'text_config.' : '';
  const values = {};
  const fields = [];
  const add = (row, path, value, source) => {
    values[row.name] = value;
    fields.push({ name: row.name, path, value, group: row.group, source });
  };
  for (const row of CONFIG_FIELDS) {
    if (Object.hasOwn(scope, row.name))
      add(row, prefix + row.name, checkField(row, scope[row.name], prefix + row.name), 'config');
    else if (nested && Object.hasOwn(root, row.name))
      add(row, row.name, checkField(row, root[row.name], row.name), 'config');
    else if (arch?.defaults && Object.hasOwn(arch.defaults, row.name))
      add(row, prefix + row.name, arch.defaults[row.name], 'default');
  }
  return { values, fields };
}

/** What the config's QK-Norm flags mean for this architecture (its attention class decides, when it is known). */
function qkNormNotes(archKey, arch, fields) {
  const notes = [];
  if (arch)
    notes.push(
      note(
        'qk_norm_from_code',
        `Whether ${archKey} has QK-Norm is a property of its modeling code (q_norm, k_norm in the attention class), which reads no config field for it.`,
      ),
    );
  for (const flag of fields.filter((f) => QK_NORM_FLAGS.includes(f.name))) {
    if (!arch)
      notes.push(
        note(
          'qk_norm_flag',
          `config.json sets ${flag.path}: ${flag.value}; the architectures that define this field turn q and k norms on with it (Llama 4 only in its RoPE layers).`,
          { field: flag.path, value: flag.value },
        ),
      );
    else if (flag.value !== arch.layout.qkNorm)
      notes.push(
        note(
          'qk_norm_flag_ignored',
          `config.json sets ${flag.path}: ${flag.value}, but ${archKey}'s attention class ${arch.layout.qkNorm ? 'has' : 'has no'} q_norm and k_norm whatever the config says; the count follows the code.`,
          { field: flag.path, value: flag.value },
        ),
      );
  }
  return notes;
}

/**
 * The norms by the architecture's formulas: { norms, normParams, normCount }. A field a formula needs and the
 * config lacks throws code missing_field. `values` gains the derived fields.
 */
function countNorms(arch, values) {
  for (const [name, formula] of Object.entries(arch.derived ?? {})) {
    if (values[name] === undefined || values[name] === null) values[name] = evaluate(formula, values, name);
  }
  const norms = arch.norms.map((norm) => {
    const count = evaluate(norm.count, values, norm.name);
    const size = evaluate(norm.size, values, norm.name);
    const tensors = norm.tensors ?? 1;
    return {
      name: norm.name,
      slot: norm.slot,
      count,
      size,
      tensors,
      params: checkedProduct([count, size, tensors], norm.name),
    };
  });
  const normParams = checkedSum(
    norms.map((n) => n.params),
    'normParams',
  );
  const normCount = checkedSum(
    norms.map((n) => n.count),
    'normCount',
  );
  return { norms, normParams, normCount };
}

/** Every parameter by the architecture's formulas, the norms' `normParams` among them: { totalParams, normShare }. */
function countParams(arch, values, normParams) {
  const tied = values.tie_word_embeddings ?? false;
  const parts = arch.params.filter(
    (part) => !(part.unlessTied && tied) && (!part.onlyIf || values[part.onlyIf] === true),
  );
  const other = parts.map((part) =>
    checkedProduct([evaluate(part.count, values, part.name), evaluate(part.size, values, part.name)], part.name),
  );
  const totalParams = checkedSum([...other, normParams], 'totalParams');
  return { totalParams, normShare: normParams / totalParams };
}

function note(code, message, extra = {}) {
  return { code, message, ...extra };
}

/** An invalid_config error naming `field`; `reason` ({ kind, value, limit }) lets a page say it in its language. */
function configError(message, field, reason = { kind: 'other' }) {
  return Object.assign(new ResidualLabError(`config.json: ${field}: ${message}`, { code: 'invalid_config' }), {
    field,
    reason,
  });
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

function readString(object, key, prefix) {
  if (!Object.hasOwn(object, key)) return null;
  if (typeof object[key] !== 'string')
    throw configError(`must be a string, is ${JSON.stringify(object[key])}`, prefix + key, {
      kind: 'not_string',
      value: JSON.stringify(object[key]),
    });
  return object[key];
}

function checkField(row, value, path) {
  if (value === null && row.nullable) return null;
  if (row.type === 'boolean') {
    if (typeof value !== 'boolean')
      throw configError(`must be true or false, is ${JSON.stringify(value)}`, path, {
        kind: 'not_boolean',
        value: JSON.stringify(value),
      });
    return value;
  }
  if (typeof value !== 'number')
    throw configError(`must be a number, is ${JSON.stringify(value)}`, path, {
      kind: 'not_number',
      value: JSON.stringify(value),
    });
  if (row.type === 'integer') {
    const min = row.min ?? 1;
    if (!Number.isInteger(value))
      throw configError(`must be a whole number, is ${value}`, path, { kind: 'not_integer', value });
    if (value < min)
      throw configError(`must be at least ${min}, is ${value}`, path, { kind: 'too_small', value, limit: min });
    if (value > row.max)
      throw configError(`is ${value}; at most ${row.max} is plausible`, path, {
        kind: 'too_large',
        value,
        limit: row.max,
      });
    return value;
  }
  if (!(value > 0) || !Number.isFinite(value))
    throw configError(`must be a positive number, is ${value}`, path, { kind: 'not_positive', value });
  return value;
}

/** A formula of fields: terms joined by + and -, each a product of fields and integers joined by * and /. */
function evaluate(formula, values, what) {
  let total = 0;
  for (const [, sign, term] of formula.replace(/\s+/g, '').matchAll(/([+-]?)([^+-]+)/g)) {
    let product = 1;
    for (const [, op, factor] of term.matchAll(/([*/]?)([^*/]+)/g)) {
      let value;
      if (/^\d+$/.test(factor)) value = Number(factor);
      else if (values[factor] === undefined || values[factor] === null) {
        throw Object.assign(
          new ResidualLabError(`${what} needs ${factor}, which the config does not give`, { code: 'missing_field' }),
          { field: factor },
        );
      } else value = values[factor];
      if (op === '/') {
        if (product % value !== 0)
          throw configError(`${formula.split('/')[0].trim()} is not a multiple of ${factor} (${value})`, factor, {
            kind: 'not_divisor',
            value,
          });
        product /= value;
      } else product = checkedProduct([product, value], what);
    }
    total += sign === '-' ? -product : product;
  }
  if (total < 0) throw configError(`${formula} is negative (${total})`, what, { kind: 'negative', value: total });
  return total;
}

function checkedProduct(factors, what) {
  const product = factors.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(product))
    throw configError(`the parameter count overflows (${factors.join(' x ')})`, what, { kind: 'overflow' });
  return product;
}

function checkedSum(terms, what) {
  const sum = terms.reduce((a, b) => a + b, 0);
  if (!Number.isSafeInteger(sum)) throw configError('the parameter count overflows', what, { kind: 'overflow' });
  return sum;
}
