// The checkpoint forward's layout, read from the module that runs it (describeCheckpointLayout,
// wasm/src/checkpoint/layout.hpp): the weight slots, the dtype codes, the enums' names, the layer spec's fields
// and the panel sizes. Nothing of it is written in JS; a model names its spec's fields and values, and
// encodeSpec turns them into the floats the raw exports read.
import { ResidualLabError } from '../errors.js';

const layouts = new WeakMap(); // Module -> its layout

const deepFreeze = (value) => {
  if (value && typeof value === 'object') Object.values(value).forEach(deepFreeze);
  return Object.freeze(value);
};

/**
 * { slots, slotIndex, dtypes, placements, qkNorms, activations, spec: { floats, fields }, observedNorms, panelRows,
 * backwardPanelRows, headStats } of Module, parsed once.
 */
export function checkpointLayout(Module) {
  let layout = layouts.get(Module);
  if (!layout) {
    const raw = JSON.parse(Module.describeCheckpointLayout());
    layout = deepFreeze({ ...raw, slotIndex: Object.fromEntries(raw.slots.map((slot, s) => [slot, s])) });
    layouts.set(Module, layout);
  }
  return layout;
}

/** The dtype code of `dtype` ('BF16', 'Q8_0', ...), or a ResidualLabError naming the dtypes the module runs. */
export function dtypeCode(layout, dtype) {
  if (!Object.hasOwn(layout.dtypes, dtype))
    throw new ResidualLabError(`${dtype} is not a dtype the lab runs (${Object.keys(layout.dtypes).join(', ')})`, {
      code: 'unsupported_dtype',
    });
  return layout.dtypes[dtype].code;
}

/**
 * The floats of `spec` ({ field: value }, every field of the layout's spec and no other; an enum field by name)
 * in the layout's order, as read_layer_spec reads them.
 */
export function encodeSpec(layout, spec) {
  const out = new Float32Array(layout.spec.floats);
  const known = new Set(layout.spec.fields.map((f) => f.name));
  for (const name of Object.keys(spec))
    if (!known.has(name)) throw new Error(`the layer spec has no field ${name} (its fields: ${[...known].join(', ')})`);
  for (const { name, offset, kind } of layout.spec.fields) {
    const value = spec[name];
    if (value === undefined) throw new Error(`the layer spec's ${name} is not given`);
    if (kind === 'int' || kind === 'float') out[offset] = value;
    else {
      const code = layout[kind].indexOf(value);
      if (code < 0) throw new Error(`the layer spec's ${name} ${JSON.stringify(value)} is not one of ${layout[kind]}`);
      out[offset] = code;
    }
  }
  return out;
}
