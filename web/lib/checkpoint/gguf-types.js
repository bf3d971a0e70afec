// The tensor types of GGUF files (ggml_type in llama.cpp's ggml.h, GGMLQuantizationType in gguf-py/gguf/
// constants.py) by id: the ones the lab runs with their block layout, and the names of the ones it refuses.
// `code` is the lab's dtype code, the C++ table's (RL_CHECKPOINT_DTYPES in wasm/src/checkpoint/quant.hpp, which
// the module exports in its checkpoint layout); tests/js/checkpoint-layout.test.mjs holds the two tables together.

export const GGUF_TYPES = Object.freeze({
  0: { name: 'F32', code: 0, blockValues: 1, blockBytes: 4 },
  1: { name: 'F16', code: 1, blockValues: 1, blockBytes: 2 },
  30: { name: 'BF16', code: 2, blockValues: 1, blockBytes: 2 },
  8: { name: 'Q8_0', code: 3, blockValues: 32, blockBytes: 34 },
  2: { name: 'Q4_0', code: 4, blockValues: 32, blockBytes: 18 },
  3: { name: 'Q4_1', code: 5, blockValues: 32, blockBytes: 20 },
  6: { name: 'Q5_0', code: 6, blockValues: 32, blockBytes: 22 },
  7: { name: 'Q5_1', code: 7, blockValues: 32, blockBytes: 24 },
  10: { name: 'Q2_K', code: 8, blockValues: 256, blockBytes: 84 },
  11: { name: 'Q3_K', code: 9, blockValues: 256, blockBytes: 110 },
  12: { name: 'Q4_K', code: 10, blockValues: 256, blockBytes: 144 },
  13: { name: 'Q5_K', code: 11, blockValues: 256, blockBytes: 176 },
  14: { name: 'Q6_K', code: 12, blockValues: 256, blockBytes: 210 },
});

// Types a GGUF may hold that the lab does not dequantize, named in its refusal.
export const REFUSED_TYPES = Object.freeze({
  9: 'Q8_1',
  15: 'Q8_K',
  16: 'IQ2_XXS',
  17: 'IQ2_XS',
  18: 'IQ3_XXS',
  19: 'IQ1_S',
  20: 'IQ4_NL',
  21: 'IQ3_S',
  22: 'IQ2_S',
  23: 'IQ4_XS',
  24: 'I8',
  25: 'I16',
  26: 'I32',
  27: 'I64',
  28: 'F64',
  29: 'IQ1_M',
  34: 'TQ1_0',
  35: 'TQ2_0',
  39: 'MXFP4',
});

/** The lab's dtypes by name: { code, blockValues, blockBytes }. */
export const DTYPE_LAYOUTS = Object.freeze(
  Object.fromEntries(Object.values(GGUF_TYPES).map(({ name, ...layout }) => [name, Object.freeze(layout)])),
);
