// Text of <rl-config-inspector> in English.
export default {
  title: 'Read a config.json',
  hint: "Paste a model's config.json from Hugging Face (or pick an example). The inspector names the fields that exist for numerical stability and the sizes the norms depend on, and counts the norms' parameters for the architectures it knows.",
  sectionLink: 'What the models chose',
  field: 'config.json',
  examples: 'Examples',
  architecture: 'Architecture: ',
  unknown: (type) => (type ? `model_type "${type}": not one the inspector knows` : 'no model_type in this config'),
  known: (arch, source) => `${arch}, read from transformers/${source}`,
  multimodal: (type, text) => ` (model_type ${type}; the language model is text_config, ${text})`,
  fieldsTitle: 'The fields that matter here',
  noFields: 'None of the fields the inspector looks for is in this config.',
  fieldHead: ['field', 'value', 'what it is for'],
  defaultValue: " (not in the file: the config class's default)",
  groups: {
    eps: 'ε added inside every norm, so a near-zero vector never divides by zero',
    softcap: 'attention and output logits: soft-cap (cap · tanh(x / cap)) or score scaling; null is off',
    size: 'a size the norms and layers are built from',
    init: 'the std of the initial weights',
    embeddings: 'embeddings and biases: whether lm_head shares the embedding matrix, whether q, k, v have a bias',
    qknorm:
      'a QK-Norm switch: the architectures that define it turn q and k norms on with it (Llama 4: only in its RoPE layers)',
  },
  fieldText: {
    attn_logit_softcapping: 'cap on the attention scores, cap · tanh(s / cap); null is off',
    final_logit_softcapping: 'cap on the output logits, cap · tanh(z / cap); null is off',
    query_pre_attn_scalar: 'attention scores are divided by √ of this number instead of √head_dim',
    tie_word_embeddings: 'lm_head reuses the embedding matrix (then it is not counted twice)',
    attention_bias: 'whether q, k, v, o have a bias',
    head_dim: 'the width of one head: the size of a per-head q_norm and k_norm',
    use_qk_norm: 'QK-Norm on or off, in the architectures that read this field (Llama 4, Cohere)',
    qk_layernorm: 'QK-Norm on or off, in the architectures that read this field (StableLM, Phi, Persimmon)',
  },
  qkTitle: 'QK-Norm',
  qkYes:
    'Yes: the attention class of its modeling code normalizes q and k (q_norm, k_norm), with no config field to switch it.',
  qkNo: 'No: its attention class has no q_norm or k_norm, and no config field adds them.',
  qkUnknown:
    "This config has no QK-Norm field (use_qk_norm, qk_layernorm), so only the code can tell: open the model's modeling_*.py and look for q_norm and k_norm in its attention class.",
  qkFromFlag: (field, value) =>
    `The config says so itself: ${field} is ${value}. The architectures that define this field (use_qk_norm: Llama 4, Cohere; qk_layernorm: StableLM, Phi, Persimmon) turn q and k norms on with it (Llama 4 only in its RoPE layers, as a parameter-free L2 norm after RoPE); the inspector does not know this one's code, so confirm in its attention class.`,
  normsTitle: 'Norm parameters, counted',
  normHead: ['norm', 'how many', 'size', 'tensors', 'parameters'],
  tensors: (n) => (n === 2 ? 'weight, bias' : 'weight'),
  total: 'all norms',
  share: (norms, total, share) =>
    `${norms} of the model's ${total} parameters (embeddings, attention, MLP, norms, and lm_head unless tied): ${share}.`,
  cannotCount: "The norms cannot be counted: the inspector does not know this architecture's code.",
  missing: (field) => `The norms cannot be counted: the config lacks ${field}.`,
  layoutTitle: 'The block, as its code builds it',
  notes: {
    text_config: "The language model's settings are read from text_config; the vision tower's norms are not counted.",
    softcap_off: 'Both soft-caps are null: this model leans on QK-Norm instead.',
    qk_norm_flag_ignored: (n) =>
      `The config sets ${n.field}: ${n.value}, but this architecture's code does not read that field: it ${n.value ? 'has no' : 'has'} q_norm and k_norm regardless, and the count above follows the code.`,
  },
  errors: {
    empty: 'The field is empty: paste a config.json.',
    invalid_json: (e) =>
      `This is not valid JSON: ${
        {
          too_deep: (r) => `it nests deeper than ${r.limit} levels`,
          ends_early: () => 'the text ends where a value should be',
          not_finite: () => 'NaN and Infinity are not JSON',
          unexpected: (r) => `“${r.value}” cannot start a value`,
          key_expected: () => 'a key in double quotes is expected',
          repeated_key: (r) => `the key “${r.value}” appears twice`,
          colon_expected: () => '“:” is expected after a key',
          object_unclosed: () => 'the object is never closed with }',
          object_separator: () => '“,” or “}” is expected',
          array_unclosed: () => 'the array is never closed with ]',
          array_separator: () => '“,” or “]” is expected',
          control_character: () => 'a string holds a control character (a line break, a tab)',
          string_unclosed: () => 'the string is never closed',
          bad_escape: () => 'a string holds an invalid escape',
          bad_number: () => 'this is not a number',
          trailing_text: () => 'there is text after the end of the JSON value',
        }[e.reason?.kind]?.(e.reason) ?? 'it cannot be read'
      } (at character ${e.position + 1}).`,
    invalid_config: (e) => `${e.field}: ${e.message.replace(/^config\.json: [^:]+: /, '')}.`,
    too_long: 'The text is too long: a config.json of at most 1 MiB is read.',
  },
};
