// One decoder layer of a Hugging Face checkpoint, run in float32 over the residual stream x[T, d] in place.
// The family decides only data (web/lib/architectures.js holds one row per family): where the norms
// sit, their weight convention, q/k norm, biases, the attention scale and soft-cap, the activation. Weights are
// float32 in PyTorch's layout W[out, in]; web/lib/checkpoint/ converts and copies them in one layer at a time.
//
//   pre      (Llama, Mistral, Qwen2, Qwen3):  a = Attn(N1(x));        x += a;  m = MLP(N3(x));       x += m
//   sandwich (Gemma 2, Gemma 3):              a = N2(Attn(N1(x)));    x += a;  m = N4(MLP(N3(x)));   x += m
//   olmo2    (OLMo 2):                        a = N2(Attn(x));        x += a;  m = N4(MLP(x));       x += m
//   Attn: q = x Wq^T (+ bq), k, v likewise; q/k norm per head or over the whole projection; RoPE on q and k;
//         s = scale * q.k, soft-capped (cap * tanh(s / cap)), causal (and sliding-window) softmax; grouped
//         query heads share key/value head h / (H / KV); out = y Wo^T (+ bo).
//   MLP:  down(act(gate x) * up x), act = SiLU or GELU with the tanh approximation (gelu_pytorch_tanh).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/quant.hpp"
#include "core/memory_budget.hpp"

namespace rl::checkpoint {

// Where a checkpoint family's norms sit: the three placements its families use (the lab's decoder's
// decoder::Placement has five).
enum class HfPlacement : int { pre = 0, sandwich = 1, olmo2 = 2 };
enum class QkNorm : int { none = 0, per_head = 1, whole = 2 };
enum class Activation : int { silu = 0, gelu_tanh = 1 };

struct LayerSpec {
  int d = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0, ffn = 0;
  float eps = 1e-6f;
  float norm_offset = 0.0f;  // RMSNorm multiplies by (norm_offset + w): 0 for w, 1 for Gemma's (1 + w)
  HfPlacement placement = HfPlacement::pre;
  QkNorm qk_norm = QkNorm::none;
  Activation activation = Activation::silu;
  float attn_scale = 1.0f;
  float attn_softcap = 0.0f;  // 0: none
};

// Empty when the spec is usable, else what is wrong with it.
std::string check_spec(const LayerSpec& spec);

enum Slot : int {
  kAttnNormBefore,
  kAttnNormAfter,
  kMlpNormBefore,
  kMlpNormAfter,
  kQNorm,
  kKNorm,
  kQ,
  kK,
  kV,
  kO,
  kQBias,
  kKBias,
  kVBias,
  kOBias,
  kGate,
  kUp,
  kDown,
  kSlotCount
};
// The projections (q, k, v, o, gate, up, down) may stay in the file's dtype (quant.hpp, block-quantized ones
// included): they are widened to float32 four rows at a time into a small panel right before the matmul kernel reads
// them (the kernel holds four rows of W in L1 while every row of x passes), so no float32 copy of a whole matrix is
// made. Norm weights and biases are float32.
struct LayerWeights {
  const void* w[kSlotCount] = {};
  Dtype dtype[kSlotCount] = {};
  const float* f32(Slot slot) const { return static_cast<const float*>(w[slot]); }
};

// Floats of the panel linear() and head_chunk() widen rows into: kPanelRows rows of the longest input.
inline constexpr int kPanelRows = 4;
std::size_t panel_floats(const LayerSpec& spec);

// y[M, N] = x[M, K] W[N, K]^T (+ bias[N]) with W in `dtype`: kernels/linear.hpp's linear_forward, on W itself
// (float32) or on kPanelRows rows of it at a time, widened into panel.
void linear(float* y, const float* x, const void* w, Dtype dtype, int M, int K, int N, float* panel,
            const float* bias = nullptr);

// The float count of each slot's tensor (0 where the spec has none of that kind).
std::size_t slot_size(const LayerSpec& spec, Slot slot);

// The activations of one layer for T positions, reserved against the memory budget.
class Workspace {
 public:
  std::string reserve(const LayerSpec& spec, int T);  // "" or an out-of-memory message
  void release();
  float *h = nullptr, *q = nullptr, *k = nullptr, *v = nullptr, *y = nullptr, *scores = nullptr, *gate = nullptr,
        *up = nullptr, *branch = nullptr, *panel = nullptr;

