// Golden values from PyTorch (tests/fixtures/kernels/, made by make_fixtures.py there): an independent check
// of the float64 references (to 1e-10) and of the float32 kernels, and of bf16 rounding bit for bit.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/activations.hpp"
#include "kernels/bf16.hpp"
#include "kernels/norms.hpp"
#include "reference/activations_reference.hpp"
#include "reference/norms_reference.hpp"
#include "test_util.hpp"

using Eigen::ArrayXd;
using rl::test::check_close;

namespace {

const std::string kFixtureDir = rl::test::source_dir() + "/tests/fixtures/kernels/";

struct FixtureCase {
  std::string kind;                                   // rmsnorm | layernorm | softcap | softmax
  std::map<std::string, double> params;               // d, eps, weight_offset, cap
  std::map<std::string, std::vector<double>> arrays;  // x, g, dy, y, dx, ...
  ArrayXd array(const std::string& name) const {
    const std::vector<double>& v = arrays.at(name);
    return Eigen::Map<const ArrayXd>(v.data(), static_cast<Eigen::Index>(v.size()));
  }
  // Inputs are float32 values written with 9 digits: they read back exactly only through float.
  std::vector<float> floats(const std::string& name) const {
    const std::vector<double>& v = arrays.at(name);
    return std::vector<float>(v.begin(), v.end());
  }
  ArrayXd input(const std::string& name) const { return rl::test::to_double(floats(name)); }
};

// "case KIND key=value ...", then "NAME v1 v2 ..." lines, then "end"; '#' lines are comments.
std::vector<FixtureCase> read_cases(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<FixtureCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string head;
    words >> head;
    if (head == "case") {
      cases.emplace_back();
      words >> cases.back().kind;
      for (std::string kv; words >> kv;) {
        const auto eq = kv.find('=');
        cases.back().params[kv.substr(0, eq)] = std::stod(kv.substr(eq + 1));
      }
    } else if (head != "end") {
      REQUIRE(!cases.empty());
      std::vector<double>& values = cases.back().arrays[head];
      for (std::string token; words >> token;) values.push_back(std::stod(token));  // stod reads subnormals
    }
  }
  return cases;
}

constexpr double kRefAtol = 1e-13, kRefRtol = 1e-12;  // float64 reference vs float64 PyTorch
constexpr double kF32Atol = 1e-5, kF32Rtol = 1e-5;    // float32 kernels vs float64 PyTorch

void check_rmsnorm_case(const FixtureCase& c) {
  const int d = static_cast<int>(c.params.at("d"));
  const double eps = c.params.at("eps"), offset = c.params.at("weight_offset");
  const ArrayXd x = c.input("x"), g = c.input("g"), dy = c.input("dy");
  check_close("reference y", rl::ref::rmsnorm_forward(x, g, eps, offset), c.array("y"), kRefAtol, kRefRtol);
  const auto grads = rl::ref::rmsnorm_backward(dy, x, g, eps, offset);
  check_close("reference dx", grads.dx, c.array("dx"), kRefAtol, kRefRtol);
  check_close("reference dg", grads.dg, c.array("dg"), kRefAtol, kRefRtol);

  const std::vector<float> xf = c.floats("x"), gf = c.floats("g"), dyf = c.floats("dy");
  std::vector<float> y(d), dx(d, 0.0f), dg(d, 0.0f);
  float rstd = 0.0f;
  rl::rmsnorm_forward(y.data(), &rstd, xf.data(), gf.data(), 1, d, static_cast<float>(eps), static_cast<float>(offset));
  rl::rmsnorm_backward(dx.data(), dg.data(), dyf.data(), xf.data(), &rstd, gf.data(), 1, d, static_cast<float>(offset));
  check_close("kernel y", y, c.array("y"), kF32Atol, kF32Rtol);
  check_close("kernel dx", dx, c.array("dx"), kF32Atol * std::max(1.0f, rstd), kF32Rtol);
  check_close("kernel dg", dg, c.array("dg"), kF32Atol, kF32Rtol);
}

