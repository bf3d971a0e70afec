// The chapter's "What the models chose" as data, for <rl-model-table>: each model's layout is a config of the lab's
// decoder (createDecoder's placement, norm, qkNorm, attnSoftcap, finalSoftcap), so the block diagram and the
// small runs derive from the same description the engine validates. Models the config inspector counts take their
// layout from its architecture table (inspect-config.js ARCHITECTURES); the two others state theirs here.
// tests/js/models.test.mjs holds every entry to the chapter's table in each content/<lang>/chapter.md.
import { ARCHITECTURES } from './inspect-config.js';

/**
 * id; name; architecture (a key of ARCHITECTURES, or null); layout (when architecture is null); eps (the config's
 * norm eps, null when the chapter gives none); attnSoftcap, finalSoftcap (null is off); extraNorms, extraNormNames:
 * the norms per layer the lab's decoder has no place for (MLA's two, Gemma 4's v_norm), drawn on the attention box; features: keys of the widget's strings.
 */
const ENTRIES = [
  {
    id: 'transformer',
    name: 'Original Transformer',
    architecture: null,
    layout: { placement: 'post', norm: 'layernorm', qkNorm: false },
    eps: null,
    features: ['crossAttention'],
  },
  { id: 'gpt2', name: 'GPT-2', architecture: 'gpt2', eps: 1e-5, features: ['residualInit'] },
  { id: 'llama3', name: 'Llama-3.1-8B', architecture: 'llama', eps: 1e-5, features: [] },
  { id: 'qwen3', name: 'Qwen3-8B', architecture: 'qwen3', eps: 1e-6, features: ['qkNorm', 'noQkvBias'] },
  {
    id: 'deepseek-v3',
    name: 'DeepSeek-V3',
    architecture: 'deepseek_v3',
    eps: 1e-6,
    extraNorms: 2,
    extraNormNames: ['q_a_layernorm', 'kv_a_layernorm'],
    features: ['mlaNorms'],
  },
  { id: 'olmo2', name: 'OLMo 2', architecture: 'olmo2', eps: 1e-6, features: ['qkNormWhole'] },
  {
    id: 'gemma2',
    name: 'Gemma 2',
    architecture: 'gemma2',
    eps: 1e-6,
    attnSoftcap: 50,
    finalSoftcap: 30,
    features: ['softcaps'],
  },
  { id: 'gemma3', name: 'Gemma 3', architecture: 'gemma3', eps: 1e-6, features: ['qkNorm', 'noSoftcap'] },
  {
    id: 'gemma4',
    name: 'Gemma 4 31B',
    architecture: null,
    layout: { placement: 'sandwich', norm: 'rmsnorm', qkNorm: true },
    eps: null,
    finalSoftcap: 30,
    extraNorms: 1,
    extraNormNames: ['v_norm'],
    features: ['qkvNorm', 'finalSoftcapOnly'],
  },
];

export const MODELS = Object.freeze(
  ENTRIES.map((entry) =>
    Object.freeze({
      attnSoftcap: null,
      finalSoftcap: null,
      extraNorms: 0,
      extraNormNames: [],
      ...entry,
      layout: Object.freeze({ ...(entry.architecture ? ARCHITECTURES[entry.architecture].layout : entry.layout) }),
    }),
  ),
);

export const modelById = (id) => MODELS.find((model) => model.id === id);

/** The model's block as a config of the lab's decoder (createDecoder's keys, before validation). */
export function decoderConfig(model) {
  return { ...model.layout, attnSoftcap: model.attnSoftcap, finalSoftcap: model.finalSoftcap };
}
