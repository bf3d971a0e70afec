// Float64 reference for kernels/linear.hpp, written as the formulas read (Eigen matrices, row-major data mapped as
// given). Like the other references, its backward RETURNS fresh gradients. Header-only.
#pragma once
#include "reference/eigen.hpp"

namespace rl::ref {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// y = x W^T + b (b broadcast over rows; an empty b: none)
inline Mat linear_forward(const Mat& x, const Mat& w, const Vec& b) {
  Mat y = x * w.transpose();
  if (b.size() > 0) y.rowwise() += b.matrix().transpose();
  return y;
}

struct LinearGrads {
  Mat dx, dw;
  Vec db;
};
// dx = dy W,  dW = dy^T x,  db = sum over rows of dy
inline LinearGrads linear_backward(const Mat& dy, const Mat& x, const Mat& w) {
  return {dy * w, dy.transpose() * x, dy.colwise().sum().transpose().array()};
}

}  // namespace rl::ref
