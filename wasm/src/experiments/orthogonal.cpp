#include "experiments/orthogonal.hpp"

#include <cmath>

namespace rl {

RandomOrthogonal::RandomOrthogonal(int n, rl::Rng& rng) : n_(n), offset_(size_t(n)), sign_(size_t(n)) {
  u_.reserve(size_t(n) * size_t(n + 1) / 2);
  for (int j = 0; j < n; ++j) {
    const int len = n - j;
    offset_[size_t(j)] = u_.size();
    std::vector<double> x(static_cast<size_t>(len));
    double norm2 = 0.0;
    for (double& xi : x) {
      xi = rng.normal();
      norm2 += xi * xi;
    }
    const double s = x[0] >= 0.0 ? 1.0 : -1.0;
    sign_[size_t(j)] = -s;         // D_jj = sign(R_jj) = -sign(x_1)
    x[0] += s * std::sqrt(norm2);  // u ~ x + sign(x_1) |x| e_1
    double unorm2 = 0.0;
    for (double xi : x) unorm2 += xi * xi;
    const double inv = 1.0 / std::sqrt(unorm2);
    for (double xi : x) u_.push_back(xi * inv);
  }
}

void RandomOrthogonal::reflect(int j, std::vector<double>& v) const {
  const double* u = u_.data() + offset_[size_t(j)];
  double dot = 0.0;
  for (int i = j; i < n_; ++i) dot += u[i - j] * v[size_t(i)];
  for (int i = j; i < n_; ++i) v[size_t(i)] -= 2.0 * dot * u[i - j];
}

// Q v = H_1 (H_2 ( ... H_n (D v)))
void RandomOrthogonal::apply(std::vector<double>& v) const {
  for (int i = 0; i < n_; ++i) v[size_t(i)] *= sign_[size_t(i)];
  for (int j = n_ - 1; j >= 0; --j) reflect(j, v);
}

// Q^T v = D H_n ( ... H_2 (H_1 v)), each H symmetric
void RandomOrthogonal::apply_transpose(std::vector<double>& v) const {
  for (int j = 0; j < n_; ++j) reflect(j, v);
  for (int i = 0; i < n_; ++i) v[size_t(i)] *= sign_[size_t(i)];
}

}  // namespace rl