 private:
  std::vector<float> data_;
  MemoryReservation memory_;
};

// What the attention reports per query head h when asked (head_stats, kHeadStats * H floats): the scores are those
// a query sees (causal, inside its window), after the model's scale s = scale * q.k:
//   [h * 4 + 0]  max |s| before any soft-cap
//   [h * 4 + 1]  max |s| after the soft-cap (the same without one)
//   [h * 4 + 2]  how many scores lie where the cap bends them, |s| > cap / 2 (tanh(1/2) / (1/2) = 0.92: the
//                capped score is already 8% under the line there); 0 without a cap
//   [h * 4 + 3]  how many scores
inline constexpr int kHeadStats = 4;

// The attention between the projections: q[T, H * hd], k and v [T, KV * hd] as the projections give them (biases
// not yet added; q and k are changed in place: biases, q/k norm, RoPE; v gets its bias) -> y[T, H * hd], the
// heads' outputs before o_proj. scores: 2 * T * T floats (one head's scores and probabilities at a time). The
// layer's own weights used: the biases and q/k norms. head_stats: nullptr, or kHeadStats * H floats (above).
// qk_norm_inputs: nullptr, or 2 * T floats: per position the smallest mean(h^2) at q_norm's input over the rows it
// normalizes (a head's hd values with a norm per head, the whole projection otherwise), then the same for k_norm;
// 0 without q/k norm.
void attention_core(float* y, float* q, float* k, float* v, int T, const LayerSpec& spec, const LayerWeights& weights,
                    const float* inv_freq, int window, float* scores, float* head_stats = nullptr,
                    float* qk_norm_inputs = nullptr);

// Observations of one layer a caller may ask for (each nullptr when not wanted); they change nothing computed.
//   head_stats    kHeadStats * H floats, as attention_core reports them
//   norm_inputs   6 * T floats: mean(h^2) of each row at the input of N1, N2, N3, N4 (the layout's norms, in the
//                 order of the layer comment above; 0 where the layout has no such norm), then q_norm's and
//                 k_norm's as attention_core's qk_norm_inputs
//   mid_norms     T floats: the L2 norm of the stream between the two sublayers (hook_resid_mid)
struct LayerObservations {
  float* head_stats = nullptr;
  float* norm_inputs = nullptr;
  float* mid_norms = nullptr;
};

// mean(x^2) of each of the rows of x[rows, d] (summed in double): what an RMSNorm compares with eps.
void row_mean_squares(float* out, const float* x, int rows, int d);

// gate[i] = act(gate[i]) * up[i] for n values: the MLP between its gate/up and down projections (kernels/gated.hpp).
void gated_activation(float* gate, const float* up, std::size_t n, Activation activation);

// One layer: x[T, d] += attention branch, then += MLP branch. inv_freq: head_dim / 2 RoPE frequencies of the
// layer; window > 0 lets position t see keys t - window + 1 .. t only. attn_norms / mlp_norms [T] receive the L2
// norm of each branch (what the sublayer adds to the stream). Returns "" or the problem (missing weight, memory).
std::string layer_forward(float* x, int T, const LayerSpec& spec, const LayerWeights& weights, const float* inv_freq,
                          int window, float* attn_norms, float* mlp_norms, Workspace& ws,
                          const LayerObservations& observe = {});

// L2 norm of each of the rows of x[rows, d] (summed in double).
void row_norms(float* out, const float* x, int rows, int d);

// logits[r * ld + j] = cap * tanh((h_r . w_j) / cap) (cap 0: no cap) for the n rows w_j of one vocabulary chunk,
// w in `dtype`; panel holds kPanelRows * d floats.
void head_chunk(float* logits, int ld, const float* h, int rows, int d, const void* w, Dtype dtype, int n,
                float softcap, float* panel);

// x[i] = cap * tanh(x[i] / cap) for n values (cap 0: unchanged), as head_chunk caps them. stats: nullptr, or
// kHeadStats floats as attention_core reports a head's: max |x| before, max |x| after, how many |x| > cap / 2,
// how many values.
void softcap_observed(float* x, std::size_t n, float cap, float* stats);

}  // namespace rl::checkpoint
