// The shapes the product tests (test_matmul.cpp, test_linear.cpp) run, chosen to hit every tile remainder of
// kernels/matmul.cpp: rows not a multiple of 4, columns not a multiple of 12, 8 or 4, K = 1; and their tolerance.
#pragma once
#include <cmath>

namespace rl::test {

struct Shape {
  int M, K, N;
};

inline const Shape kShapes[] = {{1, 1, 1},     {1, 3, 5},    {3, 1, 7},     {4, 8, 8},
                                {5, 9, 13},    {7, 4, 12},   {16, 64, 64},  {16, 64, 256},
                                {16, 256, 64}, {33, 17, 65}, {12, 100, 11}, {64, 256, 100}};

// sum over k of products, in double; the bound for float32 rounding grows like sqrt(K) times the term size.
inline double tolerance(int K) { return 4e-7 * std::sqrt(static_cast<double>(K)) * 4.0; }

}  // namespace rl::test
