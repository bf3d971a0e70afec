// The gated MLP's activation between its gate/up and down projections, forward and backward, four lanes at a time
// (vector_math.hpp's exp); the lab's decoder's SwiGLU and the checkpoints' SwiGLU and GeGLU run these:
//   SwiGLU:      act = silu(g) * u,          silu(g) = g sigma(g),  sigma(g) = 1 / (1 + exp(-g))
//   GeGLU(tanh): act = gelu_tanh(g) * u,     gelu_tanh(g) = g (1 + tanh(c (g + 0.044715 g^3))) / 2, c = sqrt(2 / pi)
//                (Transformers' gelu_pytorch_tanh)
// Backward writes (=) d_gate and d_up: nothing else feeds them.
#pragma once

namespace rl {

enum class Gate : int { silu = 0, gelu_tanh = 1 };

// act[n] = gate_fn(gate) * up (act may alias gate)
void glu_forward(float* act, const float* gate, const float* up, int n, Gate kind);
// d_up = d_act gate_fn(g);  d_gate = d_act u gate_fn'(g)
void glu_backward(float* d_gate, float* d_up, const float* d_act, const float* gate, const float* up, int n, Gate kind);

}  // namespace rl
