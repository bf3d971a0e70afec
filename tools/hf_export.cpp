#include "tools/hf_export.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "checkpoint/quant.hpp"

namespace rl::train {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {

// Shortest decimal that reads back as the same float.
std::string number(float v) {
  char buf[32];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::uint16_t to_bf16(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  if (std::isnan(v)) return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  const std::uint32_t rounding = 0x7fff + ((bits >> 16) & 1);  // round half to even
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

// binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits; subnormals below 2^-14 (mantissa * 2^-24), infinity from
// 65520, the first value that rounds past the largest finite one, 65504.
std::uint16_t to_f16(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  const std::uint32_t sign = (bits >> 16) & 0x8000u, magnitude = bits & 0x7fffffffu;
  std::uint32_t half;
  if (magnitude > 0x7f800000u) half = 0x7e00u;        // NaN
  else if (magnitude >= 0x477ff000u) half = 0x7c00u;  // 65520 or more: infinity
  else if (magnitude < 0x38800000u)                   // below 2^-14: |v| / 2^-24 (exact), rounded half to even
    half = static_cast<std::uint32_t>(std::nearbyint(std::fabs(v) * 16777216.0f));
  else  // keep 10 of the 23 mantissa bits, rounding half to even on the 13 dropped; rebias the exponent 127 -> 15
    half = ((magnitude + 0xfffu + ((magnitude >> 13) & 1u)) >> 13) - (112u << 10);
  return static_cast<std::uint16_t>(sign | half);
}

std::string_view safetensors_dtype(HfDtype dtype) {
  return dtype == HfDtype::f32 ? "F32" : dtype == HfDtype::f16 ? "F16" : "BF16";
}

std::string_view torch_dtype(HfDtype dtype) {
  return dtype == HfDtype::f32 ? "float32" : dtype == HfDtype::f16 ? "float16" : "bfloat16";
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

float stored_value(float v, HfDtype dtype) {
  if (dtype == HfDtype::f16) return checkpoint::f16_bits_to_float(to_f16(v));
  if (dtype == HfDtype::bf16) {
    const std::uint32_t bits = std::uint32_t(to_bf16(v)) << 16;
    float out;
    std::memcpy(&out, &bits, 4);
    return out;
  }
  return v;
}

const std::vector<HfArchitecture>& hf_architectures() {
  static const std::vector<HfArchitecture> table = {
      // LlamaDecoderLayer: h + attn(input_layernorm(h)), then h + mlp(post_attention_layernorm(h))
      {.model_type = "llama",
       .class_name = "LlamaForCausalLM",
       .placement = decoder::Placement::pre,
       .qk_norm = false,
       .qk_norm_shape = decoder::QkNormShape::head,
       .attn_norm_name = "input_layernorm",
       .mlp_norm_name = "post_attention_layernorm"},
      // Olmo2DecoderLayer: h + post_attention_layernorm(attn(h)), then h + post_feedforward_layernorm(mlp(h));
      // Olmo2Attention: q_norm, k_norm = Olmo2RMSNorm(num_heads * head_dim) on the whole projections, before RoPE
      {.model_type = "olmo2",
       .class_name = "Olmo2ForCausalLM",
       .placement = decoder::Placement::olmo2,
       .qk_norm = true,
       .qk_norm_shape = decoder::QkNormShape::projection,
       .attn_norm_name = "post_attention_layernorm",
       .mlp_norm_name = "post_feedforward_layernorm"},
  };
  return table;
}

const HfArchitecture* find_hf_architecture(std::string_view model_type) {
  for (const HfArchitecture& a : hf_architectures())
    if (a.model_type == model_type) return &a;
  return nullptr;
}

std::string check_exportable(const decoder::Config& c, const HfArchitecture& arch) {
  const std::string family = std::string(arch.model_type);
  if (c.norm != decoder::NormKind::rmsnorm) return family + " needs norm rmsnorm";
  if (c.mlp != decoder::MlpKind::swiglu) return family + " needs mlp swiglu";
  if (!c.rope || c.pos_embed) return family + " needs rope and no learned position embeddings";
  if (c.attn_softcap != 0 || c.final_softcap != 0) return family + " has no soft-caps";
  if (!c.residual) return family + " needs the residual path";
  if (c.placement != arch.placement) return family + " needs placement " + decoder::to_string(arch.placement);
  if (c.qk_norm != arch.qk_norm || (c.qk_norm && c.qk_norm_shape != arch.qk_norm_shape))
    return family + (arch.qk_norm ? " needs qkNorm over the whole projection" : " has no qkNorm");
  return "";
}

std::string hf_tensor_name(const decoder::ParamTensor& t, const HfArchitecture& arch) {
  static const std::pair<std::string_view, std::string_view> kLayerNames[] = {
      {"attn.q.weight", "self_attn.q_proj.weight"},      {"attn.k.weight", "self_attn.k_proj.weight"},
      {"attn.v.weight", "self_attn.v_proj.weight"},      {"attn.o.weight", "self_attn.o_proj.weight"},
      {"attn.q_norm.weight", "self_attn.q_norm.weight"}, {"attn.k_norm.weight", "self_attn.k_norm.weight"},
      {"mlp.gate.weight", "mlp.gate_proj.weight"},       {"mlp.up.weight", "mlp.up_proj.weight"},
      {"mlp.down.weight", "mlp.down_proj.weight"},
  };
  if (t.name == "embed.weight") return "model.embed_tokens.weight";
  if (t.name == "final_norm.weight") return "model.norm.weight";
  if (t.name == "lm_head.weight") return "lm_head.weight";
  const std::string prefix = "layers." + std::to_string(t.layer) + ".";
  if (t.layer < 0 || !starts_with(t.name, prefix)) return "";
  const std::string_view rest = std::string_view(t.name).substr(prefix.size());
  const std::string hf = "model.layers." + std::to_string(t.layer) + ".";
  if (rest == "attn_norm.weight") return hf + std::string(arch.attn_norm_name) + ".weight";
  if (rest == "mlp_norm.weight") return hf + std::string(arch.mlp_norm_name) + ".weight";
  for (const auto& [engine, name] : kLayerNames)
    if (rest == engine) return hf + std::string(name);
  return "";
}

std::string hf_config_json(const decoder::Config& c, const HfArchitecture& arch, HfDtype dtype) {
  std::vector<std::pair<std::string, std::string>> f = {
      {"architectures", "[" + json_string(arch.class_name) + "]"},
      {"model_type", json_string(arch.model_type)},
      {"vocab_size", std::to_string(c.vocab_size)},
      {"hidden_size", std::to_string(c.d_model)},
      {"intermediate_size", std::to_string(c.ffn_width())},
      {"num_hidden_layers", std::to_string(c.n_layers)},
      {"num_attention_heads", std::to_string(c.n_heads)},
      {"num_key_value_heads", std::to_string(c.n_heads)},
      {"head_dim", std::to_string(c.d_head())},
      {"hidden_act", json_string("silu")},
      {"max_position_embeddings", std::to_string(c.context_length)},
      {"rms_norm_eps", number(c.eps)},
      {"rope_theta", number(c.rope_theta)},
      {"rope_scaling", "null"},
      {"attention_bias", "false"},
      {"attention_dropout", "0.0"},
      {"tie_word_embeddings", "false"},
      {"use_cache", "true"},
      {"pad_token_id", "null"},
      {"bos_token_id", "null"},
      {"eos_token_id", "null"},
      {"initializer_range", number(c.init.std)},
      {"torch_dtype", json_string(torch_dtype(dtype))},
  };
  if (arch.model_type == "llama") f.insert(f.end(), {{"mlp_bias", "false"}, {"pretraining_tp", "1"}});
  std::string out = "{\n";
  for (std::size_t i = 0; i < f.size(); ++i)
    out += "  " + json_string(f[i].first) + ": " + f[i].second + (i + 1 < f.size() ? ",\n" : "\n");
  return out + "}\n";
}

std::vector<std::uint8_t> safetensors_bytes(const decoder::ParamLayout& layout, const std::vector<float>& params,
                                            const HfArchitecture& arch, HfDtype dtype) {
  struct Entry {
    std::string name;
    const decoder::ParamTensor* tensor;
  };
  std::vector<Entry> entries;
  for (const decoder::ParamTensor& t : layout.tensors) entries.push_back({hf_tensor_name(t, arch), &t});
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  const std::size_t element = dtype == HfDtype::f32 ? 4 : 2;
  std::string header = "{";
  std::size_t offset = 0;
  for (const Entry& e : entries) {
    std::string shape;
    for (int s : e.tensor->shape) shape += (shape.empty() ? "" : ",") + std::to_string(s);
    const std::size_t bytes = e.tensor->size * element;
    header += (header.size() > 1 ? "," : "") + json_string(e.name) + ":{\"dtype\":\"" +
              std::string(safetensors_dtype(dtype)) + "\",\"shape\":[" + shape + "],\"data_offsets\":[" +
              std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<std::uint8_t> out(8 + header.size() + offset);
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, header.data(), header.size());
  std::uint8_t* data = out.data() + 8 + header.size();
  for (const Entry& e : entries) {
    const float* src = params.data() + e.tensor->offset;
    for (std::size_t i = 0; i < e.tensor->size; ++i) {
      if (dtype == HfDtype::f32) {
        std::uint32_t bits;
        std::memcpy(&bits, src + i, 4);
        for (int b = 0; b < 4; ++b) *data++ = static_cast<std::uint8_t>(bits >> (8 * b));
      } else {
        const std::uint16_t bits = dtype == HfDtype::f16 ? to_f16(src[i]) : to_bf16(src[i]);
        *data++ = static_cast<std::uint8_t>(bits), *data++ = static_cast<std::uint8_t>(bits >> 8);
      }
    }
  }
  return out;
}

std::string hf_tokenizer_json(const CharTokenizer& tokenizer) {
  std::string vocab;
  for (int id = 0; id < tokenizer.vocab_size(); ++id)
    vocab += std::string(id ? ",\n      " : "\n      ") + json_string(tokenizer.chars().substr(id, 1)) + ": " +
             std::to_string(id);
  return "{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n  \"added_tokens\": [],\n"
         "  \"normalizer\": null,\n  \"pre_tokenizer\": null,\n  \"post_processor\": null,\n"
         "  \"decoder\": {\"type\": \"Fuse\"},\n"
         "  \"model\": {\n    \"type\": \"BPE\",\n    \"dropout\": null,\n    \"unk_token\": null,\n"
         "    \"continuing_subword_prefix\": null,\n    \"end_of_word_suffix\": null,\n    \"fuse_unk\": false,\n"
         "    \"byte_fallback\": false,\n    \"ignore_merges\": false,\n    \"vocab\": {" +
         vocab + "\n    },\n    \"merges\": []\n  }\n}\n";
}

}  // namespace rl::train
