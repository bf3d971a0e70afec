// A random orthogonal matrix drawn from the Haar (uniform) distribution, stored as Householder reflections,
// so drawing and applying it cost O(n^2) instead of the O(n^3) of forming Q.
//
// Householder QR of a Gaussian matrix A gives A = H_1 H_2 ... H_n R, and Q = H_1 ... H_n D with
// D = diag(sign(R_jj)) is Haar distributed (Mezzadri 2007). The vector that defines H_j is the j-th column
// of H_{j-1} ... H_1 A below the diagonal, which by rotation invariance is itself an independent Gaussian
// vector of length n - j + 1; so the reflections are drawn directly from fresh Gaussian vectors x:
//   u = (x + sign(x_1) |x| e_1) / |x + sign(x_1) |x| e_1|,   H = I - 2 u u^T,   H x = -sign(x_1) |x| e_1,
// hence R_jj = -sign(x_1) and D_jj = -sign(x_1).
#pragma once
#include <vector>

#include "core/random.hpp"

namespace rl {

class RandomOrthogonal {
 public:
  RandomOrthogonal(int n, rl::Rng& rng);

  int size() const { return n_; }
  void apply(std::vector<double>& v) const;            // v <- Q v
  void apply_transpose(std::vector<double>& v) const;  // v <- Q^T v

 private:
  void reflect(int j, std::vector<double>& v) const;  // v <- H_j v
  int n_;
  std::vector<double> u_;       // u_j for j = 0..n-1, packed: u_j has n - j entries, acting on v[j..n)
  std::vector<size_t> offset_;  // where u_j starts in u_
  std::vector<double> sign_;    // D
};

}  // namespace rl
