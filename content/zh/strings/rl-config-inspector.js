// Text of <rl-config-inspector> in Chinese.
export default {
  title: '读懂 config.json',
  hint: '粘贴 Hugging Face 上某个模型的 config.json（或选一个示例）。检查器会指出其中为数值稳定性而设的字段和 Norm 所依赖的尺寸；对它认识的架构，还会数出所有 Norm 的参数量。',
  sectionLink: '各模型的选择',
  field: 'config.json',
  examples: '示例',
  architecture: '架构：',
  unknown: (type) => (type ? `model_type "${type}"：检查器不认识这个架构` : '这个配置里没有 model_type'),
  known: (arch, source) => `${arch}，依据 transformers/${source}`,
  multimodal: (type, text) => `（model_type ${type}；语言模型在 text_config 里，${text}）`,
  fieldsTitle: '这里要看的字段',
  noFields: '这个配置里没有检查器要找的字段。',
  fieldHead: ['字段', '值', '用途'],
  defaultValue: '（文件里没有：取配置类的默认值）',
  groups: {
    eps: '每个 Norm 里加上的 ε，保证接近零的向量也不会除以零',
    softcap: '注意力与输出 logits：soft-cap（cap · tanh(x / cap)）或分数缩放；null 表示关闭',
    size: '搭建 Norm 与各层所用的尺寸',
    init: '初始权重的标准差',
    embeddings: '嵌入与偏置：lm_head 是否与词嵌入共享矩阵，q、k、v 是否带偏置',
    qknorm: 'QK-Norm 开关：定义了这个字段的架构用它打开 q、k 的 Norm（Llama 4 只在用 RoPE 的层里）',
  },
  fieldText: {
    attn_logit_softcapping: '注意力分数的上限，cap · tanh(s / cap)；null 表示关闭',
    final_logit_softcapping: '输出 logits 的上限，cap · tanh(z / cap)；null 表示关闭',
    query_pre_attn_scalar: '注意力分数除以这个数的平方根，而不是 √head_dim',
    tie_word_embeddings: 'lm_head 复用词嵌入矩阵（此时不重复计数）',
    attention_bias: 'q、k、v、o 是否带偏置',
    head_dim: '一个头的宽度：逐头 q_norm、k_norm 的尺寸',
    use_qk_norm: '是否使用 QK-Norm，由读取这个字段的架构决定（Llama 4、Cohere）',
    qk_layernorm: '是否使用 QK-Norm，由读取这个字段的架构决定（StableLM、Phi、Persimmon）',
  },
  qkTitle: 'QK-Norm',
  qkYes: '有：它的建模代码在注意力类里对 q、k 做归一化（q_norm、k_norm），没有哪个配置字段能关掉它。',
  qkNo: '没有：它的注意力类里没有 q_norm、k_norm，也没有哪个配置字段能加上它们。',
  qkUnknown:
    '这个配置里没有 QK-Norm 字段（use_qk_norm、qk_layernorm），只能去看代码：打开模型的 modeling_*.py，在注意力类里找 q_norm 和 k_norm。',
  qkFromFlag: (field, value) =>
    `配置自己写明了：${field} 为 ${value}。定义了这个字段的架构（use_qk_norm：Llama 4、Cohere；qk_layernorm：StableLM、Phi、Persimmon）用它打开 q、k 的 Norm（Llama 4 只在用 RoPE 的层里加，而且是 RoPE 之后一个没有参数的 L2 归一化）；检查器不认识这个架构的代码，最好再到它的注意力类里确认一下。`,
  normsTitle: 'Norm 参数，逐项数出',
  normHead: ['Norm', '个数', '尺寸', '张量', '参数量'],
  tensors: (n) => (n === 2 ? 'weight、bias' : 'weight'),
  total: '全部 Norm',
  share: (norms, total, share) =>
    `模型共 ${total} 个参数（词嵌入、注意力、MLP、Norm，以及不共享时的 lm_head），Norm 占 ${norms}，即 ${share}。`,
  cannotCount: '无法计数：检查器不了解这个架构的代码。',
  missing: (field) => `无法计数：配置里缺少 ${field}。`,
  layoutTitle: '按代码画出的结构',
  notes: {
    text_config: '语言模型的设置取自 text_config；视觉塔里的 Norm 没有计入。',
    softcap_off: '两个 soft-cap 都是 null：这个模型改靠 QK-Norm 控制分数。',
    qk_norm_flag_ignored: (n) =>
      `配置里写着 ${n.field}: ${n.value}，但这个架构的代码并不读这个字段：不管它怎么写，注意力类里都${n.value ? '没有' : '有'} q_norm 和 k_norm，上面的计数以代码为准。`,
  },
  errors: {
    empty: '输入为空：请粘贴一个 config.json。',
    invalid_json: (e) =>
      `这不是合法的 JSON：${
        {
          too_deep: (r) => `嵌套超过了 ${r.limit} 层`,
          ends_early: () => '文本在应当出现值的地方结束了',
          not_finite: () => 'JSON 里没有 NaN 和 Infinity',
          unexpected: (r) => `“${r.value}”不能作为一个值的开头`,
          key_expected: () => '这里应当是一个用双引号括起的键',
          repeated_key: (r) => `键“${r.value}”出现了两次`,
          colon_expected: () => '键后面应当是“:”',
          object_unclosed: () => '对象没有用 } 结束',
          object_separator: () => '这里应当是“,”或“}”',
          array_unclosed: () => '数组没有用 ] 结束',
          array_separator: () => '这里应当是“,”或“]”',
          control_character: () => '字符串里有控制字符（换行、制表符等）',
          string_unclosed: () => '字符串没有结束的引号',
          bad_escape: () => '字符串里有无效的转义',
          bad_number: () => '这不是一个数',
          trailing_text: () => 'JSON 值结束后还有多余的文本',
        }[e.reason?.kind]?.(e.reason) ?? '无法读取'
      }（第 ${e.position + 1} 个字符）。`,
    invalid_config: (e) =>
      `${e.field}：${
        {
          not_object: () => '必须是 JSON 对象 { ... }',
          not_string: (r) => `必须是字符串，现在是 ${r.value}`,
          not_boolean: (r) => `必须是 true 或 false，现在是 ${r.value}`,
          not_number: (r) => `必须是数字，现在是 ${r.value}`,
          not_integer: (r) => `必须是整数，现在是 ${r.value}`,
          too_small: (r) => `至少应为 ${r.limit}，现在是 ${r.value}`,
          too_large: (r) => `是 ${r.value}，超过了合理上限 ${r.limit}`,
          not_positive: (r) => `必须是正数，现在是 ${r.value}`,
          not_divisor: (r) => `不能整除（${r.value}）`,
          negative: (r) => `算出的数为负（${r.value}）`,
          overflow: () => '参数量超出了可精确计算的范围',
        }[e.reason?.kind]?.(e.reason) ?? '这个值无法使用'
      }。`,
    too_long: '文本太长：最多读取 1 MiB 的 config.json。',
  },
};