void check_layernorm_case(const FixtureCase& c) {
  const int d = static_cast<int>(c.params.at("d"));
  const double eps = c.params.at("eps");
  const ArrayXd x = c.input("x"), gamma = c.input("gamma"), beta = c.input("beta"), dy = c.input("dy");
  check_close("reference y", rl::ref::layernorm_forward(x, gamma, beta, eps), c.array("y"), kRefAtol, kRefRtol);
  const auto grads = rl::ref::layernorm_backward(dy, x, gamma, eps);
  check_close("reference dx", grads.dx, c.array("dx"), kRefAtol, kRefRtol);
  check_close("reference dgamma", grads.dgamma, c.array("dgamma"), kRefAtol, kRefRtol);
  check_close("reference dbeta", grads.dbeta, c.array("dbeta"), kRefAtol, kRefRtol);

  const std::vector<float> xf = c.floats("x"), gf = c.floats("gamma"), bf = c.floats("beta"), dyf = c.floats("dy");
  std::vector<float> y(d), dx(d, 0.0f), dgamma(d, 0.0f), dbeta(d, 0.0f);
  float mean = 0.0f, rstd = 0.0f;
  rl::layernorm_forward(y.data(), &mean, &rstd, xf.data(), gf.data(), bf.data(), 1, d, static_cast<float>(eps));
  rl::layernorm_backward(dx.data(), dgamma.data(), dbeta.data(), dyf.data(), xf.data(), &mean, &rstd, gf.data(), 1, d);
  check_close("kernel y", y, c.array("y"), kF32Atol, kF32Rtol);
  check_close("kernel dx", dx, c.array("dx"), kF32Atol * std::max(1.0f, rstd), kF32Rtol);
  check_close("kernel dgamma", dgamma, c.array("dgamma"), kF32Atol, kF32Rtol);
  check_close("kernel dbeta", dbeta, c.array("dbeta"), kF32Atol, kF32Rtol);
}

void check_activation_case(const FixtureCase& c) {
  const int d = static_cast<int>(c.params.at("d"));
  const ArrayXd x = c.input("x"), dy = c.input("dy");
  const std::vector<float> xf = c.floats("x"), dyf = c.floats("dy");
  std::vector<float> y(d), dx(d, 0.0f);
  if (c.kind == "softcap") {
    const double cap = c.params.at("cap");
    check_close("reference y", rl::ref::softcap_forward(x, cap), c.array("y"), kRefAtol, kRefRtol);
    check_close("reference dx", rl::ref::softcap_backward(dy, x, cap), c.array("dx"), kRefAtol, kRefRtol);
    rl::softcap_forward(y.data(), xf.data(), d, static_cast<float>(cap));
    rl::softcap_backward(dx.data(), dyf.data(), xf.data(), d, static_cast<float>(cap));
    check_close("kernel y", y, c.array("y"), 3e-5, kF32Rtol);  // |y| up to 30
  } else {
    const ArrayXd want_y = rl::ref::softmax_forward(x);
    check_close("reference y", want_y, c.array("y"), kRefAtol, kRefRtol);
    check_close("reference dx", rl::ref::softmax_backward(dy, want_y), c.array("dx"), kRefAtol, kRefRtol);
    rl::softmax_forward(y.data(), xf.data(), 1, d);
    rl::softmax_backward(dx.data(), dyf.data(), y.data(), 1, d);
    check_close("kernel y", y, c.array("y"), kF32Atol, kF32Rtol);
  }
  check_close("kernel dx", dx, c.array("dx"), kF32Atol, kF32Rtol);
}

}  // namespace

TEST_CASE("kernels and references agree with PyTorch float64 autograd", "[torch][fixtures]") {
  const std::vector<FixtureCase> cases = read_cases(kFixtureDir + "norms_torch.txt");
  REQUIRE(cases.size() == 50);
  for (const FixtureCase& c : cases) {
    std::ostringstream label;
    label << c.kind;
    for (const auto& [key, value] : c.params) label << " " << key << "=" << value;
    INFO(label.str());
    if (c.kind == "rmsnorm") check_rmsnorm_case(c);
    else if (c.kind == "layernorm") check_layernorm_case(c);
    else check_activation_case(c);
  }
}

TEST_CASE("float_to_bf16_bits matches PyTorch's .to(torch.bfloat16) bit for bit", "[torch][fixtures][bf16]") {
  std::ifstream in(kFixtureDir + "bf16_rounding.txt");
  REQUIRE(in.good());
  int checked = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::uint32_t f32_bits = 0, bf16_bits = 0;
    std::istringstream(line) >> std::hex >> f32_bits >> bf16_bits;
    float f;
    std::memcpy(&f, &f32_bits, sizeof f);
    INFO("float32 bits " << line);
    CHECK(rl::float_to_bf16_bits(f) == bf16_bits);
    ++checked;
  }
  CHECK(checked == 261);
}
