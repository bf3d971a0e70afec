// The options of every experiment as tables: one row per option (kind, default, bounds). `resolveOptions` fills
// the defaults, rejects unknown keys (a typo must not silently fall back to a default) and checks every value,
// throwing a ResidualLabError that names the experiment, the option and the problem. The C++ validates again;
// these bounds are the same as wasm/src/experiments/*.cpp.
import { ResidualLabError } from './errors.js';

const PLACEMENTS = ['post', 'pre', 'sandwich', 'olmo2', 'deepnorm'];
const NORMS = ['layernorm', 'rmsnorm', 'rmsnorm_gemma', 'dyt', 'none'];
const MAX_SEED = 2 ** 53 - 1;

const int = (def, min, max) => ({ kind: 'int', def, min, max });
const num = (def, min, max, { exclusiveMin = false } = {}) => ({ kind: 'number', def, min, max, exclusiveMin });
const bool = (def) => ({ kind: 'bool', def });
const oneOf = (def, values) => ({ kind: 'enum', def, values });
const list = (def, item, minLength, maxLength) => ({ kind: 'list', def, item, minLength, maxLength });

// The model every decoder experiment builds (experiments 2 to 6); each experiment may change the defaults.
const MODEL = {
  layers: int(6, 1, 128),
  dModel: int(64, 4, 256),
  nHeads: int(4, 1, 16),
  seqLen: int(64, 2, 128),
  norm: oneOf('layernorm', NORMS),
  placement: oneOf('pre', PLACEMENTS),
  init: oneOf('normal', ['normal', 'xavier']),
  std: num(0.02, 0, 1),
  embedScale: num(1, 0, 100),
  zeroQK: bool(false),
  seed: int(0, 0, MAX_SEED),
};

const withModel = (overrides, extra) => {
  const table = { ...MODEL };
  for (const [key, def] of Object.entries(overrides)) table[key] = { ...table[key], def };
  return { ...table, ...extra };
};

export const OPTION_TABLES = {
  gradientDecay: {
    layers: int(32, 1, 256),
    gain: num(0.8, 0, 4),
    residual: bool(false),
    variant: oneOf('linear', ['linear', 'mlp']),
    width: int(256, 2, 1024),
    seed: int(0, 0, MAX_SEED),
  },
  initGradients: withModel({ layers: 12 }, {
    placements: list(['post', 'pre'], oneOf('pre', PLACEMENTS), 1, 5),
    depths: list([6, 12, 24, 48], int(6, 1, 96), 1, 12),
    samples: int(2, 1, 16),
  }),
  residualGrowth: withModel({ layers: 8, norm: 'rmsnorm' }, {
    trainSteps: int(0, 0, 2000),
    lr: num(1e-3, 0, 1, { exclusiveMin: true }),
  }),
  // Defaults: the setting where docs/experiments.md found post-norm without warmup failing at this scale.
  warmup: withModel({ layers: 6, init: 'xavier' }, {
    steps: int(200, 10, 5000),
    lr: num(3e-3, 0, 1, { exclusiveMin: true }),
    warmupSteps: int(50, 1, 5000),
    clipNorm: num(0, 0, 1e6),
    beta2: num(0.999, 0, 0.999999),
    evalWindows: int(8, 1, 16),
  }),
  qkLogitGrowth: withModel({ layers: 2, norm: 'rmsnorm' }, {
    gains: list([1, 2, 4, 8, 16, 32, 64], num(1, 0, 1000, { exclusiveMin: true }), 1, 32),
  }),
  initScaling: withModel({}, {
    depths: list([1, 2, 4, 8, 16, 32, 64], int(1, 1, 128), 1, 12),
  }),
};

function describe(value) {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

function checkValue(spec, value, where) {
  const fail = (problem) => { throw new ResidualLabError(`${where} ${problem} (got ${describe(value)})`); };
  switch (spec.kind) {
    case 'bool':
      if (typeof value !== 'boolean') fail('must be true or false');
      return value;
    case 'enum':
      if (!spec.values.includes(value)) fail(`must be one of ${spec.values.map((v) => `'${v}'`).join(', ')}`);
      return value;
    case 'list': {
      if (!Array.isArray(value) && !ArrayBuffer.isView(value)) fail('must be an array');
      if (value.length < spec.minLength || value.length > spec.maxLength)
        fail(`must have ${spec.minLength} to ${spec.maxLength} entries`);
      return Array.from(value, (item, i) => checkValue(spec.item, item, `${where}[${i}]`));
    }
    default: {  // int, number
      if (typeof value !== 'number' || !Number.isFinite(value)) fail('must be a finite number');
      if (spec.kind === 'int' && !Number.isInteger(value)) fail('must be an integer');
      const below = spec.exclusiveMin ? value <= spec.min : value < spec.min;
      if (below || value > spec.max) fail(`must be ${spec.exclusiveMin ? 'above' : 'at least'} ${spec.min} and at most ${spec.max}`);
      return value;
    }
  }
}

// Checks that involve two options at once.
function checkRelations(experiment, o) {
  const fail = (message) => { throw new ResidualLabError(`${experiment}: ${message}`); };
  if (experiment === 'gradientDecay' && o.variant === 'mlp' && o.width > 512)
    fail(`width must be at most 512 for the mlp variant (got ${o.width})`);
  if ('nHeads' in o && o.dModel % o.nHeads !== 0) fail(`nHeads (${o.nHeads}) must divide dModel (${o.dModel})`);
  if (experiment === 'warmup' && o.warmupSteps > o.steps) fail(`warmupSteps (${o.warmupSteps}) must not exceed steps (${o.steps})`);
  if (experiment === 'qkLogitGrowth' && o.zeroQK) fail('zeroQK would make every gain give the same logits: turn it off');
}

/** Defaults filled in and every value checked; throws a ResidualLabError naming the option otherwise. */
export function resolveOptions(experiment, options = {}) {
  const table = OPTION_TABLES[experiment];
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new ResidualLabError(`${experiment}: options must be an object (got ${describe(options)})`);
  for (const key of Object.keys(options)) {
    if (!(key in table)) throw new ResidualLabError(`${experiment}: unknown option '${key}' (known: ${Object.keys(table).join(', ')})`);
  }
  const resolved = {};
  for (const [key, spec] of Object.entries(table)) {
    const value = options[key] === undefined ? spec.def : options[key];
    resolved[key] = checkValue(spec, value, `${experiment}: ${key}`);
  }
  checkRelations(experiment, resolved);
  return resolved;
}
