// A trained toy decoder as a Hugging Face checkpoint folder, in memory: config.json, model.safetensors and
// tokenizer.json as bytes (the caller writes the files). One table, hf_architectures(), says for each exported
// family which engine config it needs and which Hugging Face class and tensor names it becomes; the family's row
// of web/lib/architectures.js states the same layout and norm names, and tests/js/hf-export.test.mjs holds the two
// to each other.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "decoder/config.hpp"
#include "decoder/layout.hpp"
#include "train/corpus.hpp"

namespace rl::train {

enum class HfDtype { f32, f16, bf16 };

// The value `v` becomes once stored as `dtype` and read back: F16 and BF16 round to nearest, ties to even.
float stored_value(float v, HfDtype dtype);

struct HfArchitecture {
  std::string_view model_type;   // config.json "model_type": "llama", "olmo2"
  std::string_view class_name;   // config.json "architectures": "LlamaForCausalLM", "Olmo2ForCausalLM"
  decoder::Placement placement;  // pre (Llama), olmo2 (norms on the sublayer outputs)
  bool qk_norm;                  // OLMo 2: RMSNorm over the whole q and k projections
  decoder::QkNormShape qk_norm_shape;
  // Hugging Face names of the engine's per-layer norms: attn_norm and mlp_norm (the only two these layouts use)
  std::string_view attn_norm_name, mlp_norm_name;
};

// Every family the exporter writes.
const std::vector<HfArchitecture>& hf_architectures();
// nullptr for an unknown model_type.
const HfArchitecture* find_hf_architecture(std::string_view model_type);

// "" when this engine config is exactly the family's forward (RMSNorm, SwiGLU, RoPE without learned positions,
// no soft-caps, residual on, the family's placement and q/k norm), else what differs.
std::string check_exportable(const decoder::Config& config, const HfArchitecture& arch);

// The Hugging Face name of an engine tensor ("layers.0.attn.q.weight" -> "model.layers.0.self_attn.q_proj.weight").
std::string hf_tensor_name(const decoder::ParamTensor& tensor, const HfArchitecture& arch);

// config.json: every field the family's transformers config class reads for this model (untied output head).
std::string hf_config_json(const decoder::Config& config, const HfArchitecture& arch, HfDtype dtype);

// model.safetensors: 8-byte little-endian header length, the JSON header (tensors sorted by name, as
// safetensors.torch.save_file writes them, padded with spaces to a multiple of 8), then the tensors' data.
// F16 and BF16 round to nearest even (stored_value).
std::vector<std::uint8_t> safetensors_bytes(const decoder::ParamLayout& layout, const std::vector<float>& params,
                                            const HfArchitecture& arch, HfDtype dtype);

// tokenizer.json for the `tokenizers` library: a BPE model with no merges whose vocabulary is the tokenizer's
// characters in id order, so every character is one token with the engine's id; no normalizer, no pre-tokenizer,
// and the Fuse decoder (tokens joined with nothing between them).
std::string hf_tokenizer_json(const CharTokenizer& tokenizer);

// A JSON string literal: quotes, backslash and control characters escaped.
std::string json_string(std::string_view s);

}  // namespace rl::train
